// Bedrock's error types (the `x-amzn-errortype` header, `__type` in a JSON body, `:exception-type` in a
// stream) → the HTTP status the gateway classifies by: throttling is a rate signal (429), a validation
// error a 400 whose text is kept, a model that is not ready or a service that is unavailable a retryable 503.

const STATUS: Readonly<Record<string, number>> = {
  ThrottlingException: 429,
  ServiceQuotaExceededException: 429,
  ValidationException: 400,
  AccessDeniedException: 403,
  ResourceNotFoundException: 404,
  ModelNotReadyException: 503,
  ServiceUnavailableException: 503,
  ModelTimeoutException: 504,
  ModelErrorException: 502,
  ModelStreamErrorException: 502,
  InternalServerException: 500,
};

/** The bare type (`ThrottlingException` from `ThrottlingException:http://…` or `com.amazon…#Throttling…`). */
export function bedrockErrorType(raw: string): string {
  const colon = raw.indexOf(':');
  const bare = colon === -1 ? raw : raw.slice(0, colon);
  const hash = bare.lastIndexOf('#');
  return hash === -1 ? bare : bare.slice(hash + 1);
}

/**
 * The status a Bedrock error type stands for; 500 for one this table does not know. A stream's
 * `:exception-type` names the event union's member (`throttlingException`), read as the type it carries.
 */
export function bedrockErrorStatus(type: string): number {
  const bare = bedrockErrorType(type);
  return STATUS[bare] ?? STATUS[bare.charAt(0).toUpperCase() + bare.slice(1)] ?? 500;
}

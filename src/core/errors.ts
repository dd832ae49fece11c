// Every error the gateway itself produces: a stable code, an HTTP status and a default message.
// One renderer per dialect turns a GatewayError into the body that dialect's SDK understands.

export const ERROR_CODES = {
  invalid_json: { status: 400, message: 'The request body is not valid JSON.' },
  invalid_request: { status: 400, message: 'The request is invalid.' },
  wrong_endpoint_for_model: {
    status: 400,
    message: 'This model is not served on /v1/messages; use /v1/chat/completions.',
  },
  missing_version_header: {
    status: 400,
    message: 'The anthropic-version header is required on /v1/messages (2023-06-01 or 2026-10-21).',
  },
  unsupported_version: {
    status: 400,
    message: 'Unsupported anthropic-version; the supported values are 2023-06-01 or 2026-10-21.',
  },
  // A stage refused the request's content (a redaction rule with `action: refuse`); the message names the rule.
  content_refused: { status: 400, message: 'The request holds content the gateway is configured to refuse.' },
  missing_api_key: { status: 401, message: 'Missing API key: send Authorization: Bearer <key>.' },
  x_api_key_not_accepted: {
    status: 401,
    message: 'The x-api-key header is not accepted: send the key as Authorization: Bearer <key>.',
  },
  invalid_api_key: { status: 401, message: 'Invalid API key.' },
  key_disabled: { status: 401, message: 'This API key is disabled.' },
  key_expired: { status: 401, message: 'This API key has expired.' },
  model_not_allowed: { status: 403, message: 'This API key may not use this model.' },
  budget_exhausted: { status: 403, message: 'Quota restricted: the USD budget of this key is used up.' },
  token_budget_exhausted: { status: 403, message: 'Quota restricted: the token budget of this key is used up.' },
  cors_not_allowed: { status: 403, message: 'Cross-origin requests from this origin are not allowed (cors_origins).' },
  // Admin API only: the principal's role (roles.ts) does not reach this route, or a team administrator named another team.
  permission_denied: { status: 403, message: 'Your role does not allow this.' },
  not_found: { status: 404, message: 'Not found.' },
  model_not_found: { status: 404, message: 'The model does not exist.' },
  response_not_found: { status: 404, message: 'No stored response with this id for this key.' },
  previous_response_not_found: {
    status: 400,
    message:
      "The previous response is not stored for this key (expired, deleted, another key's, or made with store: false).",
  },
  stored_responses_quota_exceeded: {
    status: 400,
    message: 'The key holds as many stored responses as it may; send store: false, or delete stored responses.',
  },
  method_not_allowed: { status: 405, message: 'Method not allowed.' },
  // Admin API only: a key name another key has, or a name two old keys share.
  conflict: { status: 409, message: 'The request conflicts with the current state.' },
  body_too_large: { status: 413, message: 'The request body is too large.' },
  unsupported_media_type: { status: 415, message: 'The request body is in an encoding the gateway does not read.' },
  // Node has answered these itself (408, 400) and closed the socket: they appear in usage rows only.
  request_timeout: { status: 408, message: 'The request did not arrive whole within the client request timeout.' },
  malformed_http: { status: 400, message: 'The request is not valid HTTP.' },
  // Answered by the gateway, which then closes the connection (client_body_timeout_ms).
  body_timeout: { status: 408, message: 'The request body stopped arriving.' },
  header_too_large: { status: 431, message: 'The request headers are larger than the gateway accepts (16 KB in all).' },
  // nginx's 499: only ever in usage rows and logs, since nobody is left to read it.
  client_disconnected: { status: 499, message: 'The client closed the connection before it was answered.' },
  rate_limit_requests: { status: 429, message: 'Requests-per-minute limit of this key reached.' },
  rate_limit_tokens: { status: 429, message: 'Tokens-per-minute limit of this key reached.' },
  concurrency_limit: { status: 429, message: 'Concurrent-request limit of this key reached.' },
  budget_in_flight: {
    status: 429,
    message: 'The budget is nearly spent and requests in flight hold what may be reserved at once.',
  },
  // Admin API only: too many wrong admin tokens from one address (admin/api/sign-in-limit.ts).
  admin_sign_in_limited: {
    status: 429,
    message: 'Too many refused admin sign-ins from this address; wait and try again.',
  },
  upstream_rate_limited: { status: 429, message: 'Every upstream deployment is rate-limited.' },
  internal_error: { status: 500, message: 'The gateway failed to handle the request.' },
  upstream_error: { status: 502, message: 'The upstream provider failed.' },
  no_deployment_available: { status: 503, message: 'No healthy deployment is available for this model.' },
  admission_unavailable: {
    status: 503,
    message:
      "The gateway cannot check this key's limits right now (its admission store is unreachable); retry shortly.",
  },
  usage_unavailable: {
    status: 503,
    message: "The gateway cannot read this key's usage right now (its database is unreachable); retry shortly.",
  },
  usage_unrecordable: {
    status: 503,
    message:
      'The gateway cannot record usage right now (its database is not taking rows and the rows it holds are at their bound); retry shortly.',
  },
  upstream_timeout: { status: 504, message: 'The upstream provider timed out.' },
  decoding_busy: {
    status: 503,
    message: 'The gateway is decoding too many compressed request bodies at once; retry shortly.',
  },
  overloaded: {
    status: 503,
    message: 'The gateway is running behind (its event loop is late); retry shortly.',
  },
  descriptors_exhausted: {
    status: 503,
    message: 'The gateway holds all the upstream connections its file-descriptor limit allows; retry shortly.',
  },
  shutting_down: { status: 503, message: 'The gateway is shutting down and stopped this request; retry it.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * The status a caller gets for an upstream's error status (DESIGN.md Part 2): a 4xx about the request
 * stays (422 becomes 400; a 403 stays 403, as often a moderation or a WAF as the key, and an SDK retries
 * a 502), the gateway's own credentials refused (401) become 502, timeouts 504, other 5xx 502.
 */
export function clientStatusFor(upstreamStatus: number): number {
  if (upstreamStatus === 401) return 502;
  if (upstreamStatus === 408 || upstreamStatus === 504) return 504;
  if (upstreamStatus === 422) return 400;
  // The caller's model exists in the gateway's catalog: an upstream 404 is the operator's configuration
  // (a wrong upstream model name or base URL), not something the caller can fix.
  if (upstreamStatus === 404) return 502;
  if (upstreamStatus >= 500) return 502;
  if (upstreamStatus >= 400) return upstreamStatus;
  return 502;
}

/** The catalogue code of an upstream error the caller gets with `clientStatus` (its text is the upstream's). */
export function clientCodeFor(clientStatus: number): ErrorCode {
  if (clientStatus === 413) return 'body_too_large';
  if (clientStatus === 429) return 'upstream_rate_limited';
  if (clientStatus === 504) return 'upstream_timeout';
  if (clientStatus >= 400 && clientStatus < 500) return 'invalid_request';
  return 'upstream_error';
}

export class GatewayError extends Error {
  override name = 'GatewayError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly param: string | null;
  /** Extra response headers (retry-after, rate-limit headers). */
  readonly headers: Record<string, string>;
  /** The upstream's own error type, kept when it is re-shaped into the same dialect. */
  readonly upstreamType: string | null;
  /** The upstream's own OpenAI `code` (e.g. context_length_exceeded), shown instead of ours when set. */
  readonly upstreamCode: string | null;
  /** An Anthropic-style upstream's `error.details` (its `error_code`), kept for an Anthropic caller. */
  readonly upstreamDetails: Record<string, unknown> | null;

  constructor(
    code: ErrorCode,
    opts: {
      message?: string;
      param?: string | null;
      status?: number;
      headers?: Record<string, string>;
      upstreamType?: string | null;
      upstreamCode?: string | null;
      upstreamDetails?: Record<string, unknown> | null;
      cause?: unknown;
    } = {},
  ) {
    super(opts.message ?? ERROR_CODES[code].message, { cause: opts.cause });
    this.code = code;
    this.status = opts.status ?? ERROR_CODES[code].status;
    this.param = opts.param ?? null;
    this.headers = opts.headers ?? {};
    this.upstreamType = opts.upstreamType ?? null;
    this.upstreamCode = opts.upstreamCode ?? null;
    this.upstreamDetails = opts.upstreamDetails ?? null;
  }
}

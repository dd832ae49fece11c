// Errors on the Bedrock routes in Bedrock's shape: `{"message": …}` with the error's type in the
// `x-amzn-errortype` header, as Bedrock answers and as the AWS and Anthropic Bedrock clients read it.
import type { GatewayError } from '../../core/errors.ts';
import { maskKeyLike } from '../../core/mask-secrets.ts';

/** Bedrock's error type for a status. */
export function bedrockErrorType(status: number): string {
  switch (status) {
    case 400:
    case 413:
      return 'ValidationException';
    case 401:
      return 'UnrecognizedClientException';
    case 403:
      return 'AccessDeniedException';
    case 404:
    case 405:
      return 'ResourceNotFoundException';
    case 408:
    case 504:
      return 'ModelTimeoutException';
    case 429:
      return 'ThrottlingException';
    case 502:
      return 'ModelErrorException';
    case 503:
      return 'ServiceUnavailableException';
    default:
      return status >= 500 ? 'InternalServerException' : 'ValidationException';
  }
}

/** The body and headers of a Bedrock-shaped error. */
export function renderBedrockError(
  err: GatewayError,
  requestId: string,
): { body: string; headers: Record<string, string> } {
  return {
    body: JSON.stringify({ message: maskKeyLike(err.message) }),
    headers: { 'x-amzn-errortype': bedrockErrorType(err.status), 'x-amzn-requestid': requestId },
  };
}

// Renders a GatewayError as the error body of the caller's dialect (DESIGN.md "Error bodies").
import type { Dialect } from '../core/dialect.ts';
import type { GatewayError } from '../core/errors.ts';
import { maskKeyLike } from '../observability/mask-secrets.ts';

const OPENAI_TYPES: Record<number, string> = {
  400: 'invalid_request_error', 401: 'invalid_request_error', 403: 'permission_error', 404: 'invalid_request_error',
  405: 'invalid_request_error', 413: 'invalid_request_error', 429: 'rate_limit_error',
};

const ANTHROPIC_TYPES: Record<number, string> = {
  400: 'invalid_request_error', 401: 'authentication_error', 403: 'permission_error', 404: 'not_found_error',
  405: 'invalid_request_error', 413: 'request_too_large', 429: 'rate_limit_error', 500: 'api_error',
  502: 'api_error', 503: 'overloaded_error', 504: 'timeout_error', 529: 'overloaded_error',
};

export function openaiErrorType(status: number): string {
  return OPENAI_TYPES[status] ?? (status >= 500 ? 'server_error' : 'invalid_request_error');
}

export function anthropicErrorType(status: number): string {
  return ANTHROPIC_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

export function renderError(dialect: Dialect, err: GatewayError, requestId: string): string {
  // Messages echo what callers sent (a path, a model name); a key pasted there is not sent back whole.
  const message = maskKeyLike(err.message);
  if (dialect === 'anthropic') {
    const error: Record<string, unknown> = { type: err.upstreamType ?? anthropicErrorType(err.status), message };
    if (err.upstreamDetails !== null) error.details = err.upstreamDetails;
    return JSON.stringify({ type: 'error', error, request_id: requestId });
  }
  return JSON.stringify({
    error: { message, type: err.upstreamType ?? openaiErrorType(err.status), param: err.param, code: err.upstreamCode ?? err.code },
  });
}

/**
 * The same error as one in-stream SSE event, for failures after the first byte. A Responses stream
 * gets its `error` event (ResponseErrorEvent), numbered after the `sequence` events before it.
 */
export function renderStreamError(dialect: Dialect, err: GatewayError, requestId: string, sequence = 0): string {
  if (dialect === 'responses') {
    const event = { type: 'error', code: err.upstreamCode ?? err.code, message: maskKeyLike(err.message), param: err.param, sequence_number: sequence };
    return `event: error\ndata: ${JSON.stringify(event)}\n\n`;
  }
  const body = renderError(dialect, err, requestId);
  return dialect === 'anthropic' ? `event: error\ndata: ${body}\n\n` : `data: ${body}\n\n`;
}

// Errors in Anthropic's words: the type each status is named by, the status each type stands for
// (in-stream errors carry no status), and an upstream error shaped for a /v1/messages caller.
import { shapedStatusAndMessage, type DialectError } from '../../spec/upstream-error.ts';
import type { UpstreamError } from '../../spec/form.ts';

const ANTHROPIC_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  405: 'invalid_request_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  502: 'api_error',
  503: 'overloaded_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

/** The Anthropic error type for an HTTP status (docs/errors.md). */
export function anthropicErrorType(status: number): string {
  return ANTHROPIC_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

/** The HTTP status an Anthropic error type stands for (STREAMING.md §3.1); used for in-stream errors. */
export const ANTHROPIC_ERROR_STATUS: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

/** An overloaded upstream (Anthropic's 529, a 503) reads as overloaded though the caller gets a 502. */
function typeFor(upstreamStatus: number, clientStatus: number): string {
  return upstreamStatus === 529 || upstreamStatus === 503 ? 'overloaded_error' : anthropicErrorType(clientStatus);
}

/**
 * An upstream error for a messages caller. An Anthropic-style upstream's own type is kept when the status
 * is too, so a client's fallback keyed on it (Claude Code's) still fires; code and param do not exist here.
 */
export function shapeMessagesError(err: UpstreamError): DialectError {
  const { status, message } = shapedStatusAndMessage(err);
  const type =
    err.from === 'messages' && err.type !== undefined && status === err.status ? err.type : typeFor(err.status, status);
  return { status, type, message, code: null, param: null };
}

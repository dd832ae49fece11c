// Errors in Gemini's words: the status name each HTTP status is named by, and an upstream error shaped
// for a Gemini caller. A Gemini upstream's own status name (INVALID_ARGUMENT, …) is kept when the HTTP
// status is; any other is named from the status.
import { shapedStatusAndMessage, type DialectError } from '../../spec/upstream-error.ts';
import type { UpstreamError } from '../../spec/form.ts';

/** Google's canonical status names by HTTP status (google.rpc.Code), as Gemini's error bodies carry them. */
const GEMINI_STATUSES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  405: 'INVALID_ARGUMENT',
  408: 'DEADLINE_EXCEEDED',
  409: 'ABORTED',
  413: 'INVALID_ARGUMENT',
  415: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  501: 'UNIMPLEMENTED',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

export function geminiErrorStatus(status: number): string {
  return GEMINI_STATUSES[status] ?? (status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT');
}

export function shapeGeminiError(err: UpstreamError): DialectError {
  const { status, message } = shapedStatusAndMessage(err);
  const own = err.from === 'gemini' && err.type !== undefined && /^[A-Z_]+$/.test(err.type) && status === err.status;
  return { status, type: own ? err.type! : geminiErrorStatus(status), message, code: null, param: null };
}

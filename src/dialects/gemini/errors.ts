// Errors in Gemini's words: an upstream error shaped for a Gemini caller. A Gemini upstream's own status
// name (INVALID_ARGUMENT, …) is kept when the HTTP status is; any other is named from the status.
import { shapedStatusAndMessage, type DialectError } from '../../translate/hub/upstream-error.ts';
import type { UpstreamError } from '../../translate/hub/form.ts';
import { geminiErrorStatus } from '../render-error.ts';

export function shapeGeminiError(err: UpstreamError): DialectError {
  const { status, message } = shapedStatusAndMessage(err);
  const own = err.from === 'gemini' && err.type !== undefined && /^[A-Z_]+$/.test(err.type) && status === err.status;
  return { status, type: own ? err.type! : geminiErrorStatus(status), message, code: null, param: null };
}

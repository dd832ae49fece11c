// Errors in OpenAI's words (chat, Responses and embeddings callers): the type each status is named by,
// an upstream error shaped for such a caller, and the status an in-stream error chunk stands for (it
// carries none).
import { isObject, num, str } from '../../core/json.ts';
import { shapedStatusAndMessage, type DialectError } from '../../spec/upstream-error.ts';
import type { UpstreamError } from '../../spec/form.ts';

const OPENAI_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'invalid_request_error',
  403: 'permission_error',
  404: 'invalid_request_error',
  405: 'invalid_request_error',
  413: 'invalid_request_error',
  429: 'rate_limit_error',
};

/** The OpenAI error type for an HTTP status (docs/errors.md). */
export function openaiErrorType(status: number): string {
  return OPENAI_TYPES[status] ?? (status >= 500 ? 'server_error' : 'invalid_request_error');
}

/**
 * An upstream error for a chat caller. Another dialect's error type is still useful to OpenAI clients:
 * it travels as the code. Param is only an OpenAI-style upstream's.
 */
export function shapeChatError(err: UpstreamError): DialectError {
  const { status, message } = shapedStatusAndMessage(err);
  const own = err.from === 'chat' || err.from === 'responses';
  const type = own && err.type !== undefined && status === err.status ? err.type : openaiErrorType(status);
  const code = own ? (err.code ?? null) : (err.type ?? err.code ?? null);
  return { status, type, message, code, param: own ? (err.param ?? null) : null };
}

/** OpenAI in-stream errors carry no status; the type or code hints at one. */
export function statusOfStreamError(error: unknown): number {
  if (!isObject(error)) return 500;
  const hint = `${str(error.type) ?? ''} ${str(error.code) ?? ''}`;
  if (hint.includes('rate_limit')) return 429;
  if (hint.includes('invalid_request')) return 400;
  return num(error.status) ?? num(error.code) ?? 500;
}

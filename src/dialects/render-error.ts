// Renders a GatewayError as the error body of the caller's dialect (DESIGN.md "Error bodies").
import type { Dialect } from '../core/dialect.ts';
import type { GatewayError } from '../core/errors.ts';
import { maskKeyLike } from '../core/mask-secrets.ts';
import { anthropicErrorType } from './anthropic-messages/errors.ts';
import { geminiErrorStatus } from './gemini/errors.ts';
import { openaiErrorType } from './openai-chat/errors.ts';

export function renderError(dialect: Dialect, err: GatewayError, requestId: string): string {
  // Messages echo what callers sent (a path, a model name); a key pasted there is not sent back whole.
  const message = maskKeyLike(err.message);
  if (dialect === 'gemini') {
    // An upstream Gemini status name is kept; anything else is named from the HTTP status.
    const status =
      err.upstreamType !== null && /^[A-Z_]+$/.test(err.upstreamType)
        ? err.upstreamType
        : geminiErrorStatus(err.status);
    return JSON.stringify({ error: { code: err.status, message, status } });
  }
  if (dialect === 'anthropic') {
    const error: Record<string, unknown> = { type: err.upstreamType ?? anthropicErrorType(err.status), message };
    if (err.upstreamDetails !== null) error.details = err.upstreamDetails;
    return JSON.stringify({ type: 'error', error, request_id: requestId });
  }
  return JSON.stringify({
    error: {
      message,
      type: err.upstreamType ?? openaiErrorType(err.status),
      param: err.param,
      code: err.upstreamCode ?? err.code,
    },
  });
}

/**
 * The same error as one in-stream SSE event, for failures after the first byte. A Responses stream
 * gets its `error` event (ResponseErrorEvent), numbered after the `sequence` events before it.
 */
export function renderStreamError(dialect: Dialect, err: GatewayError, requestId: string, sequence = 0): string {
  if (dialect === 'responses') {
    const event = {
      type: 'error',
      code: err.upstreamCode ?? err.code,
      message: maskKeyLike(err.message),
      param: err.param,
      sequence_number: sequence,
    };
    return `event: error\ndata: ${JSON.stringify(event)}\n\n`;
  }
  const body = renderError(dialect, err, requestId);
  // Gemini's streams carry an error as a `data:` line too (what its SDK reads).
  return dialect === 'anthropic' ? `event: error\ndata: ${body}\n\n` : `data: ${body}\n\n`;
}

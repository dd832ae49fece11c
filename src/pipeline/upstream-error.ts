// An upstream's non-2xx answer → the GatewayError the caller sees (DESIGN.md statuses), keeping the
// upstream's own text (masked) so the caller can fix a bad request.
import type { Dialect } from '../core/dialect.ts';
import { GatewayError, type ErrorCode } from '../core/errors.ts';
import { shapeChatError } from '../dialects/openai-chat/errors.ts';
import { shapeMessagesError } from '../dialects/anthropic-messages/errors.ts';
import { readUpstreamError, type DialectError } from '../translate/hub/upstream-error.ts';
import type { HubDialect } from '../translate/hub/form.ts';
import { maskKeyLike, type SecretMasker } from '../observability/mask-secrets.ts';
import { anthropicErrorDetails } from '../dialects/anthropic-messages/error-details.ts';

/** The catalogue code for the status the caller gets (the body's `type` and text come from upstream). */
function codeFor(status: number): ErrorCode {
  if (status === 413) return 'body_too_large';
  if (status === 429) return 'upstream_rate_limited';
  if (status === 504) return 'upstream_timeout';
  if (status >= 400 && status < 500) return 'invalid_request';
  return 'upstream_error';
}

const HUB_DIALECT: Readonly<Record<Dialect, HubDialect>> = { openai: 'chat', anthropic: 'messages', responses: 'responses' };

export interface UpstreamErrorOptions {
  upstreamKind: Dialect;
  clientDialect: Dialect;
  /** HTTP status the upstream answered with. */
  status: number;
  bodyText: string;
}

/** An upstream error body read by its dialect and shaped by the caller's (pass-through and hub alike). */
export function upstreamErrorToDialect(opts: UpstreamErrorOptions): DialectError {
  const err = readUpstreamError(HUB_DIALECT[opts.upstreamKind], opts.status, opts.bodyText);
  // Chat and Responses callers share OpenAI's error shape.
  return opts.clientDialect === 'anthropic' ? shapeMessagesError(err) : shapeChatError(err);
}

/**
 * A non-retryable upstream answer, shaped for the caller by its dialect (statuses per DESIGN.md,
 * upstream text kept), then masked again with the configured provider keys, which only the gateway knows.
 */
export function upstreamFailure(opts: { status: number; text: string; upstreamDialect: Dialect; clientDialect: Dialect; masker: SecretMasker }): GatewayError {
  const shaped = upstreamErrorToDialect({ upstreamKind: opts.upstreamDialect, clientDialect: opts.clientDialect, status: opts.status, bodyText: opts.text });
  const credentials = opts.status === 401;
  return new GatewayError(codeFor(shaped.status), {
    message: opts.masker.mask(shaped.message),
    status: shaped.status,
    param: shaped.param,
    upstreamType: shaped.type,
    // The upstream's code describes the gateway's own key on a credentials failure: never the caller's.
    upstreamCode: credentials ? null : shaped.code,
    // Same dialect, same status: the upstream's error code (Anthropic's `error.details`) reaches the caller.
    upstreamDetails: opts.upstreamDialect === 'anthropic' && opts.clientDialect === 'anthropic' && shaped.status === opts.status ? anthropicErrorDetails(opts.text, (t) => maskKeyLike(opts.masker.mask(t))) : null,
    // A 502 made of a refused key or an upstream 404 (the operator's configuration): retrying cannot help.
    headers: shaped.status >= 500 ? { 'x-should-retry': 'false' } : undefined,
  });
}

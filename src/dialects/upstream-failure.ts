// An upstream's non-2xx answer → the GatewayError the caller sees: the status and code the contract
// gives it (core/errors.ts), the body read by the upstream's dialect and shaped by the caller's, keeping
// the upstream's own text (masked) so the caller can fix a bad request.
import type { Dialect } from '../core/dialect.ts';
import { clientCodeFor, GatewayError } from '../core/errors.ts';
import { readUpstreamError, type DialectError } from '../spec/upstream-error.ts';
import type { HubDialect, UpstreamError } from '../spec/form.ts';
import type { SecretMasker } from '../core/mask-secrets.ts';
import { anthropicErrorDetails } from './anthropic-messages/error-details.ts';
import { shapeMessagesError } from './anthropic-messages/errors.ts';
import { shapeGeminiError } from './gemini/errors.ts';
import { shapeChatError } from './openai-chat/errors.ts';

const HUB_DIALECT: Readonly<Record<Dialect, HubDialect>> = {
  openai: 'chat',
  anthropic: 'messages',
  responses: 'responses',
  gemini: 'gemini',
};

export interface UpstreamErrorOptions {
  upstreamKind: Dialect;
  clientDialect: Dialect;
  /** HTTP status the upstream answered with. */
  status: number;
  bodyText: string;
  /** The provider's own reader of its error bodies (ProviderSpec.readError), tried before the dialect's. */
  readError?: (status: number, text: string) => UpstreamError | null;
}

/** An upstream error body read by its dialect and shaped by the caller's (pass-through and hub alike). */
export function upstreamErrorToDialect(opts: UpstreamErrorOptions): DialectError {
  const err =
    opts.readError?.(opts.status, opts.bodyText) ??
    readUpstreamError(HUB_DIALECT[opts.upstreamKind], opts.status, opts.bodyText);
  if (opts.clientDialect === 'gemini') return shapeGeminiError(err);
  // Chat and Responses callers share OpenAI's error shape.
  return opts.clientDialect === 'anthropic' ? shapeMessagesError(err) : shapeChatError(err);
}

/**
 * A non-retryable upstream answer, shaped for the caller by its dialect (statuses per DESIGN.md,
 * upstream text kept), then masked again with the configured provider keys, which only the gateway knows.
 */
export function upstreamFailure(opts: {
  status: number;
  text: string;
  upstreamDialect: Dialect;
  clientDialect: Dialect;
  masker: SecretMasker;
  readError?: (status: number, text: string) => UpstreamError | null;
}): GatewayError {
  // Every string of the body is masked before the mapping reads or cuts any of them: a key in `param`,
  // `code`, `type` or across the message's cut would otherwise leave whole or in part.
  const { masker } = opts;
  const bodyText = masker.maskErrorBody(opts.text);
  const shaped = upstreamErrorToDialect({
    upstreamKind: opts.upstreamDialect,
    clientDialect: opts.clientDialect,
    status: opts.status,
    bodyText,
    readError: opts.readError,
  });
  const credentials = opts.status === 401;
  return new GatewayError(clientCodeFor(shaped.status), {
    message: masker.mask(shaped.message),
    status: shaped.status,
    param: shaped.param === null ? null : masker.mask(shaped.param),
    upstreamType: masker.mask(shaped.type),
    // The upstream's code describes the gateway's own key on a credentials failure: never the caller's.
    upstreamCode: credentials || shaped.code === null ? null : masker.mask(shaped.code),
    // Same dialect, same status: the upstream's error code (Anthropic's `error.details`) reaches the caller.
    upstreamDetails:
      opts.upstreamDialect === 'anthropic' && opts.clientDialect === 'anthropic' && shaped.status === opts.status
        ? anthropicErrorDetails(bodyText, (t) => masker.mask(t))
        : null,
    // A 502 made of a refused key or an upstream 404 (the operator's configuration): retrying cannot help.
    headers: shaped.status >= 500 ? { 'x-should-retry': 'false' } : undefined,
  });
}

// An upstream's non-2xx answer → the GatewayError the caller sees (DESIGN.md statuses), keeping the
// upstream's own text (masked) so the caller can fix a bad request.
import type { Dialect } from '../core/dialect.ts';
import { GatewayError } from '../core/errors.ts';
import { isObject } from '../dialects/request-facts.ts';
import type { SecretMasker } from '../observability/mask-secrets.ts';

export interface UpstreamErrorInfo {
  message: string;
  type: string | null;
  param: string | null;
}

export function readUpstreamError(text: string): UpstreamErrorInfo {
  try {
    const v: unknown = JSON.parse(text);
    if (isObject(v) && isObject(v.error)) {
      const e = v.error;
      return {
        message: typeof e.message === 'string' ? e.message : JSON.stringify(e),
        type: typeof e.type === 'string' ? e.type : null,
        param: typeof e.param === 'string' ? e.param : null,
      };
    }
    if (isObject(v) && typeof v.message === 'string') return { message: v.message, type: null, param: null };
  } catch {
    // not JSON: the raw text is the message
  }
  return { message: text.trim().slice(0, 2000) || '(empty body)', type: null, param: null };
}

/** A non-retryable upstream answer, shaped for the caller. */
export function upstreamFailure(opts: { status: number; text: string; upstreamDialect: Dialect; clientDialect: Dialect; masker: SecretMasker }): GatewayError {
  const info = readUpstreamError(opts.text);
  const message = opts.masker.mask(info.message);
  const sameDialect = opts.upstreamDialect === opts.clientDialect;
  if (opts.status === 401 || opts.status === 403) {
    return new GatewayError('upstream_error', { message: `The upstream provider rejected the gateway's credentials (${opts.status}): ${message}` });
  }
  if (opts.status === 413) return new GatewayError('body_too_large', { message: `Upstream: ${message}` });
  if (opts.status >= 400 && opts.status < 500 && opts.status !== 404) {
    return new GatewayError('invalid_request', {
      message,
      param: info.param,
      status: 400,
      upstreamType: sameDialect ? info.type : null,
    });
  }
  return new GatewayError('upstream_error', { message: `Upstream error ${opts.status}: ${message}` });
}

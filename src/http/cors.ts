// Cross-origin calls from browsers: off unless `cors_origins:` names the origins an operator allows
// (the contract keeps API keys out of front-end code, so no origin is trusted by default). Built once
// at boot; the request path asks only when the option is set.
import type { IncomingHttpHeaders } from 'node:http';

/** Request headers the official clients send, allowed in a preflight (exact names, then prefixes). */
const ALLOWED_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'content-type',
  'accept',
  'anthropic-version',
  'anthropic-beta',
  'anthropic-dangerous-direct-browser-access',
  'x-api-key',
  'x-goog-api-key',
  'x-request-id',
  'x-client-request-id',
  'idempotency-key',
]);
const ALLOWED_PREFIXES: readonly string[] = ['x-stainless-', 'openai-', 'x-goog-'];

/** Response headers a browser script may read: request ids, rate limits, retry hints, gateway notes. */
export const EXPOSED_HEADERS = [
  'x-request-id',
  'request-id',
  'retry-after',
  'retry-after-ms',
  'x-should-retry',
  'x-ratelimit-limit-requests',
  'x-ratelimit-remaining-requests',
  'x-ratelimit-reset-requests',
  'x-ratelimit-limit-tokens',
  'x-ratelimit-remaining-tokens',
  'x-ratelimit-reset-tokens',
  'x-modelgate-adjusted',
  'x-modelgate-token-count',
].join(', ');

const PREFLIGHT_MAX_AGE_S = '600';

export class CorsPolicy {
  readonly #origins: ReadonlySet<string>;

  constructor(origins: readonly string[]) {
    this.#origins = new Set(origins.map((o) => o.toLowerCase()));
  }

  allows(origin: string | undefined): origin is string {
    return origin !== undefined && this.#origins.has(origin.toLowerCase());
  }

  /** Headers for an actual (non-preflight) response to an allowed origin. */
  responseHeaders(origin: string): Record<string, string> {
    return { 'access-control-allow-origin': origin, 'access-control-expose-headers': EXPOSED_HEADERS, vary: 'Origin' };
  }

  /** Headers of the 204 that answers an allowed origin's preflight for a route served with `methods`. */
  preflightHeaders(origin: string, methods: string, headers: IncomingHttpHeaders): Record<string, string> {
    const out: Record<string, string> = {
      'access-control-allow-origin': origin,
      'access-control-allow-methods': methods,
      'access-control-max-age': PREFLIGHT_MAX_AGE_S,
      vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
    };
    const allowed = allowedRequestHeaders(headers['access-control-request-headers']);
    if (allowed !== '') out['access-control-allow-headers'] = allowed;
    return out;
  }
}

/** The requested headers a preflight allows; others are left out, so the browser says which one it was. */
export function allowedRequestHeaders(requested: string | undefined): string {
  if (requested === undefined) return '';
  return requested
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter((h) => h !== '' && (ALLOWED_HEADERS.has(h) || ALLOWED_PREFIXES.some((p) => h.startsWith(p))))
    .join(', ');
}

/** Why a preflight is refused, said so a developer reading the browser's network tab knows what to do. */
export function refusalMessage(origin: string | undefined, enabled: boolean): string {
  if (!enabled) {
    return (
      'Cross-origin requests are off: modelgate answers no browser preflight by default, since API keys do not belong in front-end code. ' +
      'Call it from a server, or have the operator allow your origin with `cors_origins:` in the gateway configuration.'
    );
  }
  return `The origin ${origin === undefined ? '(none sent)' : JSON.stringify(origin.slice(0, 200))} is not in this gateway's cors_origins; the operator can add it there.`;
}

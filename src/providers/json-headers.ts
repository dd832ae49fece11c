// What the providers that speak JSON over HTTP share: the headers every call carries, a base URL cut
// into the origin the connection pool is for and the path prefix the provider's own paths follow, and the
// check that an origin-only base URL carries no version path.
import type { ProviderConfig } from '../core/config-types.ts';
import { baseUrlPath, type ProviderFinding, VERSIONED_PATH } from '../spec/provider.ts';

/**
 * The headers of every JSON call, the operator's `headers` over them; the caller adds its credential.
 * identity: the answer is tapped for usage and relayed as it comes; undici does not decompress.
 */
export function jsonHeaders(p: ProviderConfig): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'accept-encoding': 'identity',
    ...p.headers,
  };
}

/** `https://host:port/some/prefix/` → origin and `/some/prefix` (no trailing slash). */
export function splitBaseUrl(baseUrl: string): { origin: string; prefix: string } {
  const url = new URL(baseUrl);
  return { origin: url.origin, prefix: url.pathname.replace(/\/+$/, '') };
}

/** For a target asked of a provider that has no such operation: the engine's bug, said plainly. */
export function noTarget(kind: string, what: string): never {
  throw new Error(`provider kind ${kind} has no endpoint for ${what}`);
}

/**
 * For a kind that adds its API's version path itself: a `base_url` that already ends in one is an error,
 * since every request would then go to a path that does not exist. `example` is the API's origin and
 * `adds` the path the kind appends.
 */
export function originOnly(p: ProviderConfig, kind: string, example: string, adds: string): ProviderFinding[] {
  const path = baseUrlPath(p.baseUrl);
  if (path === null || !VERSIONED_PATH.test(path)) return [];
  return [
    {
      level: 'error',
      key: 'base_url',
      message: `${p.baseUrl} ends in a version path: kind ${kind} takes the API's origin (${example}); the gateway adds ${adds} itself, so every request would go to a path that does not exist`,
    },
  ];
}

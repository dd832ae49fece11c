// What the providers that speak JSON over HTTP share: the headers every call carries, and a base URL cut
// into the origin the connection pool is for and the path prefix the provider's own paths follow.
import type { ProviderConfig } from '../core/config-types.ts';

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

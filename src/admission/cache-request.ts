// What a request asks the provider's cache to write, for the reservation: a prompt can only be charged
// the cache-write rate where it carries `cache_control` (Anthropic's blocks, tools and system, or its
// top-level automatic caching), and the 1-hour rate where one says `ttl: "1h"`.

/** Content deeper than this is not walked (as the estimator's MAX_WALK_DEPTH): no prompt nests so far. */
const MAX_DEPTH = 64;

export type CacheWrite = 'none' | '5m' | '1h';

/** The dearest cache write the body asks for. Walks objects and arrays only, never the text. */
export function cacheWriteAsked(body: Record<string, unknown>): CacheWrite {
  return walk(body, 0, 'none');
}

function walk(v: unknown, depth: number, found: CacheWrite): CacheWrite {
  if (depth > MAX_DEPTH || typeof v !== 'object' || v === null) return found;
  if (Array.isArray(v)) {
    for (const x of v) if ((found = walk(x, depth + 1, found)) === '1h') return found;
    return found;
  }
  const o = v as Record<string, unknown>;
  const control = o.cache_control;
  if (typeof control === 'object' && control !== null) {
    if ((control as { ttl?: unknown }).ttl === '1h') return '1h';
    found = '5m';
  }
  for (const k in o) {
    if (k === 'cache_control') continue;
    const x = o[k];
    if (typeof x === 'object' && x !== null && (found = walk(x, depth + 1, found)) === '1h') return found;
  }
  return found;
}

// `cache_control` as Anthropic writes it and OpenAI-style clients (OpenRouter's) copy it, read into the
// hub's cache marker; anything else is no marker.
import { isObject, str } from '../core/json.ts';
import type { CacheMarker } from './form.ts';

export function cacheOf(value: unknown): CacheMarker | undefined {
  if (!isObject(value) || value.type !== 'ephemeral') return undefined;
  const ttl = str(value.ttl);
  return ttl === undefined ? { type: 'ephemeral' } : { type: 'ephemeral', ttl };
}

// Token usage in OpenAI chat's wire shape, read and written: prompt_tokens includes the cached tokens
// (prompt_tokens_details.cached_tokens) and, where a server reports them, the tokens written to the cache.
import type { Usage } from '../../core/usage.ts';
import { isObject, num } from '../../core/json.ts';
import type { ChatUsage } from './wire.ts';

/**
 * An OpenAI-style `usage` object, read the same way on every route (pass-through tap and body, and the
 * hub's decoders). `prompt_tokens` includes the cached tokens and, on servers that report them
 * (OpenRouter-style `cache_write_tokens`), the tokens written to the cache: input is what is left.
 */
export function usageFromOpenAi(raw: unknown): Usage | undefined {
  if (!isObject(raw)) return undefined;
  const details = isObject(raw.prompt_tokens_details) ? raw.prompt_tokens_details : {};
  const cached = num(details.cached_tokens) ?? 0;
  const written = num(details.cache_write_tokens ?? details.cache_creation_tokens) ?? 0;
  return {
    inputTokens: Math.max(0, (num(raw.prompt_tokens) ?? 0) - cached - written),
    outputTokens: num(raw.completion_tokens) ?? 0,
    cacheReadTokens: cached,
    cacheWriteTokens: written,
  };
}

/** OpenAI `usage` into `into` (the pass-through tap's running usage, a whole body's); false when it is not one. */
export function readOpenAIUsage(usage: unknown, into: Usage): boolean {
  const read = usageFromOpenAi(usage);
  if (read === undefined) return false;
  Object.assign(into, read);
  return true;
}

export function usageToOpenAi(usage: Usage): ChatUsage {
  const prompt = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  // Cache writes are inside prompt_tokens, as OpenAI-compatible servers count them; billing keeps them apart.
  return {
    prompt_tokens: prompt,
    completion_tokens: usage.outputTokens,
    total_tokens: prompt + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cacheReadTokens },
  };
}

// Token usage in OpenAI chat's wire shape, read and written: prompt_tokens includes the cached tokens
// (prompt_tokens_details.cached_tokens) and, where a server reports them, the tokens written to the cache.
import { usageFromOpenAi, type Usage } from '../../core/usage.ts';
import type { ChatUsage } from './wire.ts';

/** OpenAI `usage` into `into`; one reader for every route (src/core/usage.ts). */
export function readOpenAIUsage(usage: unknown, into: Usage): boolean {
  const read = usageFromOpenAi(usage);
  if (read === undefined) return false;
  Object.assign(into, read);
  return true;
}

export { usageFromOpenAi };

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

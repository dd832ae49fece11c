// Token usage between the two wire shapes and the gateway's Usage (src/core/usage.ts).
// OpenAI prompt_tokens includes cached tokens; Anthropic input_tokens excludes both cache reads and writes.
import { usageFromOpenAi, type Usage } from '../core/usage.ts';
import type { ChatUsage } from './wire-openai.ts';
import { isObject, num } from './narrow.ts';

/** Reads an Anthropic `usage` (Message, message_start or message_delta); absent fields keep `prev`'s values. */
export function usageFromAnthropic(raw: unknown, prev: Usage): Usage {
  if (!isObject(raw)) return prev;
  return {
    inputTokens: num(raw.input_tokens) ?? prev.inputTokens,
    outputTokens: num(raw.output_tokens) ?? prev.outputTokens,
    cacheReadTokens: num(raw.cache_read_input_tokens) ?? prev.cacheReadTokens,
    cacheWriteTokens: num(raw.cache_creation_input_tokens) ?? prev.cacheWriteTokens,
  };
}

/** Reads an OpenAI `usage`; one reader for every route (src/core/usage.ts). */
export { usageFromOpenAi };

export function usageToOpenAi(usage: Usage): ChatUsage {
  const prompt = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  return {
    prompt_tokens: prompt,
    completion_tokens: usage.outputTokens,
    total_tokens: prompt + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cacheReadTokens },
  };
}

/**
 * The Anthropic usage object. Every field Stainless marks required is present (null where unknown) so the
 * reply validates against shared/specs/anthropic-openapi.json (STREAMING.md §5 caveat 2).
 */
export function usageToAnthropic(usage: Usage): Record<string, unknown> {
  return {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    cache_creation_input_tokens: usage.cacheWriteTokens,
    cache_read_input_tokens: usage.cacheReadTokens,
    cache_creation: null,
    inference_geo: null,
    server_tool_use: null,
    service_tier: null,
  };
}

/** `message_delta.usage`: cumulative totals (STREAMING.md §2.1). */
export function deltaUsageToAnthropic(usage: Usage): Record<string, unknown> {
  return {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    cache_creation_input_tokens: usage.cacheWriteTokens,
    cache_read_input_tokens: usage.cacheReadTokens,
    server_tool_use: null,
  };
}

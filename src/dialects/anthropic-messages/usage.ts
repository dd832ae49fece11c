// Token usage in Anthropic's wire shape, read and written: input_tokens excludes both cache reads and
// writes, which come apart (cache_read_input_tokens, cache_creation_input_tokens).
import type { Usage } from '../../core/usage.ts';
import { isObject } from '../../core/json.ts';

/** Anthropic `usage` into `into`; fields absent (a message_delta's) keep their earlier values. */
export function readAnthropicUsage(usage: unknown, into: Usage): boolean {
  if (!isObject(usage)) return false;
  if (typeof usage.input_tokens === 'number') into.inputTokens = usage.input_tokens;
  if (typeof usage.output_tokens === 'number') into.outputTokens = usage.output_tokens;
  if (typeof usage.cache_read_input_tokens === 'number') into.cacheReadTokens = usage.cache_read_input_tokens;
  if (typeof usage.cache_creation_input_tokens === 'number') into.cacheWriteTokens = usage.cache_creation_input_tokens;
  return true;
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

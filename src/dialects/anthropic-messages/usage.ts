// Token usage in Anthropic's wire shape, read and written: input_tokens excludes both cache reads and
// writes, which come apart (cache_read_input_tokens, cache_creation_input_tokens, split by TTL in cache_creation).
import { noteServedTier, type Usage } from '../../core/usage.ts';
import { isObject, num } from '../../core/json.ts';

/**
 * Anthropic `usage` into `into`; fields absent (a message_delta's) keep their earlier values.
 * `cache_creation` splits the writes by TTL (`ephemeral_5m_input_tokens`, `ephemeral_1h_input_tokens`);
 * `server_tool_use` counts the server tools' calls, charged per call beside the tokens (units).
 */
export function readAnthropicUsage(usage: unknown, into: Usage): boolean {
  if (!isObject(usage)) return false;
  if (typeof usage.input_tokens === 'number') into.inputTokens = usage.input_tokens;
  if (typeof usage.output_tokens === 'number') into.outputTokens = usage.output_tokens;
  if (typeof usage.cache_read_input_tokens === 'number') into.cacheReadTokens = usage.cache_read_input_tokens;
  if (typeof usage.cache_creation_input_tokens === 'number') into.cacheWriteTokens = usage.cache_creation_input_tokens;
  const creation = usage.cache_creation;
  if (isObject(creation)) {
    const m5 = num(creation.ephemeral_5m_input_tokens) ?? 0;
    const h1 = num(creation.ephemeral_1h_input_tokens) ?? 0;
    if (typeof usage.cache_creation_input_tokens !== 'number' && m5 + h1 > 0) into.cacheWriteTokens = m5 + h1;
    if (h1 > 0) into.cacheWrite1hTokens = h1;
  }
  const tools = usage.server_tool_use;
  if (isObject(tools)) {
    const searches = num(tools.web_search_requests) ?? 0;
    const fetches = num(tools.web_fetch_requests) ?? 0;
    if (searches > 0) (into.units ??= {}).web_search = searches;
    if (fetches > 0) (into.units ??= {}).web_fetch = fetches;
  }
  noteServedTier(into, usage.service_tier);
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

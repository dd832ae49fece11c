// Reading token usage from each dialect's response bodies and stream events.
import { usageFromOpenAi, usageFromResponses, type Usage } from '../core/usage.ts';
import { isObject } from '../core/json.ts';

/** OpenAI `usage` into `into` (cached tokens and cache writes apart from input, src/core/usage.ts). */
export function readOpenAIUsage(usage: unknown, into: Usage): boolean {
  const read = usageFromOpenAi(usage);
  if (read === undefined) return false;
  Object.assign(into, read);
  return true;
}

/** Anthropic `usage`; fields absent from a message_delta keep their earlier values. */
export function readAnthropicUsage(usage: unknown, into: Usage): boolean {
  if (!isObject(usage)) return false;
  if (typeof usage.input_tokens === 'number') into.inputTokens = usage.input_tokens;
  if (typeof usage.output_tokens === 'number') into.outputTokens = usage.output_tokens;
  if (typeof usage.cache_read_input_tokens === 'number') into.cacheReadTokens = usage.cache_read_input_tokens;
  if (typeof usage.cache_creation_input_tokens === 'number') into.cacheWriteTokens = usage.cache_creation_input_tokens;
  return true;
}

/** Responses API `usage` (input_tokens with cached_tokens inside it). */
export function readResponsesUsage(usage: unknown, into: Usage): boolean {
  const read = usageFromResponses(usage);
  if (read === undefined) return false;
  Object.assign(into, read);
  return true;
}

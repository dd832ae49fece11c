// Reading token usage from either dialect's response bodies and stream events.
import type { Usage } from '../core/usage.ts';
import { isObject } from '../core/json.ts';

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

/** OpenAI `usage` (prompt_tokens includes cached tokens; we record the uncached part as input). */
export function readOpenAIUsage(usage: unknown, into: Usage): boolean {
  if (!isObject(usage)) return false;
  const cached = isObject(usage.prompt_tokens_details) ? num(usage.prompt_tokens_details.cached_tokens) : 0;
  into.cacheReadTokens = cached;
  into.inputTokens = Math.max(0, num(usage.prompt_tokens) - cached);
  into.outputTokens = num(usage.completion_tokens);
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

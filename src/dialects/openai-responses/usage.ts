// Token usage in the Responses API's wire shape: `input_tokens` includes the cached tokens (and any cache
// writes), `output_tokens` includes the reasoning tokens (billed once, as output).
import type { Usage } from '../../core/usage.ts';
import { isObject, num } from '../../core/json.ts';
import type { HubUsage } from '../../spec/form.ts';
import { readMediaParts, readOutputParts } from '../openai-chat/usage.ts';

/**
 * A Responses `usage` object (reasoning tokens named apart), or undefined when it is not one. The same
 * shape serves the Images API (`input_tokens_details.image_tokens`): image tokens are a part of the input.
 */
export function usageFromResponses(raw: unknown): HubUsage | undefined {
  if (!isObject(raw)) return undefined;
  if (typeof raw.input_tokens !== 'number' && typeof raw.output_tokens !== 'number') return undefined;
  const input = isObject(raw.input_tokens_details) ? raw.input_tokens_details : {};
  const cached = num(input.cached_tokens) ?? 0;
  const written = num(input.cache_write_tokens) ?? 0;
  const usage: HubUsage = {
    inputTokens: Math.max(0, (num(raw.input_tokens) ?? 0) - cached - written),
    outputTokens: num(raw.output_tokens) ?? 0,
    cacheReadTokens: cached,
    cacheWriteTokens: written,
  };
  readMediaParts(input, usage);
  if (isObject(raw.output_tokens_details)) readOutputParts(raw.output_tokens_details, usage);
  return usage;
}

/** Output item types OpenAI charges per call, by the unit name usage carries. */
const CHARGED_CALLS: Readonly<Record<string, string>> = {
  web_search_call: 'web_search',
  file_search_call: 'file_search',
};

/**
 * The server-side tool calls a response made (its `output` items), which OpenAI charges per call beside
 * the tokens `usage` counts: into `into.units`. False when the response made none.
 */
export function readResponsesToolCalls(response: Record<string, unknown>, into: Usage): boolean {
  const output = response.output;
  if (!Array.isArray(output)) return false;
  let found = false;
  for (const item of output) {
    const unit = isObject(item) && typeof item.type === 'string' ? CHARGED_CALLS[item.type] : undefined;
    if (unit === undefined) continue;
    const units = (into.units ??= {});
    units[unit] = (units[unit] ?? 0) + 1;
    found = true;
  }
  return found;
}

/** Responses `usage` into `into` (the pass-through tap's running usage, a whole body's): every billed count. */
export function readResponsesUsage(usage: unknown, into: Usage): boolean {
  const read = usageFromResponses(usage);
  if (read === undefined) return false;
  Object.assign(into, read);
  return true;
}

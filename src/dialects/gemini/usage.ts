// Gemini's `usageMetadata` as the gateway bills it: `promptTokenCount` includes the cached tokens, and
// the thoughts (`thoughtsTokenCount`) are output billed beside the candidates.
import { isObject } from '../../core/json.ts';
import type { HubUsage } from '../../spec/form.ts';

function count(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0;
}

/** Usage from a `usageMetadata` object, or undefined when it is not one. */
export function usageFromGemini(raw: unknown): HubUsage | undefined {
  if (!isObject(raw)) return undefined;
  const cached = count(raw.cachedContentTokenCount);
  const thoughts = count(raw.thoughtsTokenCount);
  const usage: HubUsage = {
    // Tool-use prompt tokens (the results of Google's own tools) are input too.
    inputTokens: Math.max(0, count(raw.promptTokenCount) - cached) + count(raw.toolUsePromptTokenCount),
    outputTokens: count(raw.candidatesTokenCount) + thoughts,
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
  };
  if (thoughts > 0) usage.reasoningTokens = thoughts;
  return usage;
}

/** `usageMetadata` for a client from hub usage (the inverse of usageFromGemini). */
export function usageToGemini(u: HubUsage): Record<string, number> {
  const prompt = u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens;
  const thoughts = u.reasoningTokens ?? 0;
  const candidates = Math.max(0, u.outputTokens - thoughts);
  const out: Record<string, number> = {
    promptTokenCount: prompt,
    candidatesTokenCount: candidates,
    totalTokenCount: prompt + u.outputTokens,
  };
  if (u.cacheReadTokens > 0) out.cachedContentTokenCount = u.cacheReadTokens;
  if (thoughts > 0) out.thoughtsTokenCount = thoughts;
  return out;
}

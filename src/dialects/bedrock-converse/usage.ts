// The hub's usage as Converse's `usage`: inputTokens without the cache reads and writes, which it names
// apart, and totalTokens the sum of all four.
import type { HubUsage } from '../../spec/form.ts';

export function converseUsage(u: HubUsage): Record<string, number> {
  const out: Record<string, number> = {
    inputTokens: u.inputTokens,
    outputTokens: u.outputTokens,
    totalTokens: u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheWriteTokens,
  };
  if (u.cacheReadTokens > 0) out.cacheReadInputTokens = u.cacheReadTokens;
  if (u.cacheWriteTokens > 0) out.cacheWriteInputTokens = u.cacheWriteTokens;
  return out;
}

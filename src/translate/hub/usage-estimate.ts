// What a whole reply that came without usage is billed, the same on every route.
import { outputTokensForChars, type Usage } from '../../core/usage.ts';
import type { HubReply } from './form.ts';

/**
 * The bill of a whole reply that came without usage (some local and compatible servers omit it): the
 * prompt estimate, and the reply's output at about four characters a token, as a stream without usage.
 */
export function estimatedUsage(reply: HubReply, promptEstimate: () => number): Usage {
  let chars = 0;
  for (const part of reply.content) {
    if (part.type === 'text' || part.type === 'reasoning') chars += part.text.length;
    else if (part.type === 'tool-call') chars += part.name.length + part.input.length;
  }
  return { inputTokens: promptEstimate(), outputTokens: outputTokensForChars(chars), cacheReadTokens: 0, cacheWriteTokens: 0 };
}

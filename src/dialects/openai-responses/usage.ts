// Reading token usage from Responses API bodies and stream events.
import { usageFromResponses, type Usage } from '../../core/usage.ts';

/** Responses API `usage` (input_tokens with cached_tokens inside it) into `into`. */
export function readResponsesUsage(usage: unknown, into: Usage): boolean {
  const read = usageFromResponses(usage);
  if (read === undefined) return false;
  Object.assign(into, read);
  return true;
}

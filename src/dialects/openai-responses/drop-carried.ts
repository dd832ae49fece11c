// A Responses body passing through to an upstream that serves the Responses API without the reasoning
// items whose encrypted_content is the gateway's token for another provider's reasoning
// (reasoning-carrier.ts): OpenAI cannot decrypt it, and the reasoning is not its to read.
import { isObject } from '../../core/json.ts';
import { isCarried } from '../../spec/reasoning-carrier.ts';

/** Removes such items in place; the number removed. */
export function dropCarriedReasoningItems(body: Record<string, unknown>): number {
  if (!Array.isArray(body.input)) return 0;
  const kept = body.input.filter(
    (i: unknown) => !(isObject(i) && i.type === 'reasoning' && isCarried(i.encrypted_content)),
  );
  const dropped = body.input.length - kept.length;
  if (dropped > 0) body.input = kept;
  return dropped;
}

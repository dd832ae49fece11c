// A /v1/messages body passing through to an Anthropic-style upstream without the thinking blocks whose
// signature is the gateway's token for another provider's reasoning (reasoning-carrier.ts): Anthropic
// refuses a signature it did not write, and the reasoning is not its to read.
import { isObject } from '../../core/json.ts';
import { isCarried } from '../../spec/reasoning-carrier.ts';

/** Removes such blocks in place; the number removed. */
export function dropCarriedThinking(body: Record<string, unknown>): number {
  let dropped = 0;
  if (!Array.isArray(body.messages)) return 0;
  for (const m of body.messages) {
    if (!isObject(m) || !Array.isArray(m.content)) continue;
    const kept = m.content.filter((b: unknown) => !(isObject(b) && b.type === 'thinking' && isCarried(b.signature)));
    dropped += m.content.length - kept.length;
    if (kept.length !== m.content.length) m.content = kept;
  }
  return dropped;
}

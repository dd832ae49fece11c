// A Gemini body passing through to a Gemini upstream without the thought parts whose thoughtSignature is
// the gateway's token for another provider's reasoning (reasoning-carrier.ts): Gemini refuses a signature
// it did not write, and the reasoning is not its to read. A turn left with no part goes too.
import { isObject } from '../../core/json.ts';
import { isCarried } from '../../spec/reasoning-carrier.ts';

/** Removes such parts in place; the number removed. */
export function dropCarriedThoughts(body: Record<string, unknown>): number {
  if (!Array.isArray(body.contents)) return 0;
  let dropped = 0;
  for (const c of body.contents) {
    if (!isObject(c) || !Array.isArray(c.parts)) continue;
    const kept = c.parts.filter((p: unknown) => !(isObject(p) && isCarried(p.thoughtSignature)));
    dropped += c.parts.length - kept.length;
    if (kept.length !== c.parts.length) c.parts = kept;
  }
  if (dropped > 0)
    body.contents = body.contents.filter((c: unknown) => !isObject(c) || !Array.isArray(c.parts) || c.parts.length > 0);
  return dropped;
}

// A chat body passing through to an OpenAI-style upstream without the gateway's tokens for another
// provider's reasoning (reasoning-carrier.ts) in `thinking_blocks` and `reasoning_signature`: a server
// that reads those fields (a LiteLLM proxy in front of Anthropic) would send them on as signatures.
import { isObject } from '../../core/json.ts';
import { isCarried } from '../../spec/reasoning-carrier.ts';

/** Removes such blocks and signatures in place; the number removed. */
export function dropCarriedThinkingBlocks(body: Record<string, unknown>): number {
  if (!Array.isArray(body.messages)) return 0;
  let dropped = 0;
  for (const m of body.messages) {
    if (!isObject(m)) continue;
    if (isCarried(m.reasoning_signature)) {
      delete m.reasoning_signature;
      dropped++;
    }
    if (!Array.isArray(m.thinking_blocks)) continue;
    const kept = m.thinking_blocks.filter((b: unknown) => !(isObject(b) && isCarried(b.signature)));
    dropped += m.thinking_blocks.length - kept.length;
    if (kept.length === 0) delete m.thinking_blocks;
    else if (kept.length !== m.thinking_blocks.length) m.thinking_blocks = kept;
  }
  return dropped;
}

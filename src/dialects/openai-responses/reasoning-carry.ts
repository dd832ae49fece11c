// Reasoning another dialect produced (an Anthropic thinking block and its signature) rides to a
// Responses client inside a reasoning item's `encrypted_content`, which clients send back untouched
// (Codex does, with `store: false`): so a Claude model's thinking survives a tool loop through Codex.
// The token is the gateway's own (prefix `mgw1.`); OpenAI's encrypted content is never altered.
import type { HubDialect, ReasoningPart } from '../../spec/form.ts';

const PREFIX = 'mgw1.';

interface Carried {
  o: HubDialect;
  t: string;
  s?: string;
  r?: string;
}

/** The encrypted_content a reasoning part goes out with, or undefined when it has none to carry. */
export function carryOut(part: ReasoningPart): string | undefined {
  if (part.origin === 'responses' || part.origin === undefined) return part.encrypted;
  if (part.signature === undefined && part.redacted === undefined) return undefined;
  const c: Carried = { o: part.origin, t: part.text };
  if (part.signature !== undefined) c.s = part.signature;
  if (part.redacted !== undefined) c.r = part.redacted;
  return PREFIX + Buffer.from(JSON.stringify(c)).toString('base64url');
}

/** A reasoning item's encrypted_content back into the part it came from (the gateway's own token), or null. */
export function carryIn(encrypted: string): ReasoningPart | null {
  if (!encrypted.startsWith(PREFIX)) return null;
  try {
    const c = JSON.parse(Buffer.from(encrypted.slice(PREFIX.length), 'base64url').toString('utf8')) as Carried;
    if (typeof c.o !== 'string' || typeof c.t !== 'string') return null;
    const part: ReasoningPart = { type: 'reasoning', text: c.t, origin: c.o };
    if (typeof c.s === 'string') part.signature = c.s;
    if (typeof c.r === 'string') part.redacted = c.r;
    return part;
  } catch {
    return null;
  }
}

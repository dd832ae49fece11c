// The common token chunk of a chat stream, recognised without parsing it (the hot path of every
// translated chat stream).
import { isVerbatimJsonText } from '../../core/json.ts';

// Search anchors start after the opening quote: V8 searches several times slower for a pattern that
// starts with a character as common as '"'. A match inside a longer key only sends a chunk down the
// general path, never the other way.
const CONTENT_DELTA = 'delta":{"content":"';
/**
 * Keys that, outside the content string, mean the chunk needs the general path. Tool calls, reasoning
 * and refusals live in the delta, which must hold nothing but the content.
 */
const NOT_PLAIN = ['error"', 'usage":{', 'finish_reason":"'];

/**
 * The content of a chunk that carries nothing but text for choice 0 — `"delta":{"content":"…"}` with no
 * escapes in the text, no finish reason, usage object, tool call, reasoning, refusal or error, and no
 * other choice — as its JSON string (quotes included); null for every other chunk. Most streamed
 * tokens are such chunks, and this spares them a JSON.parse and a JSON.stringify each. Because the
 * text holds no backslash, it cannot hold a quote either, so every key searched for lies outside it.
 */
export function plainContentDelta(raw: string): string | null {
  const at = raw.indexOf(CONTENT_DELTA);
  if (at < 1 || raw.charCodeAt(at - 1) !== 34 || raw.lastIndexOf('delta"', at - 1) !== -1) return null;
  const open = at + CONTENT_DELTA.length - 1;
  const close = raw.indexOf('"', open + 1);
  if (close === -1 || raw.charCodeAt(close + 1) !== 125 /* } */) return null;
  // No escapes and no raw control characters (which JSON.parse would refuse): the slice is then
  // exactly what JSON.stringify writes for the text.
  if (!isVerbatimJsonText(raw, open + 1, close)) return null;
  for (const key of NOT_PLAIN) if (raw.includes(key)) return null;
  // One choice, and it is choice 0: a single "index" key, valued 0, and no second "delta".
  const index = raw.indexOf('index":');
  if (index === -1 || raw.indexOf('index":', index + 7) !== -1) return null;
  if (raw.charCodeAt(index + 7) !== 48 /* 0 */ || isDigit(raw.charCodeAt(index + 8))) return null;
  if (raw.indexOf('delta"', close) !== -1) return null;
  return raw.slice(open, close + 1);
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

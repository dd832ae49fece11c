// The common token event of an Anthropic stream, recognised without parsing it (the hot path of every
// translated Anthropic stream).
import { isVerbatimJsonText } from '../../core/json.ts';

const TEXT_DELTA_HEAD = '{"type":"content_block_delta","index":';
const TEXT_DELTA_MID = ',"delta":{"type":"text_delta","text":"';

/**
 * An Anthropic text_delta event exactly as the API writes it — `{"type":"content_block_delta","index":N,
 * "delta":{"type":"text_delta","text":"…"}}` with no escapes in the text — as its block index and the
 * text's JSON string (quotes included); null for anything else, which then takes the general path.
 */
export function plainTextDelta(data: string): { index: number; quoted: string } | null {
  if (!data.startsWith(TEXT_DELTA_HEAD)) return null;
  let i = TEXT_DELTA_HEAD.length;
  let index = 0;
  const first = i;
  for (let c = data.charCodeAt(i); c >= 48 && c <= 57 && i - first < 9; c = data.charCodeAt(++i))
    index = index * 10 + (c - 48);
  if (i === first || !data.startsWith(TEXT_DELTA_MID, i)) return null;
  const open = i + TEXT_DELTA_MID.length - 1;
  // The text runs to the closing '"}}' at the very end, without escapes or raw control characters.
  const close = data.length - 3;
  if (
    close <= open ||
    data.charCodeAt(close) !== 34 ||
    data.charCodeAt(close + 1) !== 125 ||
    data.charCodeAt(close + 2) !== 125
  )
    return null;
  if (!isVerbatimJsonText(data, open + 1, close)) return null;
  return { index, quoted: data.slice(open, close + 1) };
}

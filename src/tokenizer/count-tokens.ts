// Token counts with OpenAI's o200k_base BPE (gpt-4o and newer), exact: the same pieces and merges as
// tiktoken, checked against gpt-tokenizer by test/tokenizer/o200k.test.ts. Text that spells a special
// token ("<|endoftext|>") is counted as the ordinary text it is: prompts are user data.
//
// Most requests never need this: admission's quick pass counts bytes, and only a key near a limit, a
// translated Anthropic stream's message_start, a stream cut before its usage, or a count_tokens call
// for an OpenAI-style model asks for real token counts. The server loads the tables after it starts
// listening (`warmTokenizer`), so no request waits for them; a count before that loads them at once,
// synchronously, so an estimate never depends on timing.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { NO_RANK, decodeVocabulary, rankOf, type Vocabulary } from './o200k-table.ts';

export const O200K_TABLE_FILE = new URL('./o200k-base.tokens', import.meta.url);

// tiktoken's o200k_base split pattern, in JavaScript's syntax (the contraction suffixes spelled out in
// both cases because JavaScript has no inline (?i:…) on this Node). Its alternatives cover every code
// point, so the pieces tile the text and the regex runs sticky with test(): no match array a piece.
const CONTRACTION = String.raw`(?:'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]))?`;
export const O200K_SPLIT = new RegExp(
  String.raw`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+${CONTRACTION}` +
    String.raw`|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*${CONTRACTION}` +
    String.raw`|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
  'uy',
);

let vocab: Vocabulary | null = null;
/** Counts of pieces that needed merging (prompts repeat: system prompts, tool schemas); cleared when full. */
const merged = new Map<string, number>();
const MERGED_LIMIT = 4096;
// Scratch space reused across calls: a piece's UTF-8 bytes, and its parts while merging.
let piece = new Uint8Array(1024);
let starts = new Int32Array(1025);
let ranks = new Int32Array(1025);

export function countTokens(text: string): number {
  vocab ??= decodeVocabulary(readFileSync(O200K_TABLE_FILE));
  let count = 0;
  let start = 0;
  O200K_SPLIT.lastIndex = 0;
  while (O200K_SPLIT.test(text)) {
    const end = O200K_SPLIT.lastIndex;
    const length = utf8(text, start, end);
    if (length === 1 || rankOf(vocab, piece, 0, length) !== NO_RANK) count += 1;
    else count += mergedCount(vocab, text.slice(start, end), length);
    start = end;
  }
  return count;
}

function mergedCount(v: Vocabulary, key: string, length: number): number {
  let parts = merged.get(key);
  if (parts === undefined) {
    parts = mergedParts(v, length);
    if (merged.size >= MERGED_LIMIT) merged.clear();
    merged.set(key, parts);
  }
  return parts;
}

/**
 * Loads the tables off the request path: the file read is asynchronous, and a caller runs this once the
 * server listens, so the first request that needs a token count does not pay for the load.
 */
export async function warmTokenizer(): Promise<void> {
  if (vocab !== null) return;
  const file = await readFile(O200K_TABLE_FILE);
  vocab ??= decodeVocabulary(file);
}

/** Whether the tables are in memory (tests check that the quick pass never loads them). */
export function tokenizerLoaded(): boolean {
  return vocab !== null;
}

/**
 * How many tokens byte-pair merging leaves of `piece[0..length)`: tiktoken's loop, which merges the
 * lowest-ranked adjacent pair (the leftmost on a tie) until no pair is in the vocabulary. Quadratic in
 * the piece's length, as in tiktoken; callers cut long runs without spaces (estimate-tokens.ts).
 */
function mergedParts(v: Vocabulary, length: number): number {
  if (starts.length < length + 1) {
    starts = new Int32Array(length + 1);
    ranks = new Int32Array(length + 1);
  }
  // Part i spans starts[i]..starts[i+1]; ranks[i] is the rank of parts i and i+1 joined.
  let parts = length;
  for (let i = 0; i <= length; i += 1) starts[i] = i;
  for (let i = 0; i < length - 1; i += 1) ranks[i] = rankOf(v, piece, i, i + 2);
  ranks[length - 1] = NO_RANK;
  while (parts > 1) {
    let lowest = NO_RANK;
    let at = -1;
    for (let i = 0; i < parts - 1; i += 1) {
      if (ranks[i]! < lowest) {
        lowest = ranks[i]!;
        at = i;
      }
    }
    if (at < 0) break;
    // Join parts `at` and `at + 1`, then re-rank the joined part's pairs with its neighbours.
    starts.copyWithin(at + 1, at + 2, parts + 1);
    ranks.copyWithin(at, at + 1, parts);
    parts -= 1;
    ranks[at] = at + 1 < parts ? rankOf(v, piece, starts[at]!, starts[at + 2]!) : NO_RANK;
    if (at > 0) ranks[at - 1] = rankOf(v, piece, starts[at - 1]!, starts[at + 1]!);
  }
  return parts;
}

/** Writes `s[from..to)` as UTF-8 into `piece` (lone surrogates as U+FFFD, as TextEncoder does); returns the length. */
function utf8(s: string, from: number, to: number): number {
  if (piece.length < (to - from) * 3) piece = new Uint8Array((to - from) * 3);
  let at = 0;
  for (let i = from; i < to; i += 1) {
    let c = s.charCodeAt(i);
    if (c < 0x80) {
      piece[at++] = c;
      continue;
    }
    if (c < 0x800) {
      piece[at++] = 0xc0 | (c >> 6);
      piece[at++] = 0x80 | (c & 0x3f);
      continue;
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = i + 1 < to ? s.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
        i += 1;
        piece[at++] = 0xf0 | (c >> 18);
        piece[at++] = 0x80 | ((c >> 12) & 0x3f);
        piece[at++] = 0x80 | ((c >> 6) & 0x3f);
        piece[at++] = 0x80 | (c & 0x3f);
        continue;
      }
      c = 0xfffd;
    }
    piece[at++] = 0xe0 | (c >> 12);
    piece[at++] = 0x80 | ((c >> 6) & 0x3f);
    piece[at++] = 0x80 | (c & 0x3f);
  }
  return at;
}

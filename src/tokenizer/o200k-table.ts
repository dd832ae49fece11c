// The o200k_base vocabulary as compact tables: one byte string per rank, found by an open-addressing
// hash over the bytes. gpt-tokenizer keeps the same vocabulary as 200k JS strings in a Map: a long
// stall of the event loop to build and a footprint the gateway would carry for the rest of its life.
// Here: the file, its offsets and a hash, all typed arrays (nothing for the GC to trace).
//
// File format (`o200k-base.tokens`, written by scripts/o200k-tokens.ts from gpt-tokenizer's ranks):
// for each rank from 0 upwards, one length byte (1–255) and then that many bytes.

const HASH_BITS = 19;
const HASH_MASK = (1 << HASH_BITS) - 1;
/** A rank no byte string has: merging stops when the lowest pair rank is this. */
export const NO_RANK = 0x7fffffff;

export interface Vocabulary {
  /** The file: a length byte before every token's bytes. */
  readonly bytes: Uint8Array;
  /** Index of each rank's first byte in `bytes`. */
  readonly starts: Uint32Array;
  /** rank + 1 at the slot of the token's hash; 0 marks a free slot. */
  readonly slots: Int32Array;
}

function hashBytes(bytes: Uint8Array, from: number, to: number): number {
  // FNV-1a, then the high bits folded in: linear probing needs well-spread low bits.
  let h = 0x811c9dc5;
  for (let i = from; i < to; i += 1) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return (h ^ (h >>> HASH_BITS)) & HASH_MASK;
}

/** Serialises ranks (token byte strings in rank order) into the file format. */
export function encodeVocabulary(tokens: readonly Uint8Array[]): Uint8Array {
  let size = 0;
  for (const t of tokens) {
    if (t.length === 0 || t.length > 255) throw new Error(`token of ${t.length} bytes cannot be stored`);
    size += 1 + t.length;
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const t of tokens) {
    out[at] = t.length;
    out.set(t, at + 1);
    at += 1 + t.length;
  }
  return out;
}

export function decodeVocabulary(bytes: Uint8Array): Vocabulary {
  let count = 0;
  for (let at = 0; at < bytes.length; at += 1 + bytes[at]!) count += 1;
  const starts = new Uint32Array(count);
  const slots = new Int32Array(1 << HASH_BITS);
  let at = 0;
  for (let rank = 0; rank < count; rank += 1) {
    const from = at + 1;
    const to = from + bytes[at]!;
    if (bytes[at] === 0 || to > bytes.length) throw new Error(`o200k table is damaged at byte ${at}`);
    starts[rank] = from;
    let slot = hashBytes(bytes, from, to);
    while (slots[slot] !== 0) slot = (slot + 1) & HASH_MASK;
    slots[slot] = rank + 1;
    at = to;
  }
  return { bytes, starts, slots };
}

/** The rank of `piece[from..to)`, or NO_RANK when the vocabulary does not hold that byte string. */
export function rankOf(vocab: Vocabulary, piece: Uint8Array, from: number, to: number): number {
  const length = to - from;
  const { bytes, starts, slots } = vocab;
  for (let slot = hashBytes(piece, from, to); ; slot = (slot + 1) & HASH_MASK) {
    const entry = slots[slot]!;
    if (entry === 0) return NO_RANK;
    const start = starts[entry - 1]!;
    if (bytes[start - 1] !== length) continue;
    let i = 0;
    while (i < length && bytes[start + i] === piece[from + i]) i += 1;
    if (i === length) return entry - 1;
  }
}

/** Every token's bytes in rank order (the tests read the file back with it). */
export function vocabularyTokens(vocab: Vocabulary): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const start of vocab.starts) out.push(vocab.bytes.subarray(start, start + vocab.bytes[start - 1]!));
  return out;
}

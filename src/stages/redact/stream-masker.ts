// Masking a streamed text: the last MAX_MATCH characters stay held back, because they could still be
// the start of a match that the next delta completes (a card number split across two chunks); the rest
// goes out masked. A match that reaches into the held tail is held whole until it is complete.
import type { StageCounter, StreamTextFilter } from '../stage.ts';
import { MAX_MATCH, type Rule } from './detectors.ts';
import { findAll, masked, type Found } from './scan.ts';

/** Characters already sent that a detector's look-behind may still need to see. */
const CONTEXT = 32;
/** Past this much held text a match still growing (an operator's unbounded pattern) is cut where it is. */
const HOLD_LIMIT = 4 * MAX_MATCH;

export class StreamMasker implements StreamTextFilter {
  readonly #rules: readonly Rule[];
  readonly #counter: StageCounter;
  /** Text received and not yet sent. */
  #held = '';
  /** The end of what was sent, unmasked: context for matches starting in the held text. */
  #sent = '';

  constructor(rules: readonly Rule[], counter: StageCounter) {
    this.#rules = rules;
    this.#counter = counter;
  }

  push(delta: string): string {
    this.#held += delta;
    if (this.#held.length <= MAX_MATCH) return '';
    const from = this.#sent.length;
    const text = this.#sent + this.#held;
    const found = this.#found(text, from);
    let cut = text.length - MAX_MATCH;
    const overlong = this.#held.length > HOLD_LIMIT;
    for (const f of found) if (f.start < cut && f.end > cut) cut = overlong ? f.end : f.start;
    return this.#send(text, from, cut, found);
  }

  flush(): string {
    const from = this.#sent.length;
    const text = this.#sent + this.#held;
    return this.#send(text, from, text.length, this.#found(text, from));
  }

  /** Matches that start in the held text (those in the context were judged when it was sent). */
  #found(text: string, from: number): Found[] {
    return findAll(text, this.#rules).filter((f) => f.start >= from);
  }

  #send(text: string, from: number, cut: number, found: readonly Found[]): string {
    const sent = found.filter((f) => f.end <= cut);
    for (const f of sent) this.#counter.count(f.rule, 1);
    this.#held = text.slice(cut);
    this.#sent = text.slice(Math.max(0, cut - CONTEXT), cut);
    return masked(text, sent, from, cut);
  }
}

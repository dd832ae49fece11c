// The thought signatures of function calls a Gemini model made for a caller whose dialect has no place
// for them (chat, messages, Responses): kept by call id, so when that caller sends the call back in its
// history the Gemini upstream gets the model's own signature instead of Google's placeholder, and the
// model keeps its reasoning across the tool round trip. Kept per key; best effort and per process: a call this
// replica did not see, or one evicted by the bounds below, goes back with the placeholder as before.

/** Signature characters kept at most (oldest out first): a few thousand tool round trips in flight. */
const MAX_CHARS = 8 * 1024 * 1024;
/** A call sent back later than this gets the placeholder. */
const MAX_AGE_MS = 6 * 60 * 60 * 1000;

interface Kept {
  /** The upstream model that made the call: a signature is sent back only to that model. */
  model: string;
  signature: string;
  at: number;
}

/** One key's signatures, oldest first, and their characters. */
interface Share {
  owner: string;
  byCall: Map<string, Kept>;
  chars: number;
}

/**
 * Kept per key (the caller's key id): a key reads only its own calls' signatures, and when the process
 * bound is reached the largest share loses its oldest first, so a key that floods the cache evicts its own
 * signatures and never another key's smaller share.
 */
export class ThoughtSignatures {
  readonly #byOwner = new Map<string, Share>();
  #chars = 0;
  readonly #maxChars: number;
  readonly #maxAgeMs: number;
  readonly #now: () => number;

  constructor(opts: { maxChars?: number; maxAgeMs?: number; now?: () => number } = {}) {
    this.#maxChars = opts.maxChars ?? MAX_CHARS;
    this.#maxAgeMs = opts.maxAgeMs ?? MAX_AGE_MS;
    this.#now = opts.now ?? Date.now;
  }

  remember(owner: string, callId: string, model: string, signature: string): void {
    if (signature.length > this.#maxChars) return;
    const previous = this.#byOwner.get(owner);
    // Dropping the call's previous signature may empty (and remove) the share: looked up after.
    if (previous !== undefined) this.#drop(previous, callId);
    let share = this.#byOwner.get(owner);
    if (share === undefined) {
      share = { owner, byCall: new Map(), chars: 0 };
      this.#byOwner.set(owner, share);
    }
    share.byCall.set(callId, { model, signature, at: this.#now() });
    share.chars += signature.length;
    this.#chars += signature.length;
    while (this.#chars > this.#maxChars) {
      const largest = this.#largest();
      const oldest = largest.byCall.keys().next().value as string;
      this.#drop(largest, oldest);
    }
  }

  /**
   * The signature the call was made with, while it is kept, when the same key sends it back to the model
   * that made it.
   */
  signatureOf(owner: string, callId: string, model: string): string | undefined {
    const share = this.#byOwner.get(owner);
    const kept = share?.byCall.get(callId);
    if (share === undefined || kept === undefined || kept.model !== model) return undefined;
    if (this.#now() - kept.at > this.#maxAgeMs) {
      this.#drop(share, callId);
      return undefined;
    }
    return kept.signature;
  }

  /** Characters kept for one key (tests and metrics). */
  charsOf(owner: string): number {
    return this.#byOwner.get(owner)?.chars ?? 0;
  }

  #largest(): Share {
    let largest: Share | undefined;
    for (const share of this.#byOwner.values())
      if (largest === undefined || share.chars > largest.chars) largest = share;
    return largest as Share;
  }

  #drop(share: Share, callId: string): void {
    const kept = share.byCall.get(callId);
    if (kept === undefined) return;
    share.byCall.delete(callId);
    share.chars -= kept.signature.length;
    this.#chars -= kept.signature.length;
    if (share.byCall.size === 0) this.#byOwner.delete(share.owner);
  }
}

/** The process's one store: the Gemini decoders write it, the Gemini request encoder reads it. */
export const thoughtSignatures = new ThoughtSignatures();

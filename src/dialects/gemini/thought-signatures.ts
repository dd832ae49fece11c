// The thought signatures of function calls a Gemini model made for a caller whose dialect has no place
// for them (chat, messages, Responses): kept by call id, so when that caller sends the call back in its
// history the Gemini upstream gets the model's own signature instead of Google's placeholder, and the
// model keeps its reasoning across the tool round trip. Best effort and per process: a call this
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

export class ThoughtSignatures {
  readonly #byCall = new Map<string, Kept>();
  #chars = 0;
  readonly #maxChars: number;
  readonly #maxAgeMs: number;
  readonly #now: () => number;

  constructor(opts: { maxChars?: number; maxAgeMs?: number; now?: () => number } = {}) {
    this.#maxChars = opts.maxChars ?? MAX_CHARS;
    this.#maxAgeMs = opts.maxAgeMs ?? MAX_AGE_MS;
    this.#now = opts.now ?? Date.now;
  }

  remember(callId: string, model: string, signature: string): void {
    if (signature.length > this.#maxChars) return;
    this.#drop(callId);
    this.#byCall.set(callId, { model, signature, at: this.#now() });
    this.#chars += signature.length;
    for (const oldest of this.#byCall.keys()) {
      if (this.#chars <= this.#maxChars) break;
      this.#drop(oldest);
    }
  }

  /** The signature the call was made with, while it is kept, when it goes back to the model that made it. */
  signatureOf(callId: string, model: string): string | undefined {
    const kept = this.#byCall.get(callId);
    if (kept === undefined || kept.model !== model) return undefined;
    if (this.#now() - kept.at > this.#maxAgeMs) {
      this.#drop(callId);
      return undefined;
    }
    return kept.signature;
  }

  #drop(callId: string): void {
    const kept = this.#byCall.get(callId);
    if (kept === undefined) return;
    this.#byCall.delete(callId);
    this.#chars -= kept.signature.length;
  }
}

/** The process's one store: the Gemini decoders write it, the Gemini request encoder reads it. */
export const thoughtSignatures = new ThoughtSignatures();

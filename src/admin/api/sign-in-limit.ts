// Failed admin sign-ins are counted per client address: after `limit` in one window the address waits
// for the window to end, so the admin token cannot be guessed at line speed. A right token never counts.
export interface SignInLimitOptions {
  /** Failed sign-ins an address may make in one window. */
  limit: number;
  windowMs: number;
  /** Addresses remembered at once; past that the oldest windows are forgotten first. */
  maxTracked: number;
}

interface Window {
  failures: number;
  endsAt: number;
}

export class SignInLimit {
  readonly #opts: SignInLimitOptions;
  // A Map keeps insertion order: the first entries are the oldest windows.
  readonly #windows = new Map<string, Window>();

  constructor(opts: SignInLimitOptions = { limit: 30, windowMs: 60_000, maxTracked: 10_000 }) {
    this.#opts = opts;
  }

  /** Whole seconds `address` must wait before it may try again; 0 when it may try now. */
  waitSeconds(address: string, now: number): number {
    const w = this.#windows.get(address);
    if (w === undefined) return 0;
    if (w.endsAt <= now) {
      this.#windows.delete(address);
      return 0;
    }
    return w.failures >= this.#opts.limit ? Math.ceil((w.endsAt - now) / 1000) : 0;
  }

  failed(address: string, now: number): void {
    const w = this.#windows.get(address);
    if (w !== undefined && w.endsAt > now) {
      w.failures++;
      return;
    }
    this.#windows.delete(address);
    if (this.#windows.size >= this.#opts.maxTracked) {
      const oldest = this.#windows.keys().next();
      if (oldest.done !== true) this.#windows.delete(oldest.value);
    }
    this.#windows.set(address, { failures: 1, endsAt: now + this.#opts.windowMs });
  }
}

// Failed admin sign-ins are counted per client address (an IPv6 address by its /64): after `limit` in one
// window the address waits for the window to end, so the admin token cannot be guessed at line speed. A
// right token never counts. Beside that, failures from all addresses together are counted too: past
// `globalLimit` in one window every address that has not signed in before waits until the window ends,
// and each further window that reaches the limit doubles that wait (up to `maxGlobalWaitMs`), so guesses
// spread over many addresses gain nothing. Addresses that signed in with the right token before go on.
export interface SignInLimitOptions {
  /** Failed sign-ins an address may make in one window. */
  limit: number;
  windowMs: number;
  /** Addresses remembered at once; past that the oldest windows are forgotten first. */
  maxTracked: number;
  /** Failed sign-ins all addresses together may make in one window. */
  globalLimit?: number;
  /** The longest the global hold lasts once the limit is reached window after window. */
  maxGlobalWaitMs?: number;
}

interface Window {
  failures: number;
  endsAt: number;
}

const DEFAULTS: SignInLimitOptions = {
  limit: 30,
  windowMs: 60_000,
  maxTracked: 10_000,
  globalLimit: 300,
  maxGlobalWaitMs: 3_600_000,
};

export class SignInLimit {
  readonly #opts: SignInLimitOptions;
  // A Map keeps insertion order: the first entries are the oldest windows.
  readonly #windows = new Map<string, Window>();
  /** Addresses that signed in with the right token: the global hold does not stop them. */
  readonly #known = new Set<string>();
  #global: Window = { failures: 0, endsAt: 0 };
  /** Windows in a row that reached the global limit; the hold doubles with each. */
  #strikes = 0;
  #heldUntil = 0;

  constructor(opts: SignInLimitOptions = DEFAULTS) {
    this.#opts = opts;
  }

  /** Whole seconds `address` must wait before it may try again; 0 when it may try now. */
  waitSeconds(address: string, now: number): number {
    if (this.#heldUntil > now && !this.#known.has(address)) return Math.ceil((this.#heldUntil - now) / 1000);
    const w = this.#windows.get(address);
    if (w === undefined) return 0;
    if (w.endsAt <= now) {
      this.#windows.delete(address);
      return 0;
    }
    return w.failures >= this.#opts.limit ? Math.ceil((w.endsAt - now) / 1000) : 0;
  }

  failed(address: string, now: number): void {
    this.#failedGlobally(now);
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

  /** The right token from `address`: it goes on while a global hold stops addresses never seen. */
  succeeded(address: string): void {
    if (this.#known.has(address)) return;
    if (this.#known.size >= this.#opts.maxTracked) {
      const oldest = this.#known.values().next();
      if (oldest.done !== true) this.#known.delete(oldest.value);
    }
    this.#known.add(address);
  }

  #failedGlobally(now: number): void {
    const limit = this.#opts.globalLimit ?? Infinity;
    if (this.#global.endsAt <= now) {
      // A window that passed without reaching the limit forgives the strikes before it.
      if (this.#global.failures < limit && this.#global.endsAt + this.#opts.windowMs <= now) this.#strikes = 0;
      this.#global = { failures: 0, endsAt: now + this.#opts.windowMs };
    }
    this.#global.failures++;
    if (this.#global.failures !== limit) return;
    this.#strikes++;
    const wait = Math.min(
      this.#opts.maxGlobalWaitMs ?? Infinity,
      (this.#global.endsAt - now) * 2 ** (this.#strikes - 1),
    );
    this.#heldUntil = now + Math.max(1000, wait);
  }
}

// Clocks that almost never fire: every upstream attempt arms one, pushes it out with each streamed
// chunk and clears it when the attempt ends. A native Timeout costs an object, a timer-list insert and
// a libuv clock read on every arm, refresh and clear; clocks longer than a second share one ticking
// interval here instead and fire less than a second after their time (undici's fast timers make the
// same trade for its socket timeouts). Shorter clocks stay native, so they fire on time.

/** Delays up to this many ms use a native timer. */
export const NATIVE_MAX_MS = 1000;
/** How often the shared interval looks at the coarse clocks. */
export const TICK_MS = 499;

export interface CoarseClockOptions {
  /** Monotonic ms; `performance.now()` unless a test drives the clock. */
  now?: () => number;
  /** Start an interval while coarse timers are armed; a test calls `tick()` itself instead. */
  autoTick?: boolean;
}

/** The coarse timers of one process and the interval that fires them. */
export class CoarseClock {
  readonly now: () => number;
  readonly #autoTick: boolean;
  readonly #timers: CoarseTimer[] = [];
  #interval: NodeJS.Timeout | null = null;

  constructor(options: CoarseClockOptions = {}) {
    this.now = options.now ?? (() => performance.now());
    this.#autoTick = options.autoTick ?? true;
  }

  /** Coarse timers armed now. */
  get size(): number {
    return this.#timers.length;
  }

  add(timer: CoarseTimer): void {
    timer.index = this.#timers.length;
    this.#timers.push(timer);
    if (this.#autoTick && this.#interval === null) {
      this.#interval = setInterval(() => this.tick(), TICK_MS);
      // The server keeps the process alive; a pending clock alone must not.
      this.#interval.unref();
    }
  }

  /** O(1): the last timer takes the removed one's slot. */
  remove(timer: CoarseTimer): void {
    const at = timer.index;
    if (at < 0) return;
    const last = this.#timers.pop() as CoarseTimer;
    if (last !== timer) {
      this.#timers[at] = last;
      last.index = at;
    }
    timer.index = -1;
  }

  /** Moves restarted clocks out from now and fires those due; the interval stops once none are left. */
  tick(): void {
    const now = this.now();
    let due: CoarseTimer[] | null = null;
    for (let i = 0; i < this.#timers.length; ) {
      const t = this.#timers[i];
      if (t.restarted) t.resetFrom(now);
      if (t.due <= now) {
        this.remove(t);
        (due ??= []).push(t);
      } else i++;
    }
    if (this.#timers.length === 0 && this.#interval !== null) {
      clearInterval(this.#interval);
      this.#interval = null;
    }
    // Fired after the sweep: a callback may arm or clear other timers.
    if (due !== null) for (const t of due) t.fire();
  }
}

export const processClock = new CoarseClock();

/**
 * One clock: fires `onFire` once `ms` have passed since it was started or last restarted, and never
 * later than the absolute time `cap` (a request's deadline, on the clock's `now`).
 */
export class CoarseTimer {
  /** Slot in the clock's list; -1 when not armed coarsely. */
  index = -1;
  /** Absolute time at which a coarse timer fires. */
  due = 0;
  /** A chunk restarted the clock since the last tick: the tick moves `due` (no clock read per chunk). */
  restarted = false;
  #ms = 0;
  #cap = Infinity;
  #capped = false;
  #native: NodeJS.Timeout | undefined;
  readonly #clock: CoarseClock;
  readonly #onFire: () => void;
  readonly #fireNative = (): void => {
    this.#native = undefined;
    this.#onFire();
  };

  constructor(clock: CoarseClock, onFire: () => void) {
    this.#clock = clock;
    this.#onFire = onFire;
  }

  /** Whether the clock fires (or fired) at its cap rather than after its own ms. */
  get capped(): boolean {
    return this.#capped;
  }

  get armed(): boolean {
    return this.#native !== undefined || this.index >= 0;
  }

  start(ms: number, cap: number): void {
    this.clear();
    this.#ms = ms;
    this.#cap = cap;
    const now = this.#clock.now();
    const left = Math.max(0, cap - now);
    this.#capped = left <= ms;
    const delay = this.#capped ? left : ms;
    if (delay <= NATIVE_MAX_MS) {
      this.#native = setTimeout(this.#fireNative, delay);
      return;
    }
    this.due = now + delay;
    this.restarted = false;
    this.#clock.add(this);
  }

  /** Starts the same clock again from now (a chunk arrived); a capped clock keeps its cap. */
  restart(): void {
    if (this.#capped) return;
    if (this.index >= 0) {
      this.restarted = true;
      return;
    }
    if (this.#native === undefined) return;
    // Refreshing reuses the timer; past the cap, it is re-armed to fire at the cap.
    if (this.#clock.now() + this.#ms < this.#cap) this.#native.refresh();
    else this.start(this.#ms, this.#cap);
  }

  clear(): void {
    if (this.#native !== undefined) {
      clearTimeout(this.#native);
      this.#native = undefined;
    }
    if (this.index >= 0) this.#clock.remove(this);
  }

  /** The clock's tick: the restart it noted now counts from `now`. */
  resetFrom(now: number): void {
    this.restarted = false;
    const next = now + this.#ms;
    this.#capped = next >= this.#cap;
    this.due = this.#capped ? this.#cap : next;
  }

  fire(): void {
    this.#onFire();
  }
}

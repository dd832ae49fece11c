// The clocks of one upstream attempt: first byte, idle gap between body chunks, the request's deadline,
// and the client leaving. Whichever fires first aborts the attempt's signal and says why.

/** Why the attempt was stopped from our side; null while it runs. */
export type WatchReason = 'first-byte' | 'idle' | 'total' | 'client' | 'done';

/**
 * The client's side of one request: whether it left, and one callback slot for the attempt in progress.
 * Cheaper than an AbortSignal per request (EventTarget listeners are costly on the hot path).
 */
export interface ClientLink {
  readonly aborted: boolean;
  onGone(callback: () => void): void;
  /** Clears the callback if it is still this one. */
  offGone(callback: () => void): void;
}

export interface AttemptWatchOptions {
  /** When the client leaves, the upstream call is aborted at once. */
  client: ClientLink;
  firstByteMs: number;
  idleMs: number;
  /** Monotonic ms (`performance.now()`) at which the whole request must be over. */
  deadline: number;
}

export class AttemptWatch {
  readonly #controller = new AbortController();
  readonly #options: AttemptWatchOptions;
  readonly #onClientAbort = (): void => this.#stop('client');
  // One timer per attempt, never recreated per chunk: it fires as the first-byte or idle clock, or as
  // the request's deadline when that comes sooner (undici's habit: refresh timers, don't remake them).
  readonly #onTimer = (): void => this.#stop(this.#firesAs);
  #timer: NodeJS.Timeout | undefined;
  #firesAs: 'first-byte' | 'idle' | 'total' = 'first-byte';
  #reason: WatchReason | null = null;
  #sawChunk = false;

  constructor(options: AttemptWatchOptions) {
    this.#options = options;
    if (options.client.aborted) {
      this.#reason = 'client';
      this.#controller.abort();
      return;
    }
    options.client.onGone(this.#onClientAbort);
    this.#arm('first-byte', options.firstByteMs);
  }

  /** Aborted when any clock fires, the client leaves, or the attempt is given up. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get reason(): WatchReason | null {
    return this.#reason;
  }

  /** The attempt was stopped by one of the timeouts (not by the client or by us). */
  get timedOut(): boolean {
    return this.#reason === 'first-byte' || this.#reason === 'idle' || this.#reason === 'total';
  }

  /** A body chunk arrived: the first-byte clock is over, the idle clock restarts. */
  chunk(): void {
    if (this.#reason !== null) return;
    if (this.#sawChunk && this.#firesAs === 'idle' && performance.now() + this.#options.idleMs < this.#options.deadline) {
      // Called for every streamed event: push the same timer out again.
      this.#timer?.refresh();
      return;
    }
    this.#sawChunk = true;
    this.#arm('idle', this.#options.idleMs);
  }

  get sawChunk(): boolean {
    return this.#sawChunk;
  }

  /** Give the attempt up: the upstream socket is destroyed rather than left open. */
  abandon(): void {
    this.#stop('done');
  }

  /** The attempt is over (body fully read, or relayed to the end): stop the clocks, keep the socket. */
  dispose(): void {
    clearTimeout(this.#timer);
    this.#options.client.offGone(this.#onClientAbort);
  }

  #arm(phase: 'first-byte' | 'idle', ms: number): void {
    const left = Math.max(0, this.#options.deadline - performance.now());
    this.#firesAs = left <= ms ? 'total' : phase;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(this.#onTimer, Math.min(ms, left));
  }

  #stop(reason: WatchReason): void {
    if (this.#reason !== null) return;
    this.#reason = reason;
    this.dispose();
    this.#controller.abort(new AttemptStopped(reason));
  }
}

/** The abort reason the attempt's signal carries, so an error thrown by the body can be traced back. */
export class AttemptStopped extends Error {
  override name = 'AttemptStopped';
  readonly reason: WatchReason;

  constructor(reason: WatchReason) {
    super(`upstream attempt stopped: ${reason}`);
    this.reason = reason;
  }
}

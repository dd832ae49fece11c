// The clocks of one upstream attempt: first byte, idle gap between body chunks, the request's deadline,
// and the client leaving. Whichever fires first stops the attempt (its provider aborts the request) and says why.
import type { StopLink } from '../spec/upstream.ts';
import type { ServerResponse } from 'node:http';

/** Why the attempt was stopped from our side; null while it runs. */
export type WatchReason = 'first-byte' | 'idle' | 'total' | 'client' | 'done' | 'shutdown';

/**
 * Attempts in progress, for a clean stop whose grace has run out (`stopAllAttempts`). An array with
 * swap-removal, not a Set: a Set that gains and loses an entry per request rebuilds its hash table every
 * few dozen requests, and each discarded table, once in the old generation, still points at the attempts
 * it held; the scavenger takes those pointers as roots until the next full collection, so every request
 * graph they reach was promoted and left for the major GC.
 */
const live: AttemptWatch[] = [];
let shuttingDown = false;

/**
 * The gateway stops: every attempt in progress is stopped with reason `shutdown` (a stream ends with an
 * error event in the caller's dialect, a request still waiting gets a 503), and any attempt started
 * later stops at once. Returns how many were stopped.
 */
export function stopAllAttempts(): number {
  shuttingDown = true;
  const stopped = live.length;
  for (const watch of live.slice()) watch.shutdown();
  return stopped;
}

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

/** Node's timers take delays below 2^31 ms; a longer one (or none, Infinity) is never armed. */
const TIMEOUT_MAX = 2 ** 31 - 1;

/** An unref'd timer: the server, not a pending clock, keeps the process alive. */
function arm(callback: () => void, ms: number): NodeJS.Timeout | null {
  return ms < TIMEOUT_MAX ? setTimeout(callback, Math.max(0, ms)).unref() : null;
}

export class AttemptWatch implements StopLink {
  #controller: AbortController | null = null;
  #onStopped: ((reason: Error) => void) | null = null;
  #stopError: Error | null = null;
  readonly #options: AttemptWatchOptions;
  readonly #onClientAbort = (): void => this.#stop('client');
  // Two timers: the phase clock (first byte, then the idle gap, refreshed by each chunk rather than
  // remade) and the request's deadline, armed once.
  #phaseTimer: NodeJS.Timeout | null = null;
  #deadlineTimer: NodeJS.Timeout | null = null;
  readonly #onPhase = (): void => this.#stop(this.#phase);
  #phase: 'first-byte' | 'idle' = 'first-byte';
  #reason: WatchReason | null = null;
  #sawChunk = false;
  /** Between hold() and release(): the gateway, not the upstream, keeps the body from coming. */
  #holding = false;
  #disposed = false;
  /** Slot in `live`; -1 when not in it. */
  #liveAt = -1;

  constructor(options: AttemptWatchOptions) {
    this.#options = options;
    if (options.client.aborted || shuttingDown) {
      const reason = options.client.aborted ? 'client' : 'shutdown';
      this.#reason = reason;
      this.#stopError = new AttemptStopped(reason);
      return;
    }
    options.client.onGone(this.#onClientAbort);
    this.#phaseTimer = arm(this.#onPhase, options.firstByteMs);
    this.#deadlineTimer = arm(() => this.#stop('total'), options.deadline - performance.now());
    this.#liveAt = live.length;
    live.push(this);
  }

  /** The gateway is stopping and its grace is over (stopAllAttempts). */
  shutdown(): void {
    this.#stop('shutdown');
  }

  /** Aborted when any clock fires, the client leaves, or the attempt is given up; made on first use. */
  get signal(): AbortSignal {
    if (this.#controller === null) {
      this.#controller = new AbortController();
      if (this.#stopError !== null) this.#controller.abort(this.#stopError);
    }
    return this.#controller.signal;
  }

  get stopError(): Error | null {
    return this.#stopError;
  }

  /** One callback slot: the provider's way to abort its request when any clock fires. */
  onStop(callback: (reason: Error) => void): void {
    if (this.#stopError !== null) callback(this.#stopError);
    else this.#onStopped = callback;
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
    if (this.#sawChunk) {
      // Called for every streamed event: the same timer starts again.
      this.#phaseTimer?.refresh();
      return;
    }
    this.#sawChunk = true;
    this.#phase = 'idle';
    this.#armPhase(this.#options.idleMs);
  }

  /**
   * The gateway paused the upstream because the client is not reading: the upstream's silence meanwhile
   * is ours, not a stall, so only the request's deadline runs until `release()`.
   */
  hold(): void {
    if (this.#reason !== null || !this.#sawChunk || this.#disposed) return;
    this.#holding = true;
    this.#clearPhase();
  }

  /** The client read again and the upstream was resumed: the idle clock starts from now. */
  release(): void {
    if (!this.#holding) return;
    this.#holding = false;
    if (this.#reason !== null || this.#disposed) return;
    this.#armPhase(this.#options.idleMs);
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
    this.#leaveLive();
    this.#disposed = true;
    this.#holding = false;
    this.#clearPhase();
    if (this.#deadlineTimer !== null) clearTimeout(this.#deadlineTimer);
    this.#deadlineTimer = null;
    this.#options.client.offGone(this.#onClientAbort);
  }

  #armPhase(ms: number): void {
    this.#clearPhase();
    this.#phaseTimer = arm(this.#onPhase, ms);
  }

  #clearPhase(): void {
    if (this.#phaseTimer !== null) clearTimeout(this.#phaseTimer);
    this.#phaseTimer = null;
  }

  /** O(1): the last attempt takes this one's slot; pop() leaves no reference behind in the array. */
  #leaveLive(): void {
    const at = this.#liveAt;
    if (at < 0) return;
    this.#liveAt = -1;
    const last = live.pop() as AttemptWatch;
    if (last !== this) {
      live[at] = last;
      last.#liveAt = at;
    }
  }

  #stop(reason: WatchReason): void {
    if (this.#reason !== null) return;
    this.#reason = reason;
    this.dispose();
    const err = new AttemptStopped(reason);
    this.#stopError = err;
    const callback = this.#onStopped;
    this.#onStopped = null;
    callback?.(err);
    this.#controller?.abort(err);
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

// Whether the caller is still connected, from one 'close' listener on the response: the attempt in
// progress is told at once (its upstream call is aborted), and an AbortSignal exists only if something
// asks for one (the backoff sleep between retries).
/** The client side of an attempt's clocks (ClientLink above), over one node:http response. */
export class ResponseClientLink {
  aborted = false;
  #callback: (() => void) | null = null;
  #controller: AbortController | null = null;

  constructor(res: ServerResponse) {
    // 'close' is emitted once per response: `on` spares the once-wrapper per request.
    res.on('close', () => {
      // 'close' after the response finished is the normal end, not a client leaving.
      if (!res.writableFinished) this.#gone();
    });
  }

  onGone(callback: () => void): void {
    this.#callback = callback;
  }

  offGone(callback: () => void): void {
    if (this.#callback === callback) this.#callback = null;
  }

  /** A real AbortSignal for APIs that take one; made on first use. */
  get signal(): AbortSignal {
    if (this.#controller === null) {
      this.#controller = new AbortController();
      if (this.aborted) this.#controller.abort();
    }
    return this.#controller.signal;
  }

  #gone(): void {
    this.aborted = true;
    const callback = this.#callback;
    this.#callback = null;
    callback?.();
    this.#controller?.abort();
  }
}

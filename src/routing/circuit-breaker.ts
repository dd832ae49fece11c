// Per-deployment health across requests: cooldown after repeated failures, one half-open probe,
// a "credentials rejected" state re-probed on a timer, and a rest while an upstream's 429
// `retry-after` lasts. Time is injected; no timers.
import type { BreakerState, BreakerStatus } from '../core/breaker-state.ts';

/**
 * - `closed`: traffic flows.
 * - `open`: cooling down after failures; no traffic until the cooldown ends.
 * - `half-open`: cooldown over; exactly one probe may go through.
 * - `credentials`: the upstream refused the gateway's key (401); out until a probe after
 *   `credentialsRetryMs` (doubling to `maxCredentialsRetryMs`) gets an answer, or `reset()`.
 * A `closed` deployment may also be resting: it answered 429 with a `retry-after`, and later requests go
 * elsewhere until that time has passed (not a failure: its state stays `closed`).
 */

export interface BreakerTransition {
  deploymentId: string;
  from: BreakerState;
  to: BreakerState;
  at: number;
  /** For `to: 'open'`: how long this cooldown lasts; for `to: 'credentials'`: the wait before a re-probe. */
  cooldownMs?: number;
  /** A re-probe of refused credentials starting or failing: not a change an operator needs to hear of again. */
  reprobe?: boolean;
}

export interface CircuitBreakerOptions {
  /** Monotonic milliseconds; default `performance.now()`. */
  now?: () => number;
  /** Open after this many failures in a row (default 5). */
  consecutiveFailures?: number;
  /** Or open when at least this share of calls failed (default 0.5)… */
  failureRate?: number;
  /** …of at least this many calls (default 10)… */
  minCalls?: number;
  /** …within this window (default 30 s). */
  windowMs?: number;
  /** First cooldown (default 30 s); doubles on every reopen without a close in between. */
  cooldownMs?: number;
  /** Cap on the doubled cooldown (default 5 min). */
  maxCooldownMs?: number;
  /** A half-open probe that never reports (lost request) frees its slot after this long (default 60 s). */
  probeTimeoutMs?: number;
  /** First wait before refused credentials are probed again (default 60 s); doubles on each refusal. */
  credentialsRetryMs?: number;
  /** Cap on that wait (default 15 min). */
  maxCredentialsRetryMs?: number;
  /** Every state change, for the loud log line and metrics; open → half-open shows when the probe starts. */
  onTransition?: (transition: BreakerTransition) => void;
}

/** What the admin API shows of one deployment (`health()`). */
export interface BreakerHealth {
  state: BreakerState;
  consecutiveFailures: number;
  /** While open: ms until a probe may go through; while resting after a 429: ms until the rest ends. */
  retryInMs: number;
  /** Attempts and failures in the window since the last change of state (none counted before a first failure). */
  recentCalls: number;
  recentFailures: number;
  /** The last failure's reason and how long ago it was, or null. */
  lastFailure: { reason: string; agoMs: number } | null;
}

/** Window buckets: a fixed ring of counters, so a busy deployment costs no allocation per call. */
const BUCKETS = 10;

interface Entry {
  /** `open` whose cooldown has passed reads as `half-open` until a probe starts. */
  state: BreakerState;
  consecutive: number;
  /** Opens since the last close; sets the doubling. */
  opens: number;
  openUntil: number;
  /** When the current probe started; -Infinity when no probe is in flight. */
  probeAt: number;
  /** Refusals of the credentials since the last close; sets the doubling of the re-probe wait. */
  refusals: number;
  /** The half-open probe in flight re-probes refused credentials. */
  credentialsProbe: boolean;
  bucketIds: number[];
  calls: number[];
  failures: number[];
  lastFailure: string | null;
  lastFailureAt: number;
  /** Until then later requests go elsewhere: the upstream answered 429 with a `retry-after`. */
  restUntil: number;
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0)
    throw new RangeError(`circuit breaker: ${name} must be a positive number, got ${value}`);
  return value;
}

export class CircuitBreaker {
  readonly #now: () => number;
  readonly #consecutiveFailures: number;
  readonly #failureRate: number;
  readonly #minCalls: number;
  readonly #bucketMs: number;
  readonly #cooldownMs: number;
  readonly #maxCooldownMs: number;
  readonly #probeTimeoutMs: number;
  readonly #credentialsRetryMs: number;
  readonly #maxCredentialsRetryMs: number;
  readonly #onTransition: ((transition: BreakerTransition) => void) | undefined;
  readonly #entries = new Map<string, Entry>();

  constructor(options: CircuitBreakerOptions = {}) {
    this.#now = options.now ?? (() => performance.now());
    this.#consecutiveFailures = positive('consecutiveFailures', options.consecutiveFailures ?? 5);
    this.#failureRate = positive('failureRate', options.failureRate ?? 0.5);
    if (this.#failureRate > 1)
      throw new RangeError(`circuit breaker: failureRate must be at most 1, got ${this.#failureRate}`);
    this.#minCalls = positive('minCalls', options.minCalls ?? 10);
    this.#bucketMs = positive('windowMs', options.windowMs ?? 30_000) / BUCKETS;
    this.#cooldownMs = positive('cooldownMs', options.cooldownMs ?? 30_000);
    this.#maxCooldownMs = Math.max(this.#cooldownMs, positive('maxCooldownMs', options.maxCooldownMs ?? 300_000));
    this.#probeTimeoutMs = positive('probeTimeoutMs', options.probeTimeoutMs ?? 60_000);
    this.#credentialsRetryMs = positive('credentialsRetryMs', options.credentialsRetryMs ?? 60_000);
    this.#maxCredentialsRetryMs = Math.max(
      this.#credentialsRetryMs,
      positive('maxCredentialsRetryMs', options.maxCredentialsRetryMs ?? 900_000),
    );
    this.#onTransition = options.onTransition;
  }

  state(deploymentId: string): BreakerState {
    const entry = this.#entries.get(deploymentId);
    if (entry === undefined) return 'closed';
    if (entry.state === 'open' && this.#now() >= entry.openUntil) return 'half-open';
    return entry.state;
  }

  /**
   * Whether an attempt may go now; no side effects (see `begin`). `pastRest`: the request that was told
   * to wait by the 429 keeps its own schedule for this deployment (plan.ts), so a rest does not hold it.
   */
  allows(deploymentId: string, pastRest = false): boolean {
    const entry = this.#entries.get(deploymentId);
    if (entry === undefined) return true;
    const now = this.#now();
    switch (entry.state) {
      case 'closed':
        return pastRest || now >= entry.restUntil;
      case 'open':
        return now >= entry.openUntil;
      case 'half-open':
        return now - entry.probeAt >= this.#probeTimeoutMs;
      case 'credentials':
        return now >= entry.openUntil;
    }
  }

  /**
   * How long until this deployment may be tried again: 0 now, the rest of an open cooldown, a second
   * while another request's probe is out (it settles the state either way), null never (refused
   * credentials wait for the operator). What a caller refused for lack of a deployment is told to wait.
   */
  availableInMs(deploymentId: string): number | null {
    const entry = this.#entries.get(deploymentId);
    if (entry === undefined || this.allows(deploymentId)) return 0;
    switch (entry.state) {
      case 'open':
        return Math.max(0, entry.openUntil - this.#now());
      case 'half-open':
        return Math.min(1_000, Math.max(0, entry.probeAt + this.#probeTimeoutMs - this.#now()));
      case 'credentials':
        return null;
      case 'closed':
        return Math.max(0, entry.restUntil - this.#now());
    }
  }

  /** Call when an attempt is sent; takes the single probe slot when half-open. False: do not send. */
  begin(deploymentId: string): boolean {
    if (!this.allows(deploymentId)) return false;
    const entry = this.#entries.get(deploymentId);
    if (entry === undefined || entry.state === 'closed') return true;
    const now = this.#now();
    entry.probeAt = now;
    if (entry.state === 'open') this.#move(deploymentId, entry, { to: 'half-open', at: now });
    else if (entry.state === 'credentials') {
      this.#move(deploymentId, entry, { to: 'half-open', at: now, reprobe: true });
      entry.credentialsProbe = true;
    }
    return true;
  }

  /** An attempt ended without an outcome (client left): free the probe slot without judging. */
  release(deploymentId: string): void {
    const entry = this.#entries.get(deploymentId);
    if (entry !== undefined && entry.state === 'half-open') entry.probeAt = -Infinity;
  }

  onSuccess(deploymentId: string): void {
    const entry = this.#entries.get(deploymentId);
    if (entry === undefined) return;
    // It serves again: whatever rest a 429 asked for is over.
    entry.restUntil = 0;
    const now = this.#now();
    if (entry.state === 'half-open') {
      entry.opens = 0;
      entry.refusals = 0;
      this.#move(deploymentId, entry, { to: 'closed', at: now });
      return;
    }
    // Late answers from attempts sent before the breaker opened say nothing about now.
    if (entry.state !== 'closed') return;
    entry.consecutive = 0;
    this.#count(entry, { now, failed: false });
  }

  /** `reason` (e.g. `HTTP 503`, `timeout`) is kept for the admin API's last error; only failures pay for it. */
  onFailure(deploymentId: string, reason = 'failed'): void {
    const entry = this.#entry(deploymentId);
    const now = this.#now();
    entry.lastFailure = reason;
    entry.lastFailureAt = now;
    if (entry.state === 'half-open') {
      this.#open(deploymentId, entry, now);
      return;
    }
    if (entry.state !== 'closed') return;
    entry.consecutive += 1;
    const { calls, failures } = this.#count(entry, { now, failed: true });
    const rateTripped = calls >= this.#minCalls && failures >= calls * this.#failureRate;
    if (entry.consecutive >= this.#consecutiveFailures || rateTripped) this.#open(deploymentId, entry, now);
  }

  /**
   * The upstream answered 429 with a `retry-after`: later requests go to other deployments until then
   * (at most the longest cooldown). A rate signal, not a failure: nothing is counted against its health.
   */
  rateLimited(deploymentId: string, retryAfterMs: number): void {
    const entry = this.#entry(deploymentId);
    entry.restUntil = Math.max(entry.restUntil, this.#now() + Math.min(retryAfterMs, this.#maxCooldownMs));
  }

  /**
   * A panic attempt (sent while every deployment was cooling down) succeeded: the upstream has recovered,
   * so the breaker closes at once rather than waiting out its cooldown. Refused credentials stay.
   */
  recovered(deploymentId: string): void {
    const entry = this.#entries.get(deploymentId);
    if (entry === undefined) return;
    entry.restUntil = 0;
    if (entry.state === 'closed' || entry.state === 'credentials') return;
    entry.opens = 0;
    this.#move(deploymentId, entry, { to: 'closed', at: this.#now() });
  }

  /**
   * Upstream 401: out until a re-probe, the wait doubling on each refusal. Returns true the first time
   * (not on a failed re-probe), so the caller logs loudly once per incident.
   */
  onCredentialsRejected(deploymentId: string): boolean {
    const entry = this.#entry(deploymentId);
    if (entry.state === 'credentials') return false;
    const reprobe = entry.state === 'half-open' && entry.credentialsProbe;
    entry.refusals += 1;
    const now = this.#now();
    const cooldownMs = Math.min(this.#credentialsRetryMs * 2 ** (entry.refusals - 1), this.#maxCredentialsRetryMs);
    entry.openUntil = now + cooldownMs;
    entry.lastFailure = 'the upstream refused the credentials';
    entry.lastFailureAt = now;
    this.#move(deploymentId, entry, { to: 'credentials', at: now, cooldownMs, reprobe: reprobe || undefined });
    return !reprobe;
  }

  /** Operator action (the admin API's deployment reset): one deployment, or all when no id is given. */
  reset(deploymentId?: string): void {
    const ids = deploymentId === undefined ? [...this.#entries.keys()] : [deploymentId];
    const now = this.#now();
    for (const id of ids) {
      const entry = this.#entries.get(id);
      if (entry === undefined) continue;
      const from = this.state(id);
      this.#entries.delete(id);
      if (from !== 'closed') this.#onTransition?.({ deploymentId: id, from, to: 'closed', at: now });
    }
  }

  snapshot(): BreakerStatus[] {
    const now = this.#now();
    return [...this.#entries].map(([deploymentId, entry]) => ({
      deploymentId,
      state: this.state(deploymentId),
      consecutiveFailures: entry.consecutive,
      retryInMs: entry.state === 'open' ? Math.max(0, entry.openUntil - now) : 0,
    }));
  }

  health(deploymentId: string): BreakerHealth {
    const entry = this.#entries.get(deploymentId);
    if (entry === undefined)
      return {
        state: 'closed',
        consecutiveFailures: 0,
        retryInMs: 0,
        recentCalls: 0,
        recentFailures: 0,
        lastFailure: null,
      };
    const now = this.#now();
    const bucketId = Math.floor(now / this.#bucketMs);
    const { calls, failures } = windowTotals(entry, bucketId);
    return {
      state: this.state(deploymentId),
      consecutiveFailures: entry.consecutive,
      retryInMs:
        entry.state === 'open'
          ? Math.max(0, entry.openUntil - now)
          : entry.state === 'closed'
            ? Math.max(0, entry.restUntil - now)
            : 0,
      recentCalls: calls,
      recentFailures: failures,
      lastFailure:
        entry.lastFailure === null
          ? null
          : { reason: entry.lastFailure, agoMs: Math.max(0, now - entry.lastFailureAt) },
    };
  }

  #entry(deploymentId: string): Entry {
    let entry = this.#entries.get(deploymentId);
    if (entry === undefined) {
      entry = {
        state: 'closed',
        consecutive: 0,
        opens: 0,
        openUntil: 0,
        probeAt: -Infinity,
        refusals: 0,
        credentialsProbe: false,
        bucketIds: new Array<number>(BUCKETS).fill(-Infinity),
        calls: new Array<number>(BUCKETS).fill(0),
        failures: new Array<number>(BUCKETS).fill(0),
        lastFailure: null,
        lastFailureAt: 0,
        restUntil: 0,
      };
      this.#entries.set(deploymentId, entry);
    }
    return entry;
  }

  /** Adds one call to the window and returns the window's totals. */
  #count(entry: Entry, call: { now: number; failed: boolean }): { calls: number; failures: number } {
    const bucketId = Math.floor(call.now / this.#bucketMs);
    const slot = bucketId % BUCKETS;
    if (entry.bucketIds[slot] !== bucketId) {
      entry.bucketIds[slot] = bucketId;
      entry.calls[slot] = 0;
      entry.failures[slot] = 0;
    }
    entry.calls[slot] += 1;
    if (call.failed) entry.failures[slot] += 1;
    return windowTotals(entry, bucketId);
  }

  #open(deploymentId: string, entry: Entry, now: number): void {
    entry.opens += 1;
    const cooldownMs = Math.min(this.#cooldownMs * 2 ** (entry.opens - 1), this.#maxCooldownMs);
    entry.openUntil = now + cooldownMs;
    this.#move(deploymentId, entry, { to: 'open', at: now, cooldownMs });
  }

  /** Every change of state starts a fresh count: old failures must not trip a just-closed breaker. */
  #move(
    deploymentId: string,
    entry: Entry,
    change: { to: BreakerState; at: number; cooldownMs?: number; reprobe?: boolean },
  ): void {
    const from =
      entry.state === 'open' && change.at >= entry.openUntil && change.to !== 'half-open' ? 'half-open' : entry.state;
    entry.state = change.to;
    entry.consecutive = 0;
    entry.probeAt = -Infinity;
    entry.credentialsProbe = false;
    entry.bucketIds.fill(-Infinity);
    entry.calls.fill(0);
    entry.failures.fill(0);
    if (change.to === 'half-open') entry.probeAt = change.at;
    this.#onTransition?.({ deploymentId, from, ...change });
  }
}

/** Calls and failures in the buckets of the window that ends with `bucketId`. */
function windowTotals(entry: Entry, bucketId: number): { calls: number; failures: number } {
  let calls = 0;
  let failures = 0;
  for (let i = 0; i < BUCKETS; i++) {
    if (bucketId - entry.bucketIds[i] >= BUCKETS) continue;
    calls += entry.calls[i];
    failures += entry.failures[i];
  }
  return { calls, failures };
}

// One request's way through a model's deployments: which to try next, how long to wait, when to stop.
//
// Routing defaults (SPEC §8; all per model unless noted):
// - Order: lowest `priority` tier first; within a tier, weighted random by `weight` (all 0 → equal).
// - Failover: the next attempt goes to a deployment that has not failed this request; a failed one
//   is tried again only when every deployment left has failed, and then the one ready soonest.
// - Retries: at most `maxRetries` (default 5, SPEC §8) after the first attempt, failovers included,
//   so at most 6 attempts. Only before the first byte has reached the client.
// - Backoff before retrying the same deployment: 1 s, doubling per failure of that deployment
//   (1, 2, 4, 8, 16 s), capped at 30 s; an upstream `retry-after-ms` / `retry-after` is honoured
//   when longer. Failover to a fresh deployment does not wait. A refused key is retried at once
//   with the provider's next key.
// - Deadline: `timeouts.totalMs` (config default 600 s) from the request's start. No attempt
//   starts with less than 1 s left: our own backoff is shortened to fit (never below 1 s), an
//   upstream `retry-after` is not; when neither fits the plan ends with `deadline`.
// - Circuit breaker (global, per deployment): open after 5 consecutive failures, or ≥ 50 % failures
//   of ≥ 10 calls in 30 s; cooldown 30 s, doubling on each reopen up to 5 min; then one half-open
//   probe (freed after 60 s if it never reports); success closes, failure reopens. Open deployments
//   are skipped. When a request finds every deployment cooling down it is not refused: it tries the one
//   whose cooldown ends first (panic routing, as Envoy's panic threshold), and that attempt's
//   success closes the breaker. When its own failures leave nothing, the plan ends with `none-available`.
//   Client 4xx answers count as the upstream being healthy; 5xx, timeouts, resets as failures. A 429 is
//   a rate signal, not a failure: it fails over, and its `retry-after` sets the wait for a retry of the
//   same deployment and the caller's `retry-after` when every attempt was rate-limited; until it has
//   passed, later requests go to the model's other deployments (panic routing still applies).
// - Credentials: a 401 takes the key out of the provider's rotation; when the provider has no
//   key left the deployment's breaker goes to `credentials` until `CircuitBreaker.reset()` (operator).
// - Timeouts are the model's `timeouts` (config defaults: connect 10 s, first byte 120 s, idle
//   between stream chunks 60 s, total 600 s); each gives 504 before the first byte (classify.ts)
//   and an in-stream error after it.
import type { DeploymentConfig, ModelConfig } from '../core/config-types.ts';
import type { CircuitBreaker } from './circuit-breaker.ts';
import { finalError } from './classify.ts';
import type { FinalError } from './classify.ts';
import type { KeyRotation } from './key-rotation.ts';
import { sessionPick } from './session.ts';
import type { AttemptOutcome, AttemptRecord, PlanEndReason, RetryableOutcome } from './outcome.ts';

export interface RetryPolicy {
  /** First wait before retrying the same deployment (SPEC §8: 1 s, doubled each time). */
  baseBackoffMs: number;
  /** Cap on one backoff; an upstream retry-after may exceed it. */
  maxBackoffMs: number;
  /** No attempt starts with less than this left before the deadline. */
  minAttemptMs: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = {
  baseBackoffMs: 1_000,
  maxBackoffMs: 30_000,
  minAttemptMs: 1_000,
};

export interface AttemptPlanOptions {
  model: ModelConfig;
  breaker: CircuitBreaker;
  keys: KeyRotation;
  /** Monotonic ms, the same clock as the breaker's; default `performance.now()`. */
  now?: () => number;
  /** [0, 1); default `Math.random`. Injected so tests can seed it. */
  random?: () => number;
  policy?: Partial<RetryPolicy>;
  /** When the request arrived, on the `now` clock; the deadline counts from here. Default: construction. */
  startedAt?: number;
  /** The request's agent session: within a tier, its deployment is the session's, not a weighted draw (session.ts). */
  session?: string | null;
}

/** Send this attempt after waiting `delayMs`. */
export interface AttemptStep {
  done?: false;
  deployment: DeploymentConfig;
  /** null for keyless providers (mock). */
  apiKey: string | null;
  delayMs: number;
  /** 1 for the first attempt. */
  attempt: number;
  /** Sent although every deployment is cooling down (panic routing): the soonest to recover. */
  panic?: true;
}

export interface PlanDone {
  done: true;
  reason: PlanEndReason;
}

/** What this request has learnt about one deployment. */
interface Failed {
  /** Retryable failures, for the doubling. */
  failures: number;
  failedAt: number;
  retryAfterMs: number;
  /** The last failure was a refused key and another key is left: retry at once. */
  keyRefused: boolean;
}

interface RetryPick {
  deployment: DeploymentConfig;
  readyAt: number;
}

interface Pending {
  deployment: DeploymentConfig;
  apiKey: string | null;
  startedAt: number;
  panic: boolean;
}

function monotonicNow(): number {
  return performance.now();
}

export class AttemptPlan {
  readonly #model: ModelConfig;
  readonly #breaker: CircuitBreaker;
  readonly #keys: KeyRotation;
  readonly #now: () => number;
  readonly #random: () => number;
  readonly #policy: RetryPolicy;
  readonly #deadline: number;
  readonly #session: string | null;
  // Made on the first failure: most requests succeed at once and never need it.
  #failed: Map<string, Failed> | null = null;
  readonly #attempts: AttemptRecord[] = [];
  #pending: Pending | null = null;
  #ended: PlanEndReason | null = null;

  constructor(options: AttemptPlanOptions) {
    this.#model = options.model;
    this.#breaker = options.breaker;
    this.#keys = options.keys;
    this.#now = options.now ?? monotonicNow;
    this.#random = options.random ?? Math.random;
    this.#policy = options.policy === undefined ? DEFAULT_RETRY_POLICY : { ...DEFAULT_RETRY_POLICY, ...options.policy };
    this.#deadline = (options.startedAt ?? this.#now()) + options.model.timeouts.totalMs;
    this.#session = options.session ?? null;
  }

  /** Monotonic ms by which the whole request must be over. */
  get deadline(): number {
    return this.#deadline;
  }

  /**
   * The next attempt (wait `delayMs`, then send with `apiKey`), or why there is none. Takes the
   * breaker's half-open probe slot when it picks a deployment that is due for one. `now` must be on
   * the injected clock; leave it out to read that clock.
   */
  next(now: number = this.#now()): AttemptStep | PlanDone {
    if (this.#pending !== null) throw new Error('AttemptPlan.next() called before record() of the previous attempt');
    if (this.#ended !== null) return { done: true, reason: this.#ended };
    if (this.#attempts.length > this.#model.maxRetries) return this.#end('retries-exhausted');
    const latestStart = this.#deadline - this.#policy.minAttemptMs;
    if (now > latestStart) return this.#end('deadline');

    const candidates = this.#candidates();
    if (candidates.length === 0) return this.#attempts.length === 0 ? this.#panic(now) : this.#end('none-available');
    const fresh = this.#failed === null ? candidates : candidates.filter((d) => !this.#failed?.has(d.id));
    let deployment: DeploymentConfig;
    let startAt = now;
    if (fresh.length > 0) {
      deployment = this.#pickWeighted(fresh);
    } else {
      const retry = this.#pickRetry({ candidates, now, latestStart });
      if (retry === undefined) return this.#end('deadline');
      deployment = retry.deployment;
      startAt = retry.readyAt;
    }
    this.#breaker.begin(deployment.id);
    const apiKey = this.#keys.next(deployment.provider);
    this.#pending = { deployment, apiKey, startedAt: startAt, panic: false };
    return { deployment, apiKey, delayMs: startAt - now, attempt: this.#attempts.length + 1 };
  }

  /**
   * Every deployment is cooling down and this request has tried none: rather than refuse it, send it to
   * the one whose cooldown ends first (deployments out for refused credentials excepted). One attempt.
   */
  #panic(now: number): AttemptStep | PlanDone {
    let best: DeploymentConfig | undefined;
    let soonest = Infinity;
    for (const d of this.#model.deployments) {
      const wait = this.#keys.usable(d.provider) ? this.#breaker.availableInMs(d.id) : null;
      if (wait !== null && wait < soonest) {
        soonest = wait;
        best = d;
      }
    }
    if (best === undefined) return this.#end('none-available');
    const apiKey = this.#keys.next(best.provider);
    this.#pending = { deployment: best, apiKey, startedAt: now, panic: true };
    return { deployment: best, apiKey, delayMs: 0, attempt: 1, panic: true };
  }

  /** Deployments the breaker and the key rotation allow now; the model's own list when all are (no copy). */
  #candidates(): readonly DeploymentConfig[] {
    const all = this.#model.deployments;
    let allowed = 0;
    for (const d of all) if (this.#allows(d)) allowed++;
    if (allowed === all.length) return all;
    return all.filter((d) => this.#allows(d));
  }

  /** A deployment this request saw rate-limited is waited for by its own schedule (#readyAt), not the rest. */
  #allows(d: DeploymentConfig): boolean {
    return this.#breaker.allows(d.id, this.#failed !== null && this.#failed.has(d.id)) && this.#keys.usable(d.provider);
  }

  /** The outcome of the attempt `next()` handed out. */
  record(deploymentId: string, outcome: AttemptOutcome): void {
    const pending = this.#pending;
    if (pending === null || pending.deployment.id !== deploymentId) {
      throw new Error(`AttemptPlan.record(${deploymentId}) does not match the attempt in flight`);
    }
    this.#pending = null;
    const now = this.#now();
    this.#attempts.push({ deploymentId, startedAt: pending.startedAt, endedAt: now, outcome });
    switch (outcome.kind) {
      case 'success':
        if (pending.panic) this.#breaker.recovered(deploymentId);
        else this.#breaker.onSuccess(deploymentId);
        this.#ended = 'succeeded';
        return;
      case 'fatal':
        // A 4xx means the upstream is up and read the request; only 5xx say something about its health.
        if (outcome.status >= 500) this.#breaker.onFailure(deploymentId, `HTTP ${outcome.status}`);
        else this.#breaker.onSuccess(deploymentId);
        this.#ended = 'fatal';
        return;
      case 'retryable': {
        // A 429 says the upstream is busy with this key, not that it is broken.
        if (outcome.status !== 429) this.#breaker.onFailure(deploymentId, failureReason(outcome));
        else if (outcome.retryAfterMs !== undefined && outcome.retryAfterMs > 0)
          this.#breaker.rateLimited(deploymentId, outcome.retryAfterMs);
        const failures = (this.#failed?.get(deploymentId)?.failures ?? 0) + 1;
        (this.#failed ??= new Map()).set(deploymentId, {
          failures,
          failedAt: now,
          retryAfterMs: outcome.retryAfterMs ?? 0,
          keyRefused: false,
        });
        return;
      }
      case 'local':
        // The gateway's own failure says nothing about the deployment: free a probe slot, judge nothing.
        this.#breaker.release(deploymentId);
        this.#ended = 'local';
        return;
      case 'credentials': {
        const keysLeft = pending.apiKey === null ? 0 : this.#keys.reject(pending.deployment.provider, pending.apiKey);
        if (keysLeft === 0) this.#breaker.onCredentialsRejected(deploymentId);
        const failures = this.#failed?.get(deploymentId)?.failures ?? 0;
        (this.#failed ??= new Map()).set(deploymentId, {
          failures,
          failedAt: now,
          retryAfterMs: 0,
          keyRefused: keysLeft > 0,
        });
        return;
      }
    }
  }

  /** The client went away: free a half-open probe slot without judging the deployment. */
  cancel(): void {
    if (this.#pending !== null) this.#breaker.release(this.#pending.deployment.id);
    this.#pending = null;
    if (this.#ended === null) this.#ended = 'cancelled';
  }

  /** The error for the caller once `next()` returned done without success. */
  finalError(): FinalError {
    const reason = this.#ended ?? 'none-available';
    return finalError({
      model: this.#model.name,
      attempts: this.#attempts,
      reason,
      availableInMs: reason === 'none-available' ? this.#availableInMs() : undefined,
    });
  }

  /** The soonest any deployment of the model may be tried again; null when none will without the operator. */
  #availableInMs(): number | null {
    let soonest: number | null = null;
    for (const d of this.#model.deployments) {
      const wait = this.#keys.usable(d.provider) ? this.#breaker.availableInMs(d.id) : null;
      if (wait !== null && (soonest === null || wait < soonest)) soonest = wait;
    }
    return soonest;
  }

  #end(reason: PlanEndReason): PlanDone {
    this.#ended = reason;
    return { done: true, reason };
  }

  /** Lowest priority tier, then weighted random inside it. */
  #pickWeighted(deployments: readonly DeploymentConfig[]): DeploymentConfig {
    if (deployments.length === 1) return deployments[0];
    let tier = Infinity;
    for (const d of deployments) if (d.priority < tier) tier = d.priority;
    const inTier = deployments.filter((d) => d.priority === tier);
    if (this.#session !== null && inTier.length > 1) return sessionPick(this.#session, inTier);
    const total = inTier.reduce((sum, d) => sum + Math.max(0, d.weight), 0);
    if (total <= 0) return inTier[Math.floor(this.#random() * inTier.length)] ?? inTier[0];
    let r = this.#random() * total;
    for (const d of inTier) {
      r -= Math.max(0, d.weight);
      if (r < 0) return d;
    }
    // Floating-point leftovers land on the last weighted deployment.
    return inTier.findLast((d) => d.weight > 0) ?? inTier[0];
  }

  /** Among deployments that all failed this request: the one ready soonest, then by priority. */
  #pickRetry(at: { candidates: readonly DeploymentConfig[]; now: number; latestStart: number }): RetryPick | undefined {
    let best: RetryPick | undefined;
    for (const deployment of at.candidates) {
      const readyAt = this.#readyAt(this.#failed?.get(deployment.id), at);
      if (readyAt === undefined) continue;
      if (
        best === undefined ||
        readyAt < best.readyAt ||
        (readyAt === best.readyAt && deployment.priority < best.deployment.priority)
      ) {
        best = { deployment, readyAt };
      }
    }
    return best;
  }

  /** When a failed deployment may be tried again; undefined when its retry-after outlasts the deadline. */
  #readyAt(failed: Failed | undefined, at: { now: number; latestStart: number }): number | undefined {
    if (failed === undefined || failed.keyRefused) return at.now;
    const { baseBackoffMs, maxBackoffMs } = this.#policy;
    const backoff = Math.min(baseBackoffMs * 2 ** Math.max(0, failed.failures - 1), maxBackoffMs);
    const readyAt = Math.max(at.now, failed.failedAt + Math.max(backoff, failed.retryAfterMs));
    if (readyAt <= at.latestStart) return readyAt;
    // Shorten our own backoff to fit, but never below the first step: no burst of retries at the end.
    if (failed.retryAfterMs >= backoff || at.latestStart < failed.failedAt + baseBackoffMs) return undefined;
    return Math.max(at.now, at.latestStart);
  }
}

/** A retryable outcome in a few words, for the admin API's last error of a deployment. */
function failureReason(o: RetryableOutcome): string {
  if (o.status !== undefined) return `HTTP ${o.status}`;
  if (o.timeout === true) return 'timeout';
  if (o.malformed === true) return 'malformed reply';
  return 'connection failed';
}

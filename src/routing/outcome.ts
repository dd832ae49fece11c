// The vocabulary shared by routing: what one upstream attempt came to, and why a plan stopped.

/** The upstream answered and its answer goes to the caller. */
export interface SuccessOutcome {
  kind: 'success';
}

/** Worth another attempt (on another deployment first): 429, 500, 502, 503, 504, 529, connection errors, timeouts. */
export interface RetryableOutcome {
  kind: 'retryable';
  /** Absent for connection errors and timeouts. */
  status?: number;
  /** From the upstream's `retry-after-ms` / `retry-after`. */
  retryAfterMs?: number;
  /** Connect, first-byte or idle timeout, rather than a refused or reset connection. */
  timeout?: boolean;
  /** A 2xx whose body was unusable (not JSON, empty stream): the upstream or a proxy in front of it is broken. */
  malformed?: boolean;
}

/** Not worth retrying: the caller must fix the request (other 4xx), or the upstream cannot do it (501…). */
export interface FatalOutcome {
  kind: 'fatal';
  status: number;
}

/** Upstream 401 (or OpenAI's 429 `insufficient_quota`): the gateway's own provider credentials were refused. */
export interface CredentialsOutcome {
  kind: 'credentials';
  status?: number;
}

/**
 * The gateway's own failure (a body it could not serialise, out of memory, a bug): the caller gets a
 * 500 and the deployment's health is not touched.
 */
export interface LocalOutcome {
  kind: 'local';
  /**
   * Out of file descriptors (EMFILE, ENFILE, or the descriptor budget's cap on upstream connections):
   * the caller gets a 503 with `retry-after`, not a 500, and only this request is refused.
   */
  descriptors?: true;
}

export type AttemptOutcome = SuccessOutcome | RetryableOutcome | FatalOutcome | CredentialsOutcome | LocalOutcome;

/**
 * Why `AttemptPlan.next()` will not offer another attempt.
 * - `succeeded` / `fatal`: the last attempt settled the request.
 * - `retries-exhausted`: `maxRetries` retries were made.
 * - `deadline`: no attempt can start in time (including a `retry-after` longer than the time left).
 * - `none-available`: every deployment left is cooling down or has its credentials rejected.
 * - `cancelled`: the client went away.
 * - `local`: the gateway itself failed; no other deployment would fare better.
 */
export type PlanEndReason =
  | 'succeeded'
  | 'fatal'
  | 'retries-exhausted'
  | 'deadline'
  | 'none-available'
  | 'cancelled'
  | 'local';

/** One attempt as the plan remembers it: enough for the usage row and the final error. */
export interface AttemptRecord {
  deploymentId: string;
  startedAt: number;
  endedAt: number;
  outcome: AttemptOutcome;
}

// A deployment's circuit-breaker state as metrics and the admin API show it (routing/circuit-breaker.ts keeps it).

/** `credentials`: the upstream refused the gateway's own credentials; it is re-probed on a timer. */
export type BreakerState = 'closed' | 'open' | 'half-open' | 'credentials';

/** What `snapshot()` shows an operator. */
export interface BreakerStatus {
  deploymentId: string;
  state: BreakerState;
  consecutiveFailures: number;
  /** While open: ms until a probe may go through. */
  retryInMs: number;
}

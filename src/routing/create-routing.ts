// Boot-time routing state: one CircuitBreaker and one KeyRotation per gateway process, with the breaker's
// state changes logged (loudly when a deployment is taken out) and shown in /metrics.
import type { Logger } from '../observability/logger.ts';
import type { Metrics } from '../observability/metrics.ts';
import { CircuitBreaker, type BreakerTransition } from './circuit-breaker.ts';
import { KeyRotation } from './key-rotation.ts';

export interface Routing {
  breaker: CircuitBreaker;
  keyRotation: KeyRotation;
}

/** A wait for a log line: seconds, or milliseconds when shorter (tests set short waits). */
export function duration(ms: number): string {
  return ms < 1_000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}

/** `breaker`: thresholds from the config (MODELGATE_BREAKER_* overrides resolved there); unset = the breaker's defaults. */
export function createRouting(deps: {
  log: Logger;
  metrics: Metrics;
  breaker?: {
    failures?: number;
    minCalls?: number;
    cooldownMs?: number;
    credentialsRetryMs?: number;
    credentialsRetryMaxMs?: number;
  };
  /** Told of every state change too (the alerts' `circuit_open`); absent when nothing listens. */
  onTransition?: (t: BreakerTransition) => void;
}): Routing {
  const { log, metrics } = deps;
  const conf = deps.breaker ?? {};
  const listener = deps.onTransition;
  const onTransition = (t: BreakerTransition): void => {
    metrics.breakerTransition(t.deploymentId, t.to);
    listener?.(t);
    const fields = { deployment: t.deploymentId, from: t.from, to: t.to, cooldownMs: t.cooldownMs };
    // Taken-out deployments are logged at error level, once per state change, so an operator sees them;
    // the re-probes of refused credentials in between are no change of their own.
    if (t.reprobe === true) {
      log.debug(fields, `deployment ${t.deploymentId}: refused credentials re-probed`);
    } else if (t.to === 'credentials') {
      log.error(
        fields,
        `deployment ${t.deploymentId} taken out: the upstream refused every key of its provider; re-probed in ${duration(t.cooldownMs ?? 0)}, the wait doubling while they are refused`,
      );
    } else if (t.to === 'open') {
      log.error(
        fields,
        `deployment ${t.deploymentId} taken out for ${Math.round((t.cooldownMs ?? 0) / 1000)} s after repeated failures`,
      );
    } else {
      log.info(fields, `deployment ${t.deploymentId} circuit ${t.to}`);
    }
  };
  const breaker = new CircuitBreaker({
    onTransition,
    consecutiveFailures: conf.failures,
    cooldownMs: conf.cooldownMs,
    minCalls: conf.minCalls,
    credentialsRetryMs: conf.credentialsRetryMs,
    maxCredentialsRetryMs: conf.credentialsRetryMaxMs,
  });
  metrics.watchBreaker(() => breaker.snapshot());
  return {
    breaker,
    keyRotation: new KeyRotation({ retryMs: conf.credentialsRetryMs, maxRetryMs: conf.credentialsRetryMaxMs }),
  };
}

// What `GET /admin/deployments` shows: each deployment's circuit, recent failures, last error, cooldown and
// refused provider keys (masked), read from this replica's routing state (routing/circuit-breaker.ts, key-rotation.ts).
import type { ModelConfig } from '../../core/config-types.ts';
import type { CircuitBreaker } from '../../routing/circuit-breaker.ts';
import type { KeyRotation } from '../../routing/key-rotation.ts';
import { UsageError } from '../key-flags.ts';

interface RoutingState {
  models: readonly ModelConfig[];
  breaker: CircuitBreaker;
  keyRotation: KeyRotation;
}

export function deploymentHealth(opts: RoutingState & { now?: number }): Record<string, unknown>[] {
  const now = opts.now ?? Date.now();
  return opts.models.flatMap((m) =>
    m.deployments.map((d) => {
      const h = opts.breaker.health(d.id);
      return {
        id: d.id,
        model: m.name,
        provider: d.provider.name,
        provider_kind: d.provider.kind,
        upstream_model: d.model,
        priority: d.priority,
        weight: d.weight,
        state: h.state,
        cooldown_left_ms: Math.round(h.retryInMs),
        consecutive_failures: h.consecutiveFailures,
        recent_calls: h.recentCalls,
        recent_failures: h.recentFailures,
        recent_error_rate: h.recentCalls === 0 ? null : h.recentFailures / h.recentCalls,
        last_error:
          h.lastFailure === null
            ? null
            : { reason: h.lastFailure.reason, at: new Date(now - h.lastFailure.agoMs).toISOString() },
        credentials: d.provider.apiKeys.length,
        locked_out_credentials: opts.keyRotation.refusedMasked(d.provider),
      };
    }),
  );
}

/**
 * Operator action after fixing an upstream: the deployment's circuit closes and its provider's refused keys
 * are tried again (for every deployment of that provider: the keys are the provider's). This replica only.
 */
export function resetDeployment(opts: RoutingState, deploymentId: string): void {
  const deployment = opts.models.flatMap((m) => m.deployments).find((d) => d.id === deploymentId);
  if (deployment === undefined)
    throw new UsageError(`no deployment "${deploymentId}" (deployments are named model#index)`, 'not_found');
  opts.breaker.reset(deploymentId);
  opts.keyRotation.reset(deployment.provider.name);
}

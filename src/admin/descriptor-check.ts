// At start: the process's file limit against max_connections and the upstream connections they imply
// (upstream/descriptor-budget.ts). An explicit max_connections that cannot fit stops the start with the
// numbers; the default one is lowered to fit, said once in the log; the upstream connections get what
// is left, as the cap the upstream connector enforces.
import type { GatewayConfig } from '../core/config-types.ts';
import type { Logger } from '../observability/logger.ts';
import { readFileLimit } from '../runtime/file-limit.ts';
import { planDescriptors, setUpstreamConnectionCap } from '../upstream/descriptor-budget.ts';
import { ConfigError } from '../config/load.ts';

export function applyDescriptorBudget(config: GatewayConfig, log: Logger): void {
  const limit = readFileLimit();
  if (limit === null) return;
  const plan = planDescriptors({
    limit: limit.soft,
    hardLimit: limit.hard,
    maxConnections: config.maxConnections,
    explicit: config.maxConnectionsSet === true,
    providers: config.providers,
  });
  if ('error' in plan) throw new ConfigError(`config error in ${config.source}:\n  at max_connections: ${plan.error}`);
  if (plan.lowered) {
    log.warn(
      { fileLimit: plan.limit, maxConnections: plan.maxConnections, upstreamConnections: plan.upstreamCap },
      `max_connections lowered from its default ${config.maxConnections} to ${plan.maxConnections}: the process's file limit is ${plan.limit} (ulimit -n), and each client connection may need an upstream one too; raise the limit or set max_connections`,
    );
    config.maxConnections = plan.maxConnections;
    config.maxConnectionsPerAddress = Math.min(config.maxConnectionsPerAddress, plan.maxConnections);
  }
  setUpstreamConnectionCap(plan.upstreamCap);
}

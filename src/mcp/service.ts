// The MCP gateway as the server builds it at start: the aggregator connected to every configured server,
// and each tool call counted in the metrics (per server, tool and status) and logged at debug.
import { Counter, Histogram, type Registry } from 'prom-client';
import type { McpServerConfig } from '../core/config-types.ts';
import type { Logger } from '../observability/logger.ts';
import type { ToolCallRecord } from './aggregator.ts';
import type { McpService } from './endpoint.ts';

export async function createMcpService(opts: {
  servers: readonly McpServerConfig[];
  log: Logger;
  registry: Registry;
}): Promise<McpService | null> {
  if (opts.servers.length === 0) return null;
  // The MCP SDK loads only where MCP servers are configured.
  const { McpAggregator } = await import('./aggregator.ts');
  const { log } = opts;
  const aggregator = new McpAggregator(opts.servers, (msg, fields) => log.warn(fields, msg));
  const calls = new Counter({
    name: 'modelgate_mcp_tool_calls_total',
    help: 'MCP tool calls through /mcp, by server, tool and status (ok, error, refused, unknown_tool, unavailable, timeout).',
    labelNames: ['server', 'tool', 'status'] as const,
    registers: [opts.registry],
  });
  const duration = new Histogram({
    name: 'modelgate_mcp_tool_call_duration_seconds',
    help: 'Time from an MCP tool call reaching the gateway to its result, by server and tool.',
    labelNames: ['server', 'tool'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [opts.registry],
  });
  aggregator.start();
  return {
    aggregator,
    record(call: ToolCallRecord): void {
      // An unknown name is the caller's text: not a label, or a caller could make series without end.
      const server = call.status === 'unknown_tool' ? '' : call.server;
      const tool = call.status === 'unknown_tool' ? '' : call.tool;
      calls.inc({ server, tool, status: call.status });
      duration.observe({ server, tool }, call.durationMs / 1000);
      log.debug({ ...call, durationMs: Math.round(call.durationMs) }, 'mcp tool call');
    },
  };
}

// OpenTelemetry traces, on only when the standard OTLP endpoint variables are set. The request path
// sees this interface and a null when tracing is off; the SDK (otel-tracing.ts) is imported only when
// tracing is on, so a gateway without it loads and runs none of it.
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { DeploymentConfig } from '../core/config-types.ts';
import type { Usage } from '../core/usage.ts';
import type { Logger } from './logger.ts';

/** A request as its server span names it: `endpoint` is the route's template, never the caller's path. */
export interface PlainRequest {
  method: string;
  endpoint: string;
  requestId: string;
  headers: IncomingHttpHeaders;
}

export interface Tracing {
  /** The server span of one generation request, continuing the caller's `traceparent` when it sent one. */
  startRequest(r: PlainRequest): RequestTrace;
  /**
   * The server span of a request answered without a generation (listings, token counts, stored responses):
   * it ends when `res` closes, with its status (a response cut short before it was sent: 499).
   */
  tracePlain(r: PlainRequest, res: ServerResponse): void;
  /** The span of one MCP tool call through /mcp, recorded once it ended (a child of the caller's `traceparent`). */
  traceToolCall(c: ToolCallTrace): void;
  /** Exports what is buffered and stops (a clean stop calls it after the last request). */
  shutdown(): Promise<void>;
}

/** One MCP tool call as its span shows it: never its arguments or result, only their sizes. */
export interface ToolCallTrace {
  headers: IncomingHttpHeaders;
  requestId: string;
  /** Unix ms. */
  startMs: number;
  endMs: number;
  server: string;
  tool: string;
  /** ok, error, refused, rate_limited, unknown_tool, unavailable, timeout (docs/mcp.md). */
  status: string;
  keyId: string;
  keyName: string | null;
  requestBytes: number;
  responseBytes: number;
}

/** What the request's end reports to its server span. */
export interface RequestSummary {
  model: string;
  stream: boolean;
  status: number;
  errorCode: string | null;
  deployment: string | null;
  usage: Usage;
  ttfbMs: number | null;
  attempts: number;
  /** The caller's key (its id and name, never the key itself), once authenticated. */
  keyId: string | null;
  keyName: string | null;
  /** The key's team, when it has one (traces group by it as reports do). */
  team?: string | null;
}

export interface RequestTrace {
  /** A client span for one upstream attempt, a child of the request's span. */
  startAttempt(a: { deployment: DeploymentConfig; attempt: number }): AttemptTrace;
  end(s: RequestSummary): void;
}

/** How an attempt ended before the relay: an answer (kept open until the request ends) or a failure. */
export type AttemptEnd =
  | { kind: 'answer'; status: number }
  | { kind: 'failed'; status?: number; outcome: string; detail: string }
  | { kind: 'stopped'; reason: string };

export interface AttemptTrace {
  /** W3C trace context for the upstream call (`traceparent`, and `tracestate` when there is one). */
  readonly headers: Readonly<Record<string, string>>;
  end(e: AttemptEnd): void;
}

/** `OTEL_SDK_DISABLED` and `OTEL_TRACES_EXPORTER=none` win over an endpoint, as the specification says. */
export function tracingWanted(env: NodeJS.ProcessEnv): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? 'otlp').split(',').map((e) => e.trim().toLowerCase());
  if (!exporters.includes('otlp')) return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/** The tracer when the environment asks for traces, else null (and nothing of the SDK is loaded). */
export async function startTracing(env: NodeJS.ProcessEnv, log: Logger): Promise<Tracing | null> {
  if (!tracingWanted(env)) return null;
  const { createOtelTracing } = await import('./otel-tracing.ts');
  return createOtelTracing(env, log);
}

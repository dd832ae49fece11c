// The OpenTelemetry SDK behind tracing.ts, loaded only when tracing is on: a server span per request and
// a client span per upstream attempt, attributes after the GenAI semantic conventions
// (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/), exported in batches over OTLP/HTTP
// (JSON) to the endpoint the standard OTEL_EXPORTER_OTLP_* variables name. Contexts are passed
// explicitly from span to span: no global context manager, no async hooks on the request path.
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  defaultTextMapGetter,
  defaultTextMapSetter,
  trace,
  type Attributes,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { MODELGATE_VERSION } from '../runtime/version.ts';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
} from '@opentelemetry/sdk-trace';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import type { DeploymentConfig } from '../core/config-types.ts';
import type { Logger } from './logger.ts';
import type { AttemptEnd, AttemptTrace, PlainRequest, RequestSummary, RequestTrace, Tracing } from './tracing.ts';
import { operationName } from './gen-ai-metrics.ts';

const propagator = new W3CTraceContextPropagator();

export function createOtelTracing(env: NodeJS.ProcessEnv, log: Logger): Tracing {
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL;
  if (protocol !== undefined && protocol !== 'http/json') {
    log.warn(
      { protocol },
      'OTEL_EXPORTER_OTLP_PROTOCOL asks for another protocol: modelgate exports traces as OTLP/HTTP JSON (http/json), which OpenTelemetry collectors accept on the same port',
    );
  }
  const exporter = new OTLPTraceExporter();
  const provider = new TracerProvider({
    resource: defaultResource()
      .merge(resourceFromAttributes({ 'service.name': 'modelgate', 'service.version': MODELGATE_VERSION }))
      .merge(detectResources({ detectors: [envDetector] })),
    sampler: samplerFromEnv(env),
    spanProcessors: [new BatchSpanProcessor({ exporter, ...batchOptions(env) })],
  });
  const tracer = provider.getTracer('modelgate');
  log.info(
    { endpoint: env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT },
    'tracing on: spans are exported over OTLP/HTTP',
  );
  const serverSpan = (r: PlainRequest, attributes: Attributes): Span => {
    const parent = propagator.extract(ROOT_CONTEXT, r.headers, defaultTextMapGetter);
    return tracer.startSpan(
      `${r.method} ${r.endpoint}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': r.method,
          'http.route': r.endpoint,
          'url.path': r.endpoint,
          'modelgate.request_id': r.requestId,
          ...attributes,
        },
      },
      parent,
    );
  };
  return {
    startRequest(r) {
      const operation = operationName(r.endpoint);
      return new RequestSpan(tracer, serverSpan(r, { 'gen_ai.operation.name': operation }), operation);
    },
    tracePlain(r, res) {
      const span = serverSpan(r, {});
      res.once('close', () => {
        const status = res.writableFinished ? res.statusCode : 499;
        span.setAttribute('http.response.status_code', status);
        // The status is the error's type here, as HTTP's conventions have it; a 4xx is the caller's and leaves the status unset.
        if (status >= 400) span.setAttribute('error.type', String(status));
        if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      });
    },
    traceToolCall(c) {
      // GenAI conventions: an `execute_tool` span named for the tool, here under its namespaced name.
      const name = c.server === '' ? c.tool : `${c.server}__${c.tool}`;
      const parent = propagator.extract(ROOT_CONTEXT, c.headers, defaultTextMapGetter);
      const span = tracer.startSpan(
        `execute_tool ${name}`,
        {
          kind: SpanKind.INTERNAL,
          startTime: c.startMs,
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': name,
            'mcp.server.name': c.server,
            'modelgate.mcp.status': c.status,
            'modelgate.request_id': c.requestId,
            'modelgate.key.id': c.keyId,
            ...(c.keyName === null ? {} : { 'modelgate.key.name': c.keyName }),
            'modelgate.mcp.request_bytes': c.requestBytes,
            'modelgate.mcp.response_bytes': c.responseBytes,
          },
        },
        parent,
      );
      if (c.status !== 'ok') {
        span.setAttribute('error.type', c.status);
        if (c.status !== 'refused' && c.status !== 'rate_limited' && c.status !== 'unknown_tool')
          span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end(c.endMs);
    },
    shutdown: () => provider.shutdown(),
  };
}

class RequestSpan implements RequestTrace {
  readonly #tracer: Tracer;
  readonly #span: Span;
  readonly #operation: string;
  /** The attempt that answered: kept open through the relay and ended with the request. */
  #answered: { span: Span; deployment: DeploymentConfig } | null = null;

  constructor(tracer: Tracer, span: Span, operation: string) {
    this.#tracer = tracer;
    this.#span = span;
    this.#operation = operation;
  }

  startAttempt(a: { deployment: DeploymentConfig; attempt: number }): AttemptTrace {
    const d = a.deployment;
    const attributes: Attributes = {
      'gen_ai.operation.name': this.#operation,
      'gen_ai.provider.name': providerName(d),
      'gen_ai.request.model': d.model,
      'modelgate.deployment': d.id,
      'modelgate.attempt': a.attempt,
    };
    if (!d.provider.inProcess) {
      const url = new URL(d.provider.baseUrl);
      attributes['server.address'] = url.hostname;
      attributes['server.port'] = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    }
    const span = this.#tracer.startSpan(
      `${this.#operation} ${d.model}`,
      { kind: SpanKind.CLIENT, attributes },
      trace.setSpan(ROOT_CONTEXT, this.#span),
    );
    const headers: Record<string, string> = {};
    propagator.inject(trace.setSpan(ROOT_CONTEXT, span), headers, defaultTextMapSetter);
    return {
      headers,
      end: (e: AttemptEnd) => {
        if (e.kind === 'answer') {
          span.setAttribute('http.response.status_code', e.status);
          this.#answered = { span, deployment: d };
          return;
        }
        if (e.kind === 'failed') {
          if (e.status !== undefined) span.setAttribute('http.response.status_code', e.status);
          span.setAttribute('error.type', e.status !== undefined ? String(e.status) : e.outcome);
          span.setStatus({ code: SpanStatusCode.ERROR, message: e.detail });
        } else {
          span.setAttribute('error.type', e.reason);
        }
        span.end();
      },
    };
  }

  end(s: RequestSummary): void {
    const span = this.#span;
    const usage = usageAttributes(s);
    span.setAttributes({
      'gen_ai.request.model': s.model,
      'http.response.status_code': s.status,
      'modelgate.stream': s.stream,
      'modelgate.attempts': s.attempts,
      ...usage,
    });
    if (s.ttfbMs !== null) span.setAttribute('modelgate.time_to_first_token_ms', s.ttfbMs);
    if (s.deployment !== null) span.setAttribute('modelgate.deployment', s.deployment);
    if (s.keyId !== null) span.setAttributes({ 'modelgate.key.id': s.keyId, 'modelgate.key.name': s.keyName ?? '' });
    if (s.team !== undefined && s.team !== null) span.setAttribute('modelgate.team', s.team);
    const answered = this.#answered;
    if (answered !== null) {
      const responseModel = {
        'gen_ai.response.model': answered.deployment.model,
        'gen_ai.provider.name': providerName(answered.deployment),
      };
      span.setAttributes(responseModel);
      answered.span.setAttributes({ ...responseModel, ...usage });
      if (s.errorCode !== null) answered.span.setAttribute('error.type', s.errorCode);
      if (s.status >= 500) answered.span.setStatus({ code: SpanStatusCode.ERROR });
      answered.span.end();
    }
    if (s.errorCode !== null) span.setAttribute('error.type', s.errorCode);
    // Server spans: a 5xx is the gateway's failure; a 4xx is the caller's and leaves the status unset.
    if (s.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: s.errorCode ?? undefined });
    span.end();
  }
}

function usageAttributes(s: RequestSummary): Attributes {
  const u = s.usage;
  const out: Attributes = {
    // The conventions count cached input in input_tokens and name the cached parts separately.
    'gen_ai.usage.input_tokens': u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens,
    'gen_ai.usage.output_tokens': u.outputTokens,
  };
  if (u.cacheReadTokens > 0) out['gen_ai.usage.cache_read.input_tokens'] = u.cacheReadTokens;
  if (u.cacheWriteTokens > 0) out['gen_ai.usage.cache_creation.input_tokens'] = u.cacheWriteTokens;
  return out;
}

/** gen_ai.provider.name: OpenTelemetry's names for the upstream kinds (the provider spec's); the mock's is modelgate's own. */
function providerName(d: DeploymentConfig): string {
  return d.provider.system;
}

/** OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG, as the specification defines them; default parentbased_always_on. */
function samplerFromEnv(env: NodeJS.ProcessEnv): Sampler {
  const ratio = Number(env.OTEL_TRACES_SAMPLER_ARG ?? '1');
  const r = Number.isFinite(ratio) && ratio >= 0 && ratio <= 1 ? ratio : 1;
  switch ((env.OTEL_TRACES_SAMPLER ?? '').trim().toLowerCase()) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(r);
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(r) });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/** The batch processor's OTEL_BSP_* settings (the SDK's processor takes them as options only). */
function batchOptions(env: NodeJS.ProcessEnv): {
  scheduledDelayMillis?: number;
  exportTimeoutMillis?: number;
  maxQueueSize?: number;
  maxExportBatchSize?: number;
} {
  const n = (name: string): number | undefined => {
    const v = Number(env[name]);
    return env[name] !== undefined && Number.isInteger(v) && v > 0 ? v : undefined;
  };
  return {
    scheduledDelayMillis: n('OTEL_BSP_SCHEDULE_DELAY'),
    exportTimeoutMillis: n('OTEL_BSP_EXPORT_TIMEOUT'),
    maxQueueSize: n('OTEL_BSP_MAX_QUEUE_SIZE'),
    maxExportBatchSize: n('OTEL_BSP_MAX_EXPORT_BATCH_SIZE'),
  };
}

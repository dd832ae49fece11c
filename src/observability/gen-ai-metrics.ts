// The OpenTelemetry GenAI metrics operators look for, in Prometheus names: tokens per request by kind
// (gen_ai.client.token.usage), the duration of the operation (gen_ai.client.operation.duration) and time
// to first token (gen_ai.server.time_to_first_token), with the semantic conventions' bucket boundaries
// (the duration's extended past 600 s, the longest request). Label children are bound once per (endpoint, model, deployment).
// https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-metrics/
import type { Registry } from 'prom-client';
import { type HistogramSeries, SeriesHistogram } from './series-histogram.ts';
import { type RequestObservation, seriesIn } from './series.ts';
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
const OPERATION_BUCKETS = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92, 163.84, 327.68, 655.36,
];
const TTFT_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

type Labels = 'gen_ai_operation_name' | 'gen_ai_provider_name' | 'gen_ai_request_model';

interface GenAiSeries {
  input: HistogramSeries;
  output: HistogramSeries;
  cacheRead: HistogramSeries;
  cacheWrite: HistogramSeries;
  duration: HistogramSeries;
  ttft: HistogramSeries;
}

/** gen_ai.operation.name of a generation endpoint: Gemini's (v1 and v1beta) generate content, embeddings embed, the rest chat. */
export function operationName(endpoint: string): string {
  if (endpoint === '/v1/embeddings') return 'embeddings';
  if (endpoint.endsWith(':generateContent') || endpoint.endsWith(':streamGenerateContent')) return 'generate_content';
  return 'chat';
}

export class GenAiMetrics {
  #tokens: SeriesHistogram<Labels | 'gen_ai_token_type'>;
  #ttft: SeriesHistogram<Labels>;
  #operation: SeriesHistogram<Labels>;
  #providerOf: (deploymentId: string) => string;
  #series = new Map<string, Map<string, Map<string, GenAiSeries>>>();

  constructor(opts: { registers: Registry[]; providerOf: (deploymentId: string) => string }) {
    this.#providerOf = opts.providerOf;
    this.#tokens = new SeriesHistogram({
      name: 'gen_ai_client_token_usage',
      help: 'Tokens per request answered by an upstream, by kind (gen_ai_token_type: input, output, cache_read, cache_write; cache kinds only when non-zero).',
      labelNames: ['gen_ai_operation_name', 'gen_ai_provider_name', 'gen_ai_request_model', 'gen_ai_token_type'],
      buckets: TOKEN_BUCKETS,
      registers: opts.registers,
    });
    this.#operation = new SeriesHistogram({
      name: 'gen_ai_client_operation_duration_seconds',
      help: 'Duration of a request answered by an upstream, from the request to the end of its answer, in seconds.',
      labelNames: ['gen_ai_operation_name', 'gen_ai_provider_name', 'gen_ai_request_model'],
      buckets: OPERATION_BUCKETS,
      registers: opts.registers,
    });
    this.#ttft = new SeriesHistogram({
      name: 'gen_ai_server_time_to_first_token_seconds',
      help: 'Time from the request to the first byte of a streamed answer sent to the client, in seconds.',
      labelNames: ['gen_ai_operation_name', 'gen_ai_provider_name', 'gen_ai_request_model'],
      buckets: TTFT_BUCKETS,
      registers: opts.registers,
    });
  }

  observe(o: RequestObservation, deployment: string): void {
    const s = this.#seriesFor(o.endpoint, o.model, deployment);
    s.input.observe(o.inputTokens);
    s.output.observe(o.outputTokens);
    if (o.cacheReadTokens > 0) s.cacheRead.observe(o.cacheReadTokens);
    if (o.cacheWriteTokens > 0) s.cacheWrite.observe(o.cacheWriteTokens);
    s.duration.observe(o.latencyMs / 1000);
    if (o.stream && o.ttfbMs !== null && o.status < 400) s.ttft.observe(o.ttfbMs / 1000);
  }

  #seriesFor(endpoint: string, model: string, deployment: string): GenAiSeries {
    return seriesIn(this.#series, endpoint, model, deployment, () => {
      const op = operationName(endpoint);
      const provider = this.#providerOf(deployment);
      return {
        input: this.#tokens.series(op, provider, model, 'input'),
        output: this.#tokens.series(op, provider, model, 'output'),
        cacheRead: this.#tokens.series(op, provider, model, 'cache_read'),
        cacheWrite: this.#tokens.series(op, provider, model, 'cache_write'),
        duration: this.#operation.series(op, provider, model),
        ttft: this.#ttft.series(op, provider, model),
      };
    });
  }
}

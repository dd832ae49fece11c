// Prometheus counters and a latency histogram, kept as plain numbers: the hot path does two map
// lookups and an increment; text is only built when /metrics is scraped.

import type { BreakerState, BreakerStatus } from '../routing/circuit-breaker.ts';

const BREAKER_STATES: readonly BreakerState[] = ['closed', 'open', 'half-open', 'credentials'];

const BUCKETS_MS = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000];

interface Series {
  labels: string;
  requests: number;
  tokensIn: number;
  tokensOut: number;
  buckets: number[];
  sumMs: number;
}

export class Metrics {
  /** endpoint → model → status: three lookups of existing strings, no key string built per request. */
  #series = new Map<string, Map<string, Map<number, Series>>>();
  #upstreamErrors = new Map<string, number>();
  #breakerTransitions = new Map<string, number>();
  #breakerSnapshot: (() => BreakerStatus[]) | null = null;
  /** model → requests sent to a cooling-down deployment because every one was (panic routing). */
  #panicRouted = new Map<string, number>();
  #usage: { pending(): number; readonly failedWrites: number; readonly droppedRows: number } | null = null;
  #admission: { readonly unavailableRefusals: number } | null = null;
  inFlight = 0;
  /** Client connections closed at once because max_connections were open. */
  connectionsDropped = 0;

  /** Breaker state is read from the breaker when /metrics is scraped, never tracked on the hot path. */
  watchBreaker(snapshot: () => BreakerStatus[]): void {
    this.#breakerSnapshot = snapshot;
  }

  /** The usage writer's queue and failures: lost or delayed spend records must show in monitoring. */
  watchUsage(usage: { pending(): number; readonly failedWrites: number; readonly droppedRows: number }): void {
    this.#usage = usage;
  }

  /** Requests refused because the admission store (Redis) could not be asked. */
  watchAdmission(admission: { readonly unavailableRefusals: number }): void {
    this.#admission = admission;
  }

  breakerTransition(deployment: string, to: BreakerState): void {
    const id = `deployment="${esc(deployment)}",to="${to}"`;
    this.#breakerTransitions.set(id, (this.#breakerTransitions.get(id) ?? 0) + 1);
  }

  observe(opts: { endpoint: string; model: string; status: number; latencyMs: number; inputTokens: number; outputTokens: number }): void {
    let byModel = this.#series.get(opts.endpoint);
    if (byModel === undefined) this.#series.set(opts.endpoint, (byModel = new Map()));
    let byStatus = byModel.get(opts.model);
    if (byStatus === undefined) byModel.set(opts.model, (byStatus = new Map()));
    let s = byStatus.get(opts.status);
    if (s === undefined) {
      s = {
        labels: `endpoint="${esc(opts.endpoint)}",model="${esc(opts.model)}",status="${opts.status}"`,
        requests: 0, tokensIn: 0, tokensOut: 0, buckets: new Array<number>(BUCKETS_MS.length).fill(0), sumMs: 0,
      };
      byStatus.set(opts.status, s);
    }
    s.requests++;
    s.tokensIn += opts.inputTokens;
    s.tokensOut += opts.outputTokens;
    s.sumMs += opts.latencyMs;
    // Buckets hold counts per bucket here; render() makes them cumulative, as Prometheus wants.
    let i = 0;
    while (i < BUCKETS_MS.length && opts.latencyMs > BUCKETS_MS[i]) i++;
    if (i < BUCKETS_MS.length) s.buckets[i]++;
  }

  #allSeries(): Series[] {
    const out: Series[] = [];
    for (const byModel of this.#series.values()) for (const byStatus of byModel.values()) for (const s of byStatus.values()) out.push(s);
    return out;
  }

  panicRouted(model: string): void {
    this.#panicRouted.set(model, (this.#panicRouted.get(model) ?? 0) + 1);
  }

  upstreamError(deployment: string, kind: string): void {
    const id = `deployment="${esc(deployment)}",kind="${esc(kind)}"`;
    this.#upstreamErrors.set(id, (this.#upstreamErrors.get(id) ?? 0) + 1);
  }

  render(): string {
    const lines: string[] = [
      '# HELP modelgate_requests_total Requests answered, by endpoint, model and status.',
      '# TYPE modelgate_requests_total counter',
    ];
    const series = this.#allSeries();
    for (const s of series) lines.push(`modelgate_requests_total{${s.labels}} ${s.requests}`);
    lines.push('# HELP modelgate_tokens_total Tokens billed, by direction.', '# TYPE modelgate_tokens_total counter');
    for (const s of series) {
      lines.push(`modelgate_tokens_total{${s.labels},direction="input"} ${s.tokensIn}`);
      lines.push(`modelgate_tokens_total{${s.labels},direction="output"} ${s.tokensOut}`);
    }
    lines.push('# HELP modelgate_request_duration_ms Request latency in milliseconds.', '# TYPE modelgate_request_duration_ms histogram');
    for (const s of series) {
      let cumulative = 0;
      BUCKETS_MS.forEach((b, i) => lines.push(`modelgate_request_duration_ms_bucket{${s.labels},le="${b}"} ${(cumulative += s.buckets[i])}`));
      lines.push(`modelgate_request_duration_ms_bucket{${s.labels},le="+Inf"} ${s.requests}`);
      lines.push(`modelgate_request_duration_ms_sum{${s.labels}} ${s.sumMs}`);
      lines.push(`modelgate_request_duration_ms_count{${s.labels}} ${s.requests}`);
    }
    lines.push('# HELP modelgate_upstream_errors_total Failed upstream attempts.', '# TYPE modelgate_upstream_errors_total counter');
    for (const [labels, n] of this.#upstreamErrors) lines.push(`modelgate_upstream_errors_total{${labels}} ${n}`);
    if (this.#breakerSnapshot !== null) {
      lines.push('# HELP modelgate_deployment_circuit Circuit state per deployment (1 for the current state); deployments never failed are closed and not listed.', '# TYPE modelgate_deployment_circuit gauge');
      for (const b of this.#breakerSnapshot()) {
        for (const st of BREAKER_STATES) lines.push(`modelgate_deployment_circuit{deployment="${esc(b.deploymentId)}",state="${st}"} ${b.state === st ? 1 : 0}`);
      }
    }
    lines.push('# HELP modelgate_panic_routed_total Requests sent to a cooling-down deployment because every deployment of the model was (panic routing).', '# TYPE modelgate_panic_routed_total counter');
    for (const [model, n] of this.#panicRouted) lines.push(`modelgate_panic_routed_total{model="${esc(model)}"} ${n}`);
    lines.push('# HELP modelgate_circuit_transitions_total Circuit state changes per deployment.', '# TYPE modelgate_circuit_transitions_total counter');
    for (const [labels, n] of this.#breakerTransitions) lines.push(`modelgate_circuit_transitions_total{${labels}} ${n}`);
    // For the soak's bound on heap growth; cheap enough to read on every scrape.
    lines.push('# HELP modelgate_heap_used_bytes V8 heap in use.', '# TYPE modelgate_heap_used_bytes gauge', `modelgate_heap_used_bytes ${process.memoryUsage().heapUsed}`);
    lines.push('# HELP modelgate_connections_dropped_total Client connections closed at once because max_connections were open.', '# TYPE modelgate_connections_dropped_total counter', `modelgate_connections_dropped_total ${this.connectionsDropped}`);
    lines.push('# HELP modelgate_in_flight Requests being served.', '# TYPE modelgate_in_flight gauge', `modelgate_in_flight ${this.inFlight}`);
    if (this.#admission !== null) {
      lines.push('# HELP modelgate_admission_unavailable_total Requests refused with 503 because the admission store (Redis) could not be asked.', '# TYPE modelgate_admission_unavailable_total counter', `modelgate_admission_unavailable_total ${this.#admission.unavailableRefusals}`);
    }
    const u = this.#usage;
    if (u !== null) {
      lines.push('# HELP modelgate_usage_rows_pending Usage rows waiting to be written.', '# TYPE modelgate_usage_rows_pending gauge', `modelgate_usage_rows_pending ${u.pending()}`);
      lines.push('# HELP modelgate_usage_write_failures_total Usage writes that failed (their rows are retried).', '# TYPE modelgate_usage_write_failures_total counter', `modelgate_usage_write_failures_total ${u.failedWrites}`);
      lines.push('# HELP modelgate_usage_rows_dropped_total Usage rows lost for good.', '# TYPE modelgate_usage_rows_dropped_total counter', `modelgate_usage_rows_dropped_total ${u.droppedRows}`);
    }
    return lines.join('\n') + '\n';
  }
}

function esc(v: string): string {
  return v.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`));
}

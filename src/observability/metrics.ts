// Prometheus metrics through prom-client: the gateway's series (names and labels as dashboards know
// them), Node's default process and event-loop metrics, and the GenAI histograms (gen-ai-metrics.ts).
// A request finds its series in three map lookups of existing strings; its counts are plain numbers that
// the counters' collect() copies into prom-client when /metrics is scraped (a prom-client call hashes its
// labels each time), and only the histograms are observed per request, through label children bound once.
// State kept elsewhere (breaker, usage writer, requests in flight) is read only when /metrics is scraped.
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { BreakerState, BreakerStatus } from '../core/breaker-state.ts';
import { GenAiMetrics } from './gen-ai-metrics.ts';
import { type HistogramSeries, SeriesHistogram } from './series-histogram.ts';
import { type RequestObservation, seriesIn } from './series.ts';

const BREAKER_STATES: readonly BreakerState[] = ['closed', 'open', 'half-open', 'credentials'];

/** Request durations in seconds, up to past the longest request (timeouts.total_ms defaults to 600 s). */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1200];

/**
 * prom-client's default gauges whose names end in `_total`, which Prometheus keeps for counters
 * (`promtool check metrics` refuses them): each is the sum of its by-type gauge without the suffix
 * (`nodejs_active_handles`), which stays.
 */
const MISNAMED_DEFAULTS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/**
 * Series per key of the key spend metrics at most: keys with a USD budget, the most recently created
 * first. Bounds the scrape however many keys there are (docs/operations.md, "Metrics").
 */
export const MAX_KEY_SERIES = 500;

/** One key's spend in its current budget period, for the key spend metrics. */
export interface KeySpendSample {
  /** A key's series, or its team's (all of the team's keys together; keyId and keyName are then ''). */
  subject: 'key' | 'team';
  keyId: string;
  keyName: string;
  /** The key's team, or the team's name; '' for a key without one. */
  team: string;
  spentUsd: number;
  /** The budget less what was spent, never below 0. */
  remainingUsd: number;
}

/** What a scrape reads of the load shedder (http/load-shedding.ts). */
interface ShedderState {
  readonly share: number;
  readonly delayMs: number;
}

interface UsageQueue {
  pending(): number;
  readonly failedWrites: number;
  readonly droppedRows: number;
  readonly spilledRows: number;
}

/** One (endpoint, model, status) series: its counts, and its latency histogram's child bound once. */
interface Series {
  labels: { endpoint: string; model: string; status: string };
  requests: number;
  tokensIn: number;
  tokensOut: number;
  duration: HistogramSeries;
}

/** One provider's upstream pools, as the scrape reads them. */
export interface UpstreamPoolSample {
  provider: string;
  connections: number;
  streams: number;
}

export class Metrics {
  readonly registry = new Registry();
  /** Requests being served (read by /metrics, by a clean stop and by the load shedder). */
  inFlight = 0;
  /** Requests begun since start: the load shedder's rate of admitted requests. */
  started = 0;
  #series = new Map<string, Map<string, Map<number, Series>>>();
  #duration: SeriesHistogram<'endpoint' | 'model' | 'status'>;
  #upstreamErrors: Counter<'deployment' | 'kind'>;
  #transitions: Counter<'deployment' | 'to'>;
  #unrouted: Counter<'endpoint_class' | 'reason'>;
  #genAi: GenAiMetrics;
  #breakerSnapshot: (() => BreakerStatus[]) | null = null;
  #upstreamPools: (() => readonly UpstreamPoolSample[]) | null = null;
  #usage: UsageQueue | null = null;
  #admission: { readonly unavailableRefusals: number } | null = null;
  #panicRouted: Counter<'model'>;
  #redactions: Counter<'rule'>;
  #keySpend: (() => Promise<readonly KeySpendSample[]>) | null = null;
  /** The key spend read by the scrape under way: the two key series share it. */
  #keySpendRead: { at: number; samples: Promise<readonly KeySpendSample[]> } | null = null;
  /** Client connections closed at once because max_connections were open. */
  connectionsDropped = 0;

  /** Upstream connections and streams by provider, read from the pools when scraped. */
  watchUpstreamPools(snapshot: () => readonly UpstreamPoolSample[]): void {
    this.#upstreamPools = snapshot;
  }

  /** `providerOf` names a deployment's provider for the GenAI series (gen_ai_provider_name). */
  constructor(opts: { providerOf?: (deploymentId: string) => string; defaultMetrics?: boolean } = {}) {
    const registers = [this.registry];
    if (opts.defaultMetrics !== false) {
      collectDefaultMetrics({ register: this.registry });
      for (const name of MISNAMED_DEFAULTS) this.registry.removeSingleMetric(name);
    }
    const metrics = this;
    new Counter({
      name: 'modelgate_requests_total',
      help: 'Requests answered, by endpoint, model and status.',
      labelNames: ['endpoint', 'model', 'status'],
      registers,
      collect() {
        this.reset();
        for (const s of metrics.#allSeries()) this.inc(s.labels, s.requests);
      },
    });
    new Counter({
      name: 'modelgate_tokens_total',
      help: 'Tokens billed, by direction.',
      labelNames: ['endpoint', 'model', 'status', 'direction'],
      registers,
      collect() {
        this.reset();
        for (const s of metrics.#allSeries()) {
          this.inc({ ...s.labels, direction: 'input' }, s.tokensIn);
          this.inc({ ...s.labels, direction: 'output' }, s.tokensOut);
        }
      },
    });
    new Gauge({
      name: 'modelgate_upstream_connections',
      help: 'Connections open to upstreams, by provider (an HTTP/2 connection carries many streams).',
      labelNames: ['provider'],
      registers,
      collect() {
        this.reset();
        for (const p of metrics.#upstreamPools?.() ?? []) this.set({ provider: p.provider }, p.connections);
      },
    });
    new Gauge({
      name: 'modelgate_upstream_streams',
      help: 'Requests in flight to upstreams (HTTP/1.1 requests and HTTP/2 streams), by provider.',
      labelNames: ['provider'],
      registers,
      collect() {
        this.reset();
        for (const p of metrics.#upstreamPools?.() ?? []) this.set({ provider: p.provider }, p.streams);
      },
    });
    this.#duration = new SeriesHistogram({
      name: 'modelgate_request_duration_seconds',
      help: 'Request duration in seconds, from the request to the end of its answer (a stream included).',
      labelNames: ['endpoint', 'model', 'status'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    // Read when scraped, from the admission state (serve-command.ts); both series share one read.
    new Counter({
      name: 'modelgate_key_spend_usd_total',
      help: `USD spent by the key in its current budget period (it starts again from 0 with each period); keys with a USD budget, at most ${MAX_KEY_SERIES}.`,
      labelNames: ['key_id', 'key_name', 'team'],
      registers,
      async collect() {
        this.reset();
        for (const k of await metrics.#keySpendNow())
          if (k.subject === 'key') this.inc({ key_id: k.keyId, key_name: k.keyName, team: k.team }, k.spentUsd);
      },
    });
    new Gauge({
      name: 'modelgate_key_budget_remaining_usd',
      help: `USD left of the key's budget in its current period; keys with a USD budget, at most ${MAX_KEY_SERIES}.`,
      labelNames: ['key_id', 'key_name', 'team'],
      registers,
      async collect() {
        this.reset();
        for (const k of await metrics.#keySpendNow())
          if (k.subject === 'key') this.set({ key_id: k.keyId, key_name: k.keyName, team: k.team }, k.remainingUsd);
      },
    });
    new Counter({
      name: 'modelgate_team_spend_usd_total',
      help: `USD spent by all of a team's keys together in the team's current budget period; teams with a USD budget, at most ${MAX_KEY_SERIES}.`,
      labelNames: ['team'],
      registers,
      async collect() {
        this.reset();
        for (const t of await metrics.#keySpendNow()) if (t.subject === 'team') this.inc({ team: t.team }, t.spentUsd);
      },
    });
    new Gauge({
      name: 'modelgate_team_budget_remaining_usd',
      help: `USD left of the team's budget in its current period; teams with a USD budget, at most ${MAX_KEY_SERIES}.`,
      labelNames: ['team'],
      registers,
      async collect() {
        this.reset();
        for (const t of await metrics.#keySpendNow())
          if (t.subject === 'team') this.set({ team: t.team }, t.remainingUsd);
      },
    });
    this.#upstreamErrors = new Counter({
      name: 'modelgate_upstream_errors_total',
      help: 'Failed upstream attempts.',
      labelNames: ['deployment', 'kind'],
      registers,
    });
    new Gauge({
      name: 'modelgate_deployment_circuit',
      help: 'Circuit state per deployment (1 for the current state); deployments never failed are closed and not listed.',
      labelNames: ['deployment', 'state'],
      registers,
      collect() {
        this.reset();
        for (const b of metrics.#breakerSnapshot?.() ?? []) {
          for (const state of BREAKER_STATES)
            this.set({ deployment: b.deploymentId, state }, b.state === state ? 1 : 0);
        }
      },
    });
    this.#transitions = new Counter({
      name: 'modelgate_circuit_transitions_total',
      help: 'Circuit state changes per deployment.',
      labelNames: ['deployment', 'to'],
      registers,
    });
    // For the soak's bound on heap growth; cheap enough to read on every scrape.
    new Gauge({
      name: 'modelgate_heap_used_bytes',
      help: 'V8 heap in use.',
      registers,
      collect() {
        this.set(process.memoryUsage().heapUsed);
      },
    });
    new Gauge({
      name: 'modelgate_in_flight',
      help: 'Requests being served.',
      registers,
      collect() {
        this.set(metrics.inFlight);
      },
    });
    new Gauge({
      name: 'modelgate_usage_rows_pending',
      help: 'Usage rows waiting to be written.',
      registers,
      collect() {
        this.set(metrics.#usage?.pending() ?? 0);
      },
    });
    // The usage writer counts these itself; a scrape copies its totals.
    new Counter({
      name: 'modelgate_usage_write_failures_total',
      help: 'Usage writes that failed (their rows are retried).',
      registers,
      collect() {
        this.reset();
        this.inc(metrics.#usage?.failedWrites ?? 0);
      },
    });
    new Counter({
      name: 'modelgate_usage_rows_spilled_total',
      help: 'Usage rows the database would not take, kept in the spill file until it takes them again.',
      registers,
      collect() {
        this.reset();
        this.inc(metrics.#usage?.spilledRows ?? 0);
      },
    });
    new Counter({
      name: 'modelgate_usage_rows_dropped_total',
      help: 'Usage rows lost for good.',
      registers,
      collect() {
        this.reset();
        this.inc(metrics.#usage?.droppedRows ?? 0);
      },
    });
    this.#unrouted = new Counter({
      name: 'modelgate_unrouted_requests_total',
      help: 'Requests refused before any route handled them: an unknown path or a wrong method (by endpoint class, not raw path), or a refused cross-origin preflight.',
      labelNames: ['endpoint_class', 'reason'],
      registers,
    });
    this.#panicRouted = new Counter({
      name: 'modelgate_panic_routed_total',
      help: 'Requests sent to a cooling-down deployment because every deployment of the model was (panic routing).',
      labelNames: ['model'],
      registers,
    });
    this.#redactions = new Counter({
      name: 'modelgate_redactions_total',
      help: 'Texts a redaction rule masked in prompts and replies, or found in a refused request (by the rule, a configured name).',
      labelNames: ['rule'],
      registers,
    });
    new Counter({
      name: 'modelgate_connections_dropped_total',
      help: 'Client connections closed at once because max_connections were open.',
      registers,
      collect() {
        this.reset();
        this.inc(metrics.connectionsDropped);
      },
    });
    new Counter({
      name: 'modelgate_admission_unavailable_total',
      help: 'Requests refused with 503 because the admission store (Redis) could not be asked.',
      registers,
      collect() {
        this.reset();
        this.inc(metrics.#admission?.unavailableRefusals ?? 0);
      },
    });
    this.#genAi = new GenAiMetrics({ registers, providerOf: opts.providerOf ?? (() => 'unknown') });
  }

  /** Breaker state is read from the breaker when /metrics is scraped, never tracked on the hot path. */
  watchBreaker(snapshot: () => BreakerStatus[]): void {
    this.#breakerSnapshot = snapshot;
  }

  /** The usage writer's queue and failures: lost or delayed spend records must show in monitoring. */
  watchUsage(usage: UsageQueue): void {
    this.#usage = usage;
  }

  /**
   * What load shedding acts on, read on a scrape: an operator tuning overload_loop_delay_ms sees how late
   * the loop runs and what share of new requests is admitted. Registered only with a shedder: with
   * shedding off the two series are absent, not a misleading 1 and 0.
   */
  watchShedder(shedder: ShedderState): void {
    const registers = [this.registry];
    new Gauge({
      name: 'modelgate_overload_admitted_share',
      help: 'Share of new API requests admitted by load shedding (1 when not shedding).',
      registers,
      collect() {
        this.set(shedder.share);
      },
    });
    new Gauge({
      name: 'modelgate_event_loop_lateness_seconds',
      help: 'Event-loop lateness as load shedding sees it (smoothed over about 200 ms).',
      registers,
      collect() {
        this.set(shedder.delayMs / 1000);
      },
    });
  }

  /** Spend and remaining budget per key, read when /metrics is scraped (at most MAX_KEY_SERIES keys). */
  watchKeySpend(read: () => Promise<readonly KeySpendSample[]>): void {
    this.#keySpend = read;
  }

  #keySpendNow(): Promise<readonly KeySpendSample[]> {
    const read = this.#keySpend;
    if (read === null) return Promise.resolve([]);
    const now = performance.now();
    if (this.#keySpendRead === null || now - this.#keySpendRead.at > 1_000)
      this.#keySpendRead = { at: now, samples: read().catch(() => []) };
    return this.#keySpendRead.samples;
  }

  /** Requests refused because the admission store (Redis) could not be asked. */
  watchAdmission(admission: { readonly unavailableRefusals: number }): void {
    this.#admission = admission;
  }

  redacted(rule: string, n: number): void {
    this.#redactions.inc({ rule }, n);
  }

  panicRouted(model: string): void {
    this.#panicRouted.inc({ model });
  }

  breakerTransition(deployment: string, to: BreakerState): void {
    this.#transitions.inc({ deployment, to });
  }

  upstreamError(deployment: string, kind: string): void {
    this.#upstreamErrors.inc({ deployment, kind });
  }

  unrouted(endpointClass: string, reason: string): void {
    this.#unrouted.inc({ endpoint_class: endpointClass, reason });
  }

  observe(o: RequestObservation): void {
    const s = this.#seriesFor(o.endpoint, o.model, o.status);
    s.requests++;
    s.tokensIn += o.inputTokens + o.cacheReadTokens + o.cacheWriteTokens;
    s.tokensOut += o.outputTokens;
    s.duration.observe(o.latencyMs / 1000);
    if (o.deployment !== null) this.#genAi.observe(o, o.deployment);
  }

  #seriesFor(endpoint: string, model: string, status: number): Series {
    return seriesIn(this.#series, endpoint, model, status, () => {
      const labels = { endpoint, model, status: String(status) };
      return {
        labels,
        requests: 0,
        tokensIn: 0,
        tokensOut: 0,
        duration: this.#duration.series(endpoint, model, labels.status),
      };
    });
  }

  *#allSeries(): Iterable<Series> {
    for (const byModel of this.#series.values()) for (const byStatus of byModel.values()) yield* byStatus.values();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }
}

// The accounting stage for every request: its bookkeeping while it runs (RequestState), and at its end a
// usage row (queued), metrics and its cost.
import type { Dialect } from '../core/dialect.ts';
import type { KeyRecord } from '../core/key-record.ts';
import type { Price } from '../core/config-types.ts';
import { billableUsage, emptyUsage, type Usage } from '../core/usage.ts';
import { breakdownJson, usdText } from '../pricing/breakdown.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { RequestTrace } from '../observability/tracing.ts';
import { maskKeyLike, type SecretMasker } from '../core/mask-secrets.ts';
import { costNanos, nanosToUsd, periodStart } from '../core/budget.ts';
import type { Logger } from '../observability/logger.ts';
import type { UsageWriter } from './usage-writer.ts';
import type { AttemptTry } from '../routing/attempts.ts';

/** What recording a request uses of the gateway. */
export interface RecordServices {
  catalog: Catalog;
  metrics: Pick<Metrics, 'observe'>;
  usage: Pick<UsageWriter, 'add'>;
  /** `access_log: true`: a line per request in `log`. */
  config?: { readonly accessLog: boolean };
  log?: Pick<Logger, 'info'>;
}

/** Per-request bookkeeping that ends up in the usage row, metrics and logs. One instance per request. */
export class RequestState {
  readonly requestId: string;
  readonly dialect: Dialect;
  readonly endpoint: string;
  readonly startedAt = performance.now();
  readonly startedWall = Date.now();
  key: KeyRecord | null = null;
  model = '';
  stream = false;
  deployment: string | null = null;
  attempts = 0;
  status = 0;
  errorCode: string | null = null;
  /** The error message the caller was answered with, masked (failed requests only): the request log's. */
  errorMessage: string | null = null;
  /** Each upstream attempt in order (routing/attempts.ts); null until the first. */
  tried: AttemptTry[] | null = null;
  /** 'panic' when the answer came from a deployment sent to although every one was cooling down. */
  routing: string | null = null;
  /** The agent session (session header or prompt_cache_key), read once the body is parsed; null when none. */
  sessionId: string | null = null;
  usage: Usage = emptyUsage();
  ttfbMs: number | null = null;
  costNanos = 0;
  /** The price of the deployment that answered, when it has its own; else the model's. */
  price: Price | undefined = undefined;
  /** Texts the stages masked (or found in a refused request): the usage row's `redactions`. */
  redactions = 0;
  /** Body logging: the request and the reply as they are kept (masked, cut); null when not logged. */
  requestBody: string | null = null;
  responseBody: string | null = null;
  /** The request's server span when tracing is on. */
  trace: RequestTrace | null = null;

  constructor(opts: { requestId: string; dialect: Dialect; endpoint: string }) {
    this.requestId = opts.requestId;
    this.dialect = opts.dialect;
    this.endpoint = opts.endpoint;
  }

  markFirstByte(): void {
    if (this.ttfbMs === null) this.ttfbMs = Math.round(performance.now() - this.startedAt);
  }

  elapsedMs(): number {
    return Math.round(performance.now() - this.startedAt);
  }
}

/** The request's cost in nano-USD, computed once: the settle and the usage row must agree exactly. */
export function priceRequest(gw: { catalog: Catalog }, state: RequestState): number {
  if (state.costNanos === 0) state.costNanos = costNanos(state.usage, requestPrice(gw, state));
  return state.costNanos;
}

/** What the request is charged at: its deployment's own price, else its model's. */
function requestPrice(gw: { catalog: Catalog }, state: RequestState): Price | null {
  return state.price ?? gw.catalog.get(state.model)?.price ?? null;
}

/**
 * The request's cost as `x-modelgate-cost` says it (USD, decimal), priced from the usage the answer
 * carries: the same number as the row's, since the row is priced from the same usage (priceRequest).
 */
export function costHeader(gw: { catalog: Catalog }, state: RequestState): string {
  state.usage = billableUsage(state.usage);
  return usdText(priceRequest(gw, state));
}

/**
 * `settledPeriod` is the key's budget period the admission store billed, `teamPeriod` its team's (null:
 * the period the request started in).
 */
export function recordRequest(
  gw: RecordServices,
  state: RequestState,
  settledPeriod: number | null = null,
  teamPeriod: number | null = null,
): void {
  const u = state.usage;
  priceRequest(gw, state);
  const latencyMs = state.elapsedMs();
  gw.metrics.observe({
    endpoint: state.endpoint,
    model: modelLabel(gw, state.model),
    status: state.status,
    latencyMs,
    inputTokens: u.inputTokens,
    outputTokens: u.outputTokens,
    cacheReadTokens: u.cacheReadTokens,
    cacheWriteTokens: u.cacheWriteTokens,
    deployment: state.deployment,
    stream: state.stream,
    ttfbMs: state.ttfbMs,
  });
  if (gw.config?.accessLog === true && gw.log !== undefined) accessLine(gw.log, gw, state, latencyMs);
  if (!state.key) return;
  // Every row of a team's key counts to the team's spend, limits or not: a budget set mid-period is
  // loaded from the whole period's rows.
  const team = state.key.teamRecord ?? null;
  gw.usage.add({
    ts: state.startedWall,
    requestId: state.requestId,
    keyId: state.key.id,
    endpoint: state.endpoint,
    model: rowModel(gw, state.model),
    deployment: state.deployment,
    status: state.status,
    inputTokens: u.inputTokens,
    outputTokens: u.outputTokens,
    cacheReadTokens: u.cacheReadTokens,
    cacheWriteTokens: u.cacheWriteTokens,
    costNanos: state.costNanos,
    latencyMs,
    ttfbMs: state.ttfbMs,
    streamed: state.stream,
    attempts: state.attempts,
    periodStart: settledPeriod ?? periodStart(state.key.budgetPeriod, state.startedWall),
    teamId: team === null ? null : team.id,
    teamPeriodStart: team === null ? 0 : (teamPeriod ?? periodStart(team.budgetPeriod, state.startedWall)),
    errorCode: state.errorCode,
    routing: state.routing,
    // Only a charged row has lines to explain; the JSON is the row's one extra allocation.
    costBreakdown: state.costNanos === 0 ? null : breakdownJson(u, requestPrice(gw, state)),
    redactions: state.redactions,
    sessionId: state.sessionId,
    requestBody: state.requestBody,
    responseBody: state.responseBody,
    errorMessage: state.errorMessage,
    attemptLog: state.tried === null ? null : attemptLogJson(state.tried),
  });
}

/** An error message the request log keeps: the caller's, masked again, at most this long. */
const LOGGED_MESSAGE_CHARS = 2000;

/**
 * The message a failed request's caller was answered with, as the request log keeps it (`errorMessage`).
 * Upstream text in it is masked already (upstream-failure.ts); it is masked once more, whole before it is
 * cut, since the log outlives the answer and a message may quote what the caller sent.
 */
export function loggedMessage(masker: Pick<SecretMasker, 'mask'>, message: string): string {
  const masked = masker.mask(message);
  return masked.length > LOGGED_MESSAGE_CHARS ? `${masked.slice(0, LOGGED_MESSAGE_CHARS)}…` : masked;
}

/** The attempts as the request log stores them: the admin API's shape, so a read parses and passes it on. */
function attemptLogJson(tried: readonly AttemptTry[]): string {
  let out = '[';
  for (let i = 0; i < tried.length; i++) {
    const t = tried[i];
    out += `${i === 0 ? '' : ','}{"deployment":${JSON.stringify(t.deployment)},"status":${t.status},"outcome":${JSON.stringify(t.outcome)},"duration_ms":${t.durationMs}}`;
  }
  return `${out}]`;
}

/** The access log's line: who (the masked key), what, how it went, what it cost; never a request's content. */
function accessLine(log: Pick<Logger, 'info'>, gw: { catalog: Catalog }, state: RequestState, latencyMs: number): void {
  const u = state.usage;
  log.info(
    {
      requestId: state.requestId,
      maskedKey: state.key?.masked ?? null,
      keyName: state.key?.name ?? null,
      endpoint: state.endpoint,
      model: rowModel(gw, state.model),
      deployment: state.deployment,
      status: state.status,
      stream: state.stream,
      inputTokens: u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens,
      outputTokens: u.outputTokens,
      costUsd: nanosToUsd(state.costNanos),
      latencyMs,
      ttfbMs: state.ttfbMs,
    },
    'request',
  );
}

/**
 * The metrics label for the model a request named: a configured model's name, or one placeholder. The
 * name is the caller's text until the catalog has found it, and a label per unknown name would let any
 * key grow the metrics without bound (and the scrape with it) by asking for made-up models.
 */
function modelLabel(gw: { catalog: Catalog }, model: string): string {
  if (model === '') return '(none)';
  return gw.catalog.get(model) === undefined ? '(unknown)' : model;
}

/** Longest unknown model name a usage row keeps: enough to see what a client asked for. */
const UNKNOWN_MODEL_CHARS = 100;

/**
 * The model a usage row names. A configured model as it is; a name the catalog does not know is the
 * caller's raw text (up to the body limit), so the row keeps a sanitised head of it: key-shaped text
 * masked (a key pasted into `model`), control characters replaced (they would forge lines in
 * `modelgate usage`), at most UNKNOWN_MODEL_CHARS.
 */
export function rowModel(gw: { catalog: Catalog }, model: string): string {
  if (gw.catalog.get(model) !== undefined) return model;
  // Masked before it is cut, so a key across the cut cannot leave a piece; a key is far shorter than 10×.
  const masked = maskKeyLike(model.slice(0, 10 * UNKNOWN_MODEL_CHARS)).replace(
    /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g,
    '?',
  );
  return masked.length > UNKNOWN_MODEL_CHARS ? `${masked.slice(0, UNKNOWN_MODEL_CHARS)}…` : masked;
}

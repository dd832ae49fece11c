// The routing stage on the request path: asks the AttemptPlan for deployments in turn, sends each
// attempt under its clocks (AttemptWatch), and retries or fails over only before a byte reached the client.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Dialect } from '../core/dialect.ts';
import type { DeploymentConfig, ModelConfig } from '../core/config-types.ts';
import { GatewayError } from '../core/errors.ts';
import type { Usage } from '../core/usage.ts';
import type { UpstreamBody, UpstreamHeaders, UpstreamResponse } from '../spec/upstream.ts';
import { UpstreamBodyTooLarge } from '../providers/upstream-body.ts';
import { AttemptWatch, type ResponseClientLink } from './attempt-watch.ts';
import { classifyError, classifyStatus, isQuotaExhausted } from './classify.ts';
import { maskKey } from '../core/mask-secrets.ts';
import { duration } from './create-routing.ts';
import type { AttemptOutcome } from './outcome.ts';
import { AttemptPlan, type AttemptStep } from './plan.ts';
import type { Exchange } from '../spec/exchange.ts';
import type { ExchangeInput } from '../translate/exchange-for.ts';
import { exchangeFor } from '../translate/exchange-for.ts';
import { providerSpec } from '../registry.ts';
import { fitBetas } from '../spec/betas.ts';
import { callUpstream, header } from '../upstream/http-provider.ts';
import { decodeText } from '../http/content-encoding.ts';
import { upstreamFailure } from '../dialects/upstream-failure.ts';
import { notFoundHint } from '../spec/upstream-error.ts';
import type { AttemptEnd, RequestTrace } from '../observability/tracing.ts';
import type { Logger } from '../observability/logger.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { SecretMasker } from '../core/mask-secrets.ts';
import type { CircuitBreaker } from './circuit-breaker.ts';
import type { KeyRotation } from './key-rotation.ts';

/** What the routing loop uses of the gateway: deployment health, provider keys, and where it reports. */
export interface RoutingServices {
  breaker: CircuitBreaker;
  keyRotation: KeyRotation;
  metrics: Pick<Metrics, 'panicRouted' | 'upstreamError'>;
  log: Logger;
  masker: SecretMasker;
}

/** The request's bookkeeping the loop reads and fills in (accounting's RequestState is one). */
export interface AttemptRecord {
  readonly requestId: string;
  readonly dialect: Dialect;
  /** Monotonic ms (`performance.now()`) the request started at: its deadline counts from it. */
  readonly startedAt: number;
  readonly trace: RequestTrace | null;
  attempts: number;
  routing: string | null;
  deployment: string | null;
  /** The agent session the request belongs to: it keeps to the session's deployment (session.ts). */
  readonly sessionId?: string | null;
  /** Each attempt as the request log shows it, in order; allocated at the first attempt. */
  tried?: AttemptTry[] | null;
}

/** One attempt as the request log records it: where it went, how it ended, how long it took. */
export interface AttemptTry {
  deployment: string;
  /** The upstream's HTTP status; null when none came (a timeout, a refused connection). */
  status: number | null;
  /** `answer`, `status_429`, `timeout`, `connection`, `malformed`, … (as the attempt's trace span says). */
  outcome: string;
  /** From sending the attempt until its answer was committed to (first byte, or whole body) or it failed. */
  durationMs: number;
}

/** What the relay stage gets: an upstream answer that is committed to (its first byte has arrived). */
export interface Answer {
  exchange: Exchange;
  deployment: DeploymentConfig;
  /** Streamed: the upstream body, its first chunk in; the relay pipes it (each chunk restarts the idle clock). */
  body: UpstreamBody;
  /** Non-streamed: the caller's body and usage, built before anything reached the client. */
  json: { body: string; usage: Usage } | null;
  /** The attempt's clocks; the relay disposes of them (or abandons the upstream on failure). */
  watch: AttemptWatch;
  /**
   * A mid-stream failure (not the client leaving) counts against the deployment's health, unless `err`
   * is the gateway's own failure (classifyError says `local`).
   */
  streamFailed(err?: unknown): void;
}

export interface ObtainAnswerOptions {
  gw: RoutingServices;
  state: AttemptRecord;
  model: ModelConfig;
  input: ExchangeInput;
  /** The caller's anthropic-version and -beta (a /v1/messages caller's only). */
  forwardHeaders?: Record<string, string>;
  client: ResponseClientLink;
}

type AttemptResult =
  | { kind: 'answer'; answer: Answer }
  | { kind: 'failed'; outcome: AttemptOutcome; detail: string; text?: string; status?: number }
  | { kind: 'client' }
  | { kind: 'shutdown' };

const NOT_FORWARDED: Record<string, string> = Object.freeze({}) as Record<string, string>;

/**
 * The caller's forwarded headers with `anthropic-beta` fitted to what the deployment's upstream takes
 * (ProviderSpec.betas); what was left out or renamed is said in the exchange's `x-modelgate-adjusted`.
 */
function fittedForward(
  deployment: DeploymentConfig,
  forward: Record<string, string> | undefined,
  exchange: Exchange,
): Record<string, string> {
  if (forward === undefined) return NOT_FORWARDED;
  const beta = forward['anthropic-beta'];
  if (beta === undefined) return forward;
  const rules = providerSpec(deployment.provider).betas?.(deployment.provider, deployment) ?? null;
  if (rules === null) return forward;
  const fitted = fitBetas(rules, beta);
  if (fitted.adjustments.length === 0) return forward;
  const before = exchange.responseHeaders['x-modelgate-adjusted'];
  exchange.responseHeaders['x-modelgate-adjusted'] = [
    ...(before === undefined ? [] : [before]),
    ...fitted.adjustments,
  ].join('; ');
  const out = { ...forward };
  if (fitted.value === undefined) delete out['anthropic-beta'];
  else out['anthropic-beta'] = fitted.value;
  return out;
}

/** Upstream error text kept in the caller's message: enough to act on, never a whole page. */
const MAX_UPSTREAM_TEXT = 300;

export async function obtainAnswer(opts: ObtainAnswerOptions): Promise<Answer> {
  const { gw, state, model, client } = opts;
  const plan = new AttemptPlan({
    model,
    breaker: gw.breaker,
    keys: gw.keyRotation,
    startedAt: state.startedAt,
    session: state.sessionId,
  });
  let lastText = '';
  for (;;) {
    const step = plan.next();
    if (step.done) throw finalFailure({ plan, lastText, gw, dialect: state.dialect });
    if (step.delayMs > 0) await sleep(step.delayMs, undefined, { signal: client.signal }).catch(() => undefined);
    if (client.aborted) throw clientGone(plan);
    let exchange: Exchange;
    try {
      exchange = exchangeFor(opts.input, step.deployment);
      // What was kept for the caller's tool calls is read before the body is built (translated routes only).
      if (exchange.prepare !== undefined) await exchange.prepare();
    } catch (err) {
      // A route this build cannot translate is the operator's config, not the deployment's health.
      plan.cancel();
      throw err;
    }
    state.attempts = step.attempt;
    if (step.panic === true) {
      // Said to the caller and in /metrics: the answer comes from a deployment the breaker had taken out.
      gw.metrics.panicRouted(model.name);
      state.routing = 'panic';
      exchange.responseHeaders['x-modelgate-routing'] =
        `panic: every deployment of the model was cooling down; tried ${step.deployment.id}, the soonest to recover`;
    }
    const span =
      state.trace === null ? null : state.trace.startAttempt({ deployment: step.deployment, attempt: step.attempt });
    const sentAt = performance.now();
    const once = { opts, step, exchange, deadline: plan.deadline, traceHeaders: span === null ? null : span.headers };
    let result = await attempt(once);
    // A passed-through body holding reasoning the gateway carried for another provider is refused by the
    // upstream: sent once more without it. Looked for only after such a refusal, never on the way out.
    if (result.kind === 'failed' && result.status === 400 && exchange.withoutCarriedReasoning?.() === true)
      result = await attempt(once);
    const end = attemptEnd(result);
    if (span !== null) span.end(end);
    (state.tried ??= []).push({
      deployment: step.deployment.id,
      status: end.kind === 'stopped' ? null : (end.status ?? null),
      outcome: end.kind === 'answer' ? 'answer' : end.kind === 'failed' ? end.outcome : end.reason,
      durationMs: Math.round(performance.now() - sentAt),
    });
    if (result.kind === 'client') throw clientGone(plan);
    if (result.kind === 'shutdown') {
      plan.cancel();
      throw new GatewayError('shutting_down');
    }
    if (step.apiKey !== null) keyAnswered(gw, step, result);
    if (result.kind === 'answer') {
      plan.record(step.deployment.id, { kind: 'success' });
      state.deployment = step.deployment.id;
      return result.answer;
    }
    noteFailure({ gw, state, step, result });
    plan.record(step.deployment.id, result.outcome);
    lastText = result.text ?? '';
    if (result.outcome.kind === 'fatal') {
      state.deployment = step.deployment.id;
      if (result.status !== undefined && result.status < 500) {
        throw upstreamFailure({
          status: result.status,
          text: lastText,
          upstreamDialect: exchange.upstreamDialect,
          clientDialect: state.dialect,
          masker: gw.masker,
          readError: providerSpec(step.deployment.provider).readError,
        });
      }
      throw finalFailure({ plan, lastText, gw, dialect: state.dialect });
    }
  }
}

/** One attempt, start to commitment: headers, then the first body chunk (streamed) or the whole body. */
async function attempt(a: {
  opts: ObtainAnswerOptions;
  step: AttemptStep;
  exchange: Exchange;
  deadline: number;
  traceHeaders: Readonly<Record<string, string>> | null;
}): Promise<AttemptResult> {
  const { opts, step, exchange } = a;
  const { timeouts } = opts.model;
  const watch = new AttemptWatch({
    client: opts.client,
    firstByteMs: timeouts.firstByteMs,
    idleMs: timeouts.idleMs,
    deadline: a.deadline,
  });
  let body: string | Buffer;
  try {
    body = exchange.upstreamBody();
  } catch (err) {
    // Building the body is the gateway's work: whatever fails here is not the deployment's.
    watch.dispose();
    return { kind: 'failed', outcome: { kind: 'local' }, detail: opts.gw.masker.mask(describe(err)) };
  }
  let response: UpstreamResponse;
  try {
    response = await callUpstream(
      {
        deployment: step.deployment,
        query: exchange.upstreamQuery,
        body,
        // The caller's anthropic-version and -beta describe its own body: they go only where it passes through.
        forwardHeaders:
          exchange.upstreamDialect === opts.input.dialect
            ? fittedForward(step.deployment, opts.forwardHeaders, exchange)
            : NOT_FORWARDED,
        apiKey: step.apiKey,
        stop: watch,
        traceHeaders: a.traceHeaders,
      },
      timeouts.connectMs,
    );
  } catch (err) {
    return stopped(watch, err, opts.gw);
  }
  try {
    if (response.status < 200 || response.status >= 300) {
      const text = await errorText(response);
      watch.dispose();
      const outcome: AttemptOutcome = isQuotaExhausted(response.status, text)
        ? { kind: 'credentials', status: 429 }
        : classifyStatus(response.status, response.headers);
      return { kind: 'failed', outcome, detail: `status ${response.status}`, text, status: response.status };
    }
    const unusable = unusableAnswer(response.headers, opts.input.facts.stream);
    if (unusable !== null) {
      watch.abandon();
      return { kind: 'failed', outcome: { kind: 'retryable', malformed: true }, detail: unusable };
    }
    if (opts.input.facts.stream) {
      if (!(await response.body.started())) {
        watch.abandon();
        return { kind: 'failed', outcome: { kind: 'retryable', malformed: true }, detail: 'empty 2xx stream' };
      }
      watch.chunk();
      const answer: Answer = {
        exchange,
        deployment: step.deployment,
        body: response.body,
        json: null,
        watch,
        streamFailed: (err) => streamFailed(opts.gw, step.deployment.id, err),
      };
      return { kind: 'answer', answer };
    }
    // The first-byte/deadline clock stays armed until the whole body is in: a body that stalls halfway
    // is stopped by it (undici's own socket timers are off, http-provider.ts).
    const text = await response.body.text();
    watch.dispose();
    let json: { body: string; usage: Usage };
    try {
      json = exchange.json(text);
    } catch (err) {
      if (!(err instanceof GatewayError)) throw err;
      return { kind: 'failed', outcome: { kind: 'retryable', malformed: true }, detail: err.message };
    }
    const answer: Answer = {
      exchange,
      deployment: step.deployment,
      body: response.body,
      json,
      watch,
      streamFailed: () => undefined,
    };
    return { kind: 'answer', answer };
  } catch (err) {
    return stopped(watch, err, opts.gw);
  }
}

/**
 * Why a 2xx cannot be relayed, or null: a body encoded although identity was asked for (it would reach
 * the client as compressed bytes and hide its usage), or a streamed request answered with a whole JSON
 * body or a page (an upstream or proxy that ignores `stream`). Both are the deployment's fault, and
 * another may answer properly.
 */
function unusableAnswer(headers: UpstreamHeaders, stream: boolean): string | null {
  const encoding = header(headers, 'content-encoding');
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity' && encoding.trim() !== '') {
    return `the upstream answered with content-encoding ${encoding}, which was not asked for`;
  }
  if (!stream) return null;
  const type = header(headers, 'content-type')?.toLowerCase() ?? '';
  if (type.startsWith('application/json') || type.startsWith('text/html'))
    return `the upstream answered a streamed request with ${type.split(';')[0]}, not an event stream`;
  return null;
}

/** Error bodies past this once decoded are not worth reading: the caller sees 2,000 characters of it. */
const ERROR_TEXT_LIMIT_BYTES = 1024 * 1024;

/** A non-2xx body as text, decoded if a proxy compressed it although identity was asked for. */
async function errorText(response: UpstreamResponse): Promise<string> {
  const encoding = header(response.headers, 'content-encoding')?.trim();
  if (encoding === undefined || encoding === '' || encoding.toLowerCase() === 'identity') return response.body.text();
  const decoded = await decodeText(await response.body.bytes(), encoding, ERROR_TEXT_LIMIT_BYTES);
  return decoded ?? `The upstream's error body was sent with content-encoding ${encoding} and could not be decoded.`;
}

function streamFailed(gw: RoutingServices, deploymentId: string, err: unknown): void {
  if (err === undefined || err instanceof GatewayError || classifyError(err).kind !== 'local')
    gw.breaker.onFailure(deploymentId, 'stream failed');
}

/** An attempt that threw: the client left, a clock fired, or the upstream call failed. */
function stopped(watch: AttemptWatch, err: unknown, gw: RoutingServices): AttemptResult {
  watch.abandon();
  if (watch.reason === 'client') return { kind: 'client' };
  if (watch.reason === 'shutdown') return { kind: 'shutdown' };
  if (watch.timedOut)
    return { kind: 'failed', outcome: { kind: 'retryable', timeout: true }, detail: `${watch.reason} timeout` };
  // A runaway body is the deployment's fault, and another deployment may answer sanely.
  if (err instanceof UpstreamBodyTooLarge)
    return { kind: 'failed', outcome: { kind: 'retryable', malformed: true }, detail: err.message };
  const outcome = classifyError(err);
  return { kind: 'failed', outcome, detail: gw.masker.mask(describe(err)) };
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? `${code}: ${err.message}` : err.message;
}

/** An attempt's result as its span records it. */
function attemptEnd(result: AttemptResult): AttemptEnd {
  switch (result.kind) {
    case 'answer':
      return { kind: 'answer', status: 200 };
    case 'failed':
      return {
        kind: 'failed',
        status: result.status,
        outcome: outcomeLabel(result.outcome, result.status),
        detail: result.detail,
      };
    case 'client':
      return { kind: 'stopped', reason: 'client_disconnected' };
    default:
      return { kind: 'stopped', reason: 'shutting_down' };
  }
}

function outcomeLabel(outcome: AttemptOutcome, status: number | undefined): string {
  if (status !== undefined) return `status_${status}`;
  if (outcome.kind === 'retryable') return outcome.timeout ? 'timeout' : outcome.malformed ? 'malformed' : 'connection';
  return outcome.kind;
}

/** Every failed attempt is visible: a warning, a metric, and for refused credentials one loud error per key. */
function noteFailure(n: {
  gw: RoutingServices;
  state: AttemptRecord;
  step: AttemptStep;
  result: Extract<AttemptResult, { kind: 'failed' }>;
}): void {
  const { gw, step, result } = n;
  const deployment = step.deployment.id;
  const fields = {
    requestId: n.state.requestId,
    deployment,
    attempt: step.attempt,
    outcome: result.outcome.kind,
    detail: result.detail,
  };
  if (result.outcome.kind === 'local') {
    if (result.outcome.descriptors === true)
      gw.log.warn(
        fields,
        'no file descriptor for an upstream connection: the request is refused with 503 (descriptor budget, docs/operations.md)',
      );
    else
      gw.log.error(
        fields,
        'the gateway failed while sending the request upstream (not counted against the deployment)',
      );
    return;
  }
  gw.metrics.upstreamError(deployment, outcomeLabel(result.outcome, result.status));
  if (result.outcome.kind === 'credentials' && step.apiKey !== null) {
    const provider = step.deployment.provider.name;
    if (!gw.keyRotation.isRejected(provider, step.apiKey)) {
      const why =
        result.status === 429
          ? "the provider account behind the gateway's key is out of quota"
          : "upstream refused the gateway's key";
      gw.log.error(
        { ...fields, provider, maskedKey: maskKey(step.apiKey) },
        `${why} for provider '${provider}': key taken out of rotation, tried again in ${duration(gw.keyRotation.firstRetryMs)} (the wait doubling while it is refused) and put back when it works`,
      );
      return;
    }
  }
  const hint = result.status === 404 ? notFoundHint(404, result.text ?? '') : null;
  gw.log.warn(hint === null ? fields : { ...fields, hint }, 'upstream attempt failed');
}

/** Any answer but a 401 shows the key works: a refused key that was re-probed is back in rotation, said once. */
function keyAnswered(gw: RoutingServices, step: AttemptStep, result: AttemptResult): void {
  const answered =
    result.kind === 'answer' ||
    (result.kind === 'failed' && result.status !== undefined && result.outcome.kind !== 'credentials');
  const provider = step.deployment.provider.name;
  if (answered && gw.keyRotation.accepted(provider, step.apiKey!)) {
    gw.log.info(
      { provider, maskedKey: maskKey(step.apiKey!) },
      `provider '${provider}' accepts the gateway's key again: back in rotation`,
    );
  }
}

function clientGone(plan: AttemptPlan): GatewayError {
  plan.cancel();
  return new GatewayError('upstream_error', { status: 499, message: plan.finalError().message });
}

function finalFailure(f: { plan: AttemptPlan; lastText: string; gw: RoutingServices; dialect: Dialect }): GatewayError {
  const fe = f.plan.finalError();
  const headers: Record<string, string> = {};
  if (fe.retryAfterMs !== undefined) {
    // Both: seconds for everyone, and the exact wait for the SDKs, which read retry-after-ms first.
    headers['retry-after'] = String(Math.max(1, Math.ceil(fe.retryAfterMs / 1000)));
    headers['retry-after-ms'] = String(Math.max(0, Math.round(fe.retryAfterMs)));
  }
  if (fe.noRetry === true) headers['x-should-retry'] = 'false';
  const upstream = readUpstreamText(f.lastText, f.gw);
  const message = upstream === '' ? fe.message : `${fe.message} Upstream said: ${upstream}`;
  const upstreamType = fe.overloaded === true && f.dialect === 'anthropic' ? 'overloaded_error' : undefined;
  return new GatewayError(fe.code, { status: fe.status, message, headers, upstreamType });
}

function readUpstreamText(text: string, gw: RoutingServices): string {
  // Masked whole before anything is cut: a key across the cut would otherwise leave all but its end.
  const trimmed = gw.masker.maskErrorBody(text.trim());
  if (trimmed === '') return '';
  let message = trimmed;
  try {
    const v = JSON.parse(trimmed) as { error?: { message?: unknown } };
    if (typeof v.error?.message === 'string') message = v.error.message;
  } catch {
    // not JSON: keep the raw text
  }
  return message.slice(0, MAX_UPSTREAM_TEXT);
}

/** After the first byte the status line is gone: the failure becomes an in-stream error event. */
export function streamFailure(err: unknown, stoppedBy: string | null): GatewayError {
  if (stoppedBy === 'idle')
    return new GatewayError('upstream_timeout', {
      message: 'The upstream stream stalled: no data within the idle timeout.',
    });
  if (stoppedBy === 'total')
    return new GatewayError('upstream_timeout', {
      message: 'The request reached its deadline while the upstream was still streaming.',
    });
  if (stoppedBy === 'shutdown')
    return new GatewayError('shutting_down', {
      message: 'The gateway is shutting down; the stream was cut before it was complete.',
    });
  if (err instanceof GatewayError) return err;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && code.includes('TIMEOUT'))
    return new GatewayError('upstream_timeout', { message: 'The upstream stream stalled and timed out.' });
  return new GatewayError('upstream_error', { message: 'The upstream stream failed before it was complete.' });
}

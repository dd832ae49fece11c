// POST /v1/chat/completions, /v1/messages, /v1/embeddings and Gemini's generateContent: auth → body → validation → catalog → admission →
// routing/attempts → relay → accounting. Each stage is a named function in its own file.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Dialect } from '../core/dialect.ts';
import { billableUsage } from '../core/usage.ts';
import { GatewayError } from '../core/errors.ts';
import { validateChatRequest } from '../dialects/openai-chat/validate.ts';
import { validateMessagesRequest } from '../dialects/anthropic-messages/validate.ts';
import { validateResponsesRequest } from '../dialects/openai-responses/validate.ts';
import { prepareResponsesTurn, storeResponsesTurn, type ResponsesTurn } from './responses-turn.ts';
import type { RequestFacts } from '../dialects/request-facts.ts';
import { answeredOrGone, readBody, parseJsonBody } from '../http/body.ts';
import { estimateEmbeddingTokens, estimatePromptTokens } from '../admission/estimate-tokens.ts';
import { validateEmbeddingsRequest } from '../dialects/embeddings/validate.ts';
import { validateGeminiRequest } from '../dialects/gemini/validate.ts';
import { queryAlt, type GeminiCall } from '../http/gemini-routes.ts';
import { sendError } from '../http/respond.ts';
import { authenticate, authenticateGemini } from './authenticate.ts';
import { checkAnthropicVersion, type AnthropicVersion } from '../dialects/anthropic-messages/version.ts';
import { resolveModel } from './resolve-model.ts';
import { obtainAnswer, type Answer } from './attempts.ts';
import type { Gateway } from './gateway.ts';
import { RequestState } from './request-state.ts';
import { ResponseClientLink } from './client-link.ts';
import { StreamWriter } from '../http/stream-writer.ts';
import { StreamKeepAlive } from '../http/stream-keep-alive.ts';
import { renderStreamError } from '../dialects/render-error.ts';
import { priceRequest, recordRequest, rowModel } from './record.ts';
import type { Ticket } from './admit.ts';
import type { KeyRecord } from '../core/key-record.ts';
import type { RequestTrace } from '../observability/tracing.ts';

const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' };

/** One request in flight: its bookkeeping and, once admitted, the reservation to settle. */
interface Flight {
  state: RequestState;
  ticket: Ticket | null;
  /** Admission ran (admitted or refused), so an error already carries its rate headers. */
  admissionRan: boolean;
  /** Keep-alive comments sent the stream's headers before its first byte (stream-keep-alive.ts). */
  keptAlive: boolean;
  endpoint: GenerationEndpoint;
}

export interface GenerationEndpoint {
  dialect: Dialect;
  requestId: string;
  /** The endpoint as usage rows and metrics name it (a template for Gemini's paths, never the URL). */
  endpoint: string;
  /** POST /v1/embeddings: an embedding model, its input priced as prompt tokens, no output. */
  embedding?: boolean;
  /** A Gemini path: the model and the method come from it. */
  gemini?: GeminiCall;
}

export async function handleGeneration(gw: Gateway, req: IncomingMessage, res: ServerResponse, opts: GenerationEndpoint): Promise<void> {
  const state = new RequestState(opts);
  const flight: Flight = { state, ticket: null, admissionRan: false, keptAlive: false, endpoint: opts };
  // A client that leaves stops the upstream at once: no orphaned upstream streams.
  const client = new ResponseClientLink(res);
  if (gw.tracing !== null) state.trace = gw.tracing.startRequest({ method: req.method ?? 'POST', endpoint: opts.endpoint, requestId: opts.requestId, headers: req.headers });
  gw.metrics.inFlight++;
  try {
    await serve(gw, req, res, flight, client);
  } catch (err) {
    if (err instanceof GatewayError && answeredOrGone(err)) {
      // The body never came whole: the client left (499), or Node has answered it (408, 400).
      state.status = err.status;
      state.errorCode = err.code;
      return;
    }
    if (client.aborted) {
      // The client left: nobody to answer, nothing for the operator to fix, and the row says so the same
      // way before and after the first byte.
      state.status = 499;
      state.errorCode = 'client_disconnected';
      return;
    }
    const gerr = toGatewayError(err, gw);
    state.status = state.status || gerr.status;
    state.errorCode = gerr.code;
    if (!res.headersSent) {
      state.status = gerr.status;
      const headers = await rateHeaders(gw, flight);
      sendError(res, { dialect: opts.dialect, error: gerr, requestId: opts.requestId, headers });
    } else if (flight.keptAlive && !res.writableEnded) {
      // Only keep-alive comments went out: the failure is the stream's one error event in its dialect.
      res.end(renderStreamError(opts.dialect, gerr, opts.requestId));
    } else if (!res.writableEnded) {
      res.end();
    }
    // A store outage is logged once when it starts and once when it ends (serve-command.ts), not per request.
    if (gerr.status >= 500 && gerr.code !== 'admission_unavailable') gw.log.warn({ requestId: opts.requestId, code: gerr.code, status: gerr.status, reason: gerr.message }, 'request failed');
    else if (gerr.status < 500 && gw.log.isLevelEnabled('debug')) gw.log.debug({ requestId: opts.requestId, code: gerr.code, status: gerr.status, model: rowModel(gw, state.model), reason: gw.masker.mask(gerr.message) }, 'request refused');
  } finally {
    // Settle before the row is queued: the row must carry the cost the store settled, and the period
    // the reservation belonged to. The upstream's counts are clamped first: they are its word, not ours.
    // In flight until the row is queued: a clean stop waits for that before its last flush.
    try {
      state.usage = billableUsage(state.usage);
      const cost = priceRequest(gw, state);
      let period = flight.ticket === null ? null : gw.admission.finish(flight.ticket, state.usage, cost);
      if (period instanceof Promise) period = await period;
      recordRequest(gw, state, period);
      if (state.trace !== null) endTrace(gw, state, state.trace);
    } finally {
      gw.metrics.inFlight--;
    }
  }
}

function endTrace(gw: Gateway, state: RequestState, trace: RequestTrace): void {
  trace.end({ model: rowModel(gw, state.model), stream: state.stream, status: state.status, errorCode: state.errorCode, deployment: state.deployment, usage: state.usage, ttfbMs: state.ttfbMs, attempts: state.attempts });
}

/** Every response of the generation endpoints carries the key's rate headers, errors included. */
async function rateHeaders(gw: Gateway, flight: Flight): Promise<Readonly<Record<string, string>> | undefined> {
  if (flight.ticket !== null) return flight.ticket.headers;
  if (flight.admissionRan || flight.state.key === null) return undefined;
  return gw.admission.headersFor(flight.state.key, Date.now());
}

function toGatewayError(err: unknown, gw: Gateway): GatewayError {
  if (err instanceof GatewayError) return err;
  gw.log.error({ err: gw.masker.mask(err instanceof Error ? (err.stack ?? err.message) : String(err)) }, 'unexpected error');
  return new GatewayError('internal_error');
}

async function serve(gw: Gateway, req: IncomingMessage, res: ServerResponse, flight: Flight, client: ResponseClientLink): Promise<void> {
  const { state } = flight;
  const { embedding, gemini } = flight.endpoint;
  const authenticated = gemini === undefined ? authenticate(req.headers, gw.keys, state.startedWall, req.socket) : authenticateGemini(req.headers, req.url, gw.keys, state.startedWall, req.socket);
  const key = authenticated instanceof Promise ? await authenticated : authenticated;
  state.key = key;
  const version = state.dialect === 'anthropic' ? checkAnthropicVersion(req.headers) : null;
  // A compressed body costs memory to decode: a key that may use no model here, or whose rate window is
  // already full, is refused first.
  if (req.headers['content-encoding'] !== undefined) {
    refuseBeforeDecoding(gw, key, { dialect: state.dialect, endpoint: state.endpoint, gemini, embedding });
    await gw.admission.refuseIfFull(key, Date.now());
  }
  let raw = await readBody(req, gw.bodyLimits);
  let { text, value } = parseJsonBody(raw);
  // A request refused by validation still names its model in the usage row, metrics and logs.
  const named = (value as { model?: unknown } | null)?.model;
  if (typeof named === 'string') state.model = named;
  const responsesFacts = state.dialect === 'responses' ? validateResponsesRequest(value) : null;
  const facts: RequestFacts = responsesFacts ?? validated(value, { endpoint: flight.endpoint, url: req.url, version });
  state.model = facts.model;
  state.stream = facts.stream;
  let model = resolveModel(gw.catalog, key, facts.model, state.dialect, embedding === true ? 'embedding' : 'chat');
  let parsed = value as Record<string, unknown>;
  let turn: ResponsesTurn | null = null;
  if (responsesFacts !== null) {
    // A continued conversation: its stored items, and the deployment a native chain stays on.
    const prepared = await prepareResponsesTurn(gw, { key, facts: responsesFacts, parsed, model, now: state.startedWall });
    turn = prepared.turn;
    model = prepared.model;
    if (prepared.body !== null) {
      parsed = value = prepared.body;
      text = JSON.stringify(parsed);
      raw = Buffer.from(text);
    }
  }
  flight.admissionRan = true;
  // The in-process store answers synchronously: await only a shared store's answer.
  const admitting = gw.admission.admit({ key, model, body: parsed, bodyBytes: raw.length, now: Date.now(), dialect: state.dialect, embedding });
  const admitted = admitting instanceof Promise ? await admitting : admitting;
  flight.ticket = admitted.ticket;
  // The tokenizer runs only when something needs the prompt size: admission did already, or a
  // translated Anthropic stream's message_start, or the bill of a stream cut before its usage arrived.
  let known = admitted.promptTokens;
  const estimate = embedding === true ? (body: Record<string, unknown>, o: { model: string }) => estimateEmbeddingTokens(body.input, o) : estimatePromptTokens;
  const promptEstimate = (): number => (known > 0 ? known : (known = Math.max(1, estimate(parsed, { model: model.deployments[0]?.model ?? model.name }))));

  // A streaming client hears from the gateway while the upstream is silent (stream-keep-alive.ts).
  const keepAlive = facts.stream && gw.config.streamKeepAliveMs > 0 ? keepAliveFor(res, flight, gw.config.streamKeepAliveMs) : null;
  let answer: Answer;
  try {
    answer = await obtainAnswer({
      gw,
      state,
      model,
      input: { dialect: state.dialect, raw, text, parsed, facts, promptEstimate, defaultMaxTokens: gw.config.defaultMaxTokens, outputCap: admitted.outputCap, masker: gw.masker, embedding, geminiVersion: gemini?.version },
      forwardHeaders: forwardHeaders(req),
      client,
    });
  } finally {
    if (keepAlive !== null) {
      keepAlive.stop();
      flight.keptAlive = keepAlive.sent;
    }
  }
  state.deployment = answer.deployment.id;
  const answered = facts.stream ? await relayStream(res, flight, answer) : relayJson(res, flight, answer);
  if (turn !== null && answered !== null) {
    // The caller has its answer: a store that fails now costs the conversation's next turn, not this one.
    await storeResponsesTurn(gw, { turn, responseText: answered, deployment: answer.deployment, now: Date.now() }).catch((err: unknown) => {
      gw.log.warn({ requestId: state.requestId, err: gw.masker.mask(String(err)) }, 'could not store the response: previous_response_id will not find it');
    });
  }
}

/**
 * A key with no model it may use on this endpoint gets its 403 before its body is decoded (issue 39); on a
 * Gemini path the model is in the URL, so that model is checked as the catalog stage will.
 */
function refuseBeforeDecoding(gw: Gateway, key: KeyRecord, at: { dialect: Dialect; endpoint: string; gemini: GeminiCall | undefined; embedding: boolean | undefined }): void {
  if (at.gemini?.model) {
    resolveModel(gw.catalog, key, at.gemini.model, at.dialect, at.embedding === true ? 'embedding' : 'chat');
    return;
  }
  // Only /v1/messages narrows the models by family; every other endpoint takes any model of the key.
  const usable = gw.catalog.listFor(key).some((m) => at.dialect !== 'anthropic' || m.family === 'anthropic');
  if (!usable) throw new GatewayError('model_not_allowed', { message: `This API key may not use any model served on ${at.endpoint}.` });
}

function keepAliveFor(res: ServerResponse, flight: Flight, intervalMs: number): StreamKeepAlive {
  const { requestId } = flight.state;
  return new StreamKeepAlive({ res, intervalMs, headers: () => ({ ...SSE_HEADERS, 'x-request-id': requestId, 'request-id': requestId, ...flight.ticket?.headers }) });
}

/** The request's facts, by endpoint: chat, messages, embeddings or Gemini's generateContent. */
function validated(value: unknown, at: { endpoint: GenerationEndpoint; url: string | undefined; version: AnthropicVersion | null }): RequestFacts {
  const { endpoint, url, version } = at;
  if (endpoint.embedding === true) return validateEmbeddingsRequest(value);
  const { gemini } = endpoint;
  if (gemini !== undefined) {
    const stream = gemini.method === 'streamGenerateContent';
    // Without alt=sse Gemini streams one JSON array: every client in use asks for SSE.
    if (stream && queryAlt(url) !== 'sse') throw new GatewayError('invalid_request', { message: 'streamGenerateContent is served as server-sent events: add ?alt=sse to the URL.', param: 'alt' });
    return validateGeminiRequest(value, { model: gemini.model ?? '', stream });
  }
  return version === null ? validateChatRequest(value) : validateMessagesRequest(value, version);
}

const NO_FORWARDED: Record<string, string> = Object.freeze({}) as Record<string, string>;

function forwardHeaders(req: IncomingMessage): Record<string, string> {
  // OpenAI-style callers send neither header: no object per request for them.
  if (req.headers['anthropic-version'] === undefined && req.headers['anthropic-beta'] === undefined) return NO_FORWARDED;
  const out: Record<string, string> = {};
  const v = req.headers['anthropic-version'];
  if (typeof v === 'string') out['anthropic-version'] = v;
  const b = req.headers['anthropic-beta'];
  if (typeof b === 'string') out['anthropic-beta'] = b;
  return out;
}

/** Relays a whole answer; returns the body sent. */
function relayJson(res: ServerResponse, flight: Flight, answer: Answer): string {
  const { state } = flight;
  // Routing read and converted the whole body before committing, so a bad 200 could still fail over.
  if (answer.json === null) throw new GatewayError('internal_error', { message: 'A non-streamed answer arrived without its body.' });
  const { body, usage } = answer.json;
  state.usage = usage;
  state.status = 200;
  state.markFirstByte();
  res.writeHead(200, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'x-request-id': state.requestId,
    'request-id': state.requestId,
    ...answer.exchange.responseHeaders,
    ...flight.ticket?.headers,
  });
  res.end(body);
  return body;
}

/** Relays a stream; returns the Responses API response object it ended with, when there is one. */
async function relayStream(res: ServerResponse, flight: Flight, answer: Answer): Promise<string | null> {
  const { state } = flight;
  const relay = answer.exchange.stream();
  state.status = 200;
  // Keep-alive comments may have sent the headers already (without the exchange's own, which came later).
  if (!res.headersSent) res.writeHead(200, { ...SSE_HEADERS, 'x-request-id': state.requestId, 'request-id': state.requestId, ...answer.exchange.responseHeaders, ...flight.ticket?.headers });
  // Headers go out with the first body bytes, so time to first byte is the first write below.
  // Chunks arrive synchronously from the upstream's parser; a full client socket pauses the upstream,
  // and while it is paused for the client its silence does not count as idle.
  const { watch } = answer;
  const writer = new StreamWriter(res, () => {
    watch.release();
    answer.body.resume();
  });
  try {
    await answer.body.pipe(
      (chunk) => {
        watch.chunk();
        const out = relay.push(chunk);
        if (out.length === 0) return true;
        state.markFirstByte();
        if (writer.write(out)) return true;
        watch.hold();
        return false;
      },
      // Synchronous with the last chunk: the stream's end goes out in the same write as its last event.
      () => {
        const tail = relay.end();
        if (!relay.finished) throw new GatewayError('upstream_error', { message: 'The upstream stream ended before it was complete.' });
        state.markFirstByte();
        writer.end(tail);
      },
    );
  } catch (err) {
    // Whatever broke, the upstream is let go of now: no orphaned upstream stream.
    answer.watch.abandon();
    state.usage = relay.usage();
    if (answer.watch.reason === 'client' || res.destroyed || res.writableEnded) {
      state.errorCode = 'client_disconnected';
      state.status = 499;
      return null;
    }
    // A stream the gateway itself stopped (shutting down) says nothing about the deployment's health.
    if (answer.watch.reason !== 'shutdown') answer.streamFailed(answer.watch.reason === null ? err : undefined);
    const gerr = streamFailure(err, answer.watch.reason);
    state.errorCode = gerr.code;
    state.status = gerr.status;
    writer.end(relay.errorEvent(gerr, state.requestId));
    return null;
  } finally {
    writer.dispose();
    answer.watch.dispose();
  }
  state.usage = relay.usage();
  if (relay.failed) {
    // The relay ended the stream with its own error event: the row and the deployment's health say so.
    answer.streamFailed();
    state.status = 502;
    state.errorCode = 'upstream_error';
    return null;
  }
  return relay.finalResponse?.() ?? null;
}

/** After the first byte the status line is gone: the failure becomes an in-stream error event. */
function streamFailure(err: unknown, stoppedBy: string | null): GatewayError {
  if (stoppedBy === 'idle') return new GatewayError('upstream_timeout', { message: 'The upstream stream stalled: no data within the idle timeout.' });
  if (stoppedBy === 'total') return new GatewayError('upstream_timeout', { message: 'The request reached its deadline while the upstream was still streaming.' });
  if (stoppedBy === 'shutdown') return new GatewayError('shutting_down', { message: 'The gateway is shutting down; the stream was cut before it was complete.' });
  if (err instanceof GatewayError) return err;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && code.includes('TIMEOUT')) return new GatewayError('upstream_timeout', { message: 'The upstream stream stalled and timed out.' });
  return new GatewayError('upstream_error', { message: 'The upstream stream failed before it was complete.' });
}

// POST /v1/chat/completions and POST /v1/messages: auth → body → validation → catalog → admission →
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
import { estimatePromptTokens } from '../admission/estimate-tokens.ts';
import { sendError } from '../http/respond.ts';
import { authenticateFresh } from './authenticate.ts';
import { checkAnthropicVersion } from '../dialects/anthropic-messages/version.ts';
import { resolveModel } from './resolve-model.ts';
import { obtainAnswer, type Answer } from './attempts.ts';
import type { Gateway } from './gateway.ts';
import { RequestState } from './request-state.ts';
import { ResponseClientLink } from './client-link.ts';
import { StreamWriter } from '../http/stream-writer.ts';
import { priceRequest, recordRequest, rowModel } from './record.ts';
import type { Ticket } from './admit.ts';
import type { RequestTrace } from '../observability/tracing.ts';

const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' };

/** One request in flight: its bookkeeping and, once admitted, the reservation to settle. */
interface Flight {
  state: RequestState;
  ticket: Ticket | null;
  /** Admission ran (admitted or refused), so an error already carries its rate headers. */
  admissionRan: boolean;
}

export async function handleGeneration(gw: Gateway, req: IncomingMessage, res: ServerResponse, opts: { dialect: Dialect; requestId: string; endpoint: string }): Promise<void> {
  const state = new RequestState(opts);
  const flight: Flight = { state, ticket: null, admissionRan: false };
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
    } else if (!res.writableEnded) {
      res.end();
    }
    if (gerr.status >= 500) gw.log.warn({ requestId: opts.requestId, code: gerr.code, status: gerr.status, reason: gerr.message }, 'request failed');
    else if (gw.log.isLevelEnabled('debug')) gw.log.debug({ requestId: opts.requestId, code: gerr.code, status: gerr.status, model: rowModel(gw, state.model), reason: gw.masker.mask(gerr.message) }, 'request refused');
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
  let key = authenticateFresh(req.headers, gw.keys, state.startedWall, req.socket);
  if (key instanceof Promise) key = await key;
  state.key = key;
  const version = state.dialect === 'anthropic' ? checkAnthropicVersion(req.headers) : null;
  let raw = await readBody(req, gw.config.bodyLimitBytes);
  let { text, value } = parseJsonBody(raw);
  // A request refused by validation still names its model in the usage row, metrics and logs.
  const named = (value as { model?: unknown } | null)?.model;
  if (typeof named === 'string') state.model = named;
  const responsesFacts = state.dialect === 'responses' ? validateResponsesRequest(value) : null;
  const facts: RequestFacts = responsesFacts ?? (version === null ? validateChatRequest(value) : validateMessagesRequest(value, version));
  state.model = facts.model;
  state.stream = facts.stream;
  let model = resolveModel(gw.catalog, key, facts.model, state.dialect);
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
  const admitting = gw.admission.admit({ key, model, body: parsed, bodyBytes: raw.length, now: Date.now(), dialect: state.dialect });
  const admitted = admitting instanceof Promise ? await admitting : admitting;
  flight.ticket = admitted.ticket;
  // The tokenizer runs only when something needs the prompt size: admission did already, or a
  // translated Anthropic stream's message_start, or the bill of a stream cut before its usage arrived.
  let known = admitted.promptTokens;
  const promptEstimate = (): number => (known > 0 ? known : (known = Math.max(1, estimatePromptTokens(parsed, { model: model.deployments[0]?.model ?? model.name }))));

  const answer = await obtainAnswer({
    gw,
    state,
    model,
    input: { dialect: state.dialect, raw, text, parsed, facts, promptEstimate, defaultMaxTokens: gw.config.defaultMaxTokens, outputCap: admitted.outputCap, masker: gw.masker },
    forwardHeaders: forwardHeaders(req),
    client,
  });
  state.deployment = answer.deployment.id;
  const answered = facts.stream ? await relayStream(res, flight, answer) : relayJson(res, flight, answer);
  if (turn !== null && answered !== null) {
    // The caller has its answer: a store that fails now costs the conversation's next turn, not this one.
    await storeResponsesTurn(gw, { turn, responseText: answered, deployment: answer.deployment, now: Date.now() }).catch((err: unknown) => {
      gw.log.warn({ requestId: state.requestId, err: gw.masker.mask(String(err)) }, 'could not store the response: previous_response_id will not find it');
    });
  }
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
  res.writeHead(200, { ...SSE_HEADERS, 'x-request-id': state.requestId, 'request-id': state.requestId, ...answer.exchange.responseHeaders, ...flight.ticket?.headers });
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
        if (writer.write(out, relay.encoding)) return true;
        watch.hold();
        return false;
      },
      // Synchronous with the last chunk: the stream's end goes out in the same write as its last event.
      () => {
        const tail = relay.end();
        if (!relay.finished) throw new GatewayError('upstream_error', { message: 'The upstream stream ended before it was complete.' });
        state.markFirstByte();
        writer.end(tail, relay.encoding);
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
    if (answer.watch.reason !== 'shutdown') answer.streamFailed();
    const gerr = streamFailure(err, answer.watch.reason);
    state.errorCode = gerr.code;
    state.status = gerr.status;
    writer.end(relay.errorEvent(gerr, state.requestId), 'utf8');
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

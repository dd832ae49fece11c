// The story of a generation request (chat, messages, responses, embeddings, Gemini's generateContent,
// the cloud routes; which endpoint tells it is the endpoint table's): auth → body → validation → catalog → stages → admission → routing →
// relay → accounting. Each step is its stage's.
import { ReplyCapture } from './body-log.ts';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Dialect } from '../core/dialect.ts';
import { GatewayError } from '../core/errors.ts';
import { answeredOrGone, costlyBody, readBody, parseJsonBody } from '../http/body.ts';
import type { GeminiCall } from '../dialects/gemini/routes.ts';
import { sendError, sendJson } from '../http/respond.ts';
import type { CloudMessages } from '../dialects/anthropic-clouds/request.ts';
import type { ReplyFraming } from './reply-framing.ts';
import { ResponseClientLink } from '../routing/attempt-watch.ts';
import { authenticate, authenticateGemini } from '../auth/authenticate.ts';
import { renderStreamError } from '../dialects/render-error.ts';
import { withResponsesState, type RequestFacts } from '../dialects/request-facts.ts';
import { forwardedHeaders, type AnthropicVersion } from '../dialects/anthropic-messages/version.ts';
import { compactionBody, summaryRequest } from '../dialects/openai-responses/compact.ts';
import { refuseUnusableKey, resolveModel } from '../catalog/catalog.ts';
import { topLevelString } from '../core/json-prefix.ts';
import { promptCacheKeyOf, sessionIdOf } from '../routing/session.ts';
import { promptEstimator, type Ticket } from '../admission/admission.ts';
import { obtainAnswer, type Answer } from '../routing/attempts.ts';
import {
  appendConversationTurn,
  prepareConversationTurn,
  withConversation,
  type ConversationTurn,
} from '../conversation/conversation-turn.ts';
import { prepareResponsesTurn, storeResponsesTurn, type ResponsesTurn } from '../conversation/responses-turn.ts';
import { costHeader, loggedMessage, rowModel, RequestState } from '../accounting/record.ts';
import type { StageList } from '../stages/plan.ts';
import { runAfterReply, runBeforeRouting } from '../stages/run.ts';
import { keepAliveFor, relayStream } from './relay.ts';
import { StageTally } from './stage-tally.ts';
import type { Gateway } from './gateway.ts';
import { settleRequest } from './settle-request.ts';
import { servesResponsesNatively } from '../registry.ts';
import { targetQuery, type TargetQuery } from '../spec/provider.ts';

/** Responses API compaction, passed through. */
const COMPACT = targetQuery('compact', 'responses', false);

/** One request in flight: its bookkeeping and, once admitted, the reservation to settle. */
export interface Flight {
  state: RequestState;
  ticket: Ticket | null;
  /** Admission ran (admitted or refused), so an error already carries its rate headers. */
  admissionRan: boolean;
  /** Keep-alive comments sent the stream's headers before its first byte (stream-keep-alive.ts). */
  keptAlive: boolean;
  endpoint: GenerationEndpoint;
  /** The model's stages (stages/), once the model is known; null when it has none. */
  stages: StageList | null;
  /** Where the stages count what they did (set with `stages`). */
  tally: StageTally | null;
  /** The reply as relayed, for body logging; null when the key's bodies are not logged. */
  capture: ReplyCapture | null;
}

export interface GenerationEndpoint {
  dialect: Dialect;
  requestId: string;
  /** The endpoint as usage rows and metrics name it (a template for Gemini's paths, never the URL). */
  endpoint: string;
  /** POST /v1/embeddings: an embedding model, its input priced as prompt tokens, no output. */
  embedding?: boolean;
  /** POST /v1/responses/compact: passed to a native Responses upstream's own, else a summarising turn. */
  compact?: boolean;
  /** A Gemini path: the model and the method come from it. */
  gemini?: GeminiCall;
  /**
   * An Anthropic cloud route (Bedrock's InvokeModel, Vertex's rawPredict): its body reshaped into a
   * /v1/messages body (the model from the path) and the headers that go with it. Such a route serves
   * every chat model, translated where it is not Claude, and reads the body under CLOUD_MESSAGES_VERSION.
   */
  cloud?: { reshape(value: unknown): CloudMessages };
  /** A streamed reply framed otherwise than as SSE (Bedrock's event stream); no keep-alive comments then. */
  framing?: ReplyFraming;
  /** A whole reply in another shape than the dialect's (Bedrock's Converse), from the dialect's JSON text. */
  reshapeReply?: (body: string) => string;
  /** Errors in another shape than the dialect's (Bedrock's `{message}` and `x-amzn-errortype`). */
  renderError?: (err: GatewayError, requestId: string) => { body: string; headers: Record<string, string> };
  /** The API version the request's headers name (`anthropic-version` on /v1/messages), checked. */
  version?: (headers: IncomingHttpHeaders) => AnthropicVersion;
  /** The body's check in the route's dialect (`version`: the checked anthropic-version of /v1/messages). */
  validate: (body: unknown, at: { url: string | undefined; version: AnthropicVersion | null }) => RequestFacts;
}

export async function handleGeneration(
  gw: Gateway,
  req: IncomingMessage,
  res: ServerResponse,
  opts: GenerationEndpoint,
): Promise<void> {
  const state = new RequestState(opts);
  const flight: Flight = {
    state,
    ticket: null,
    admissionRan: false,
    keptAlive: false,
    endpoint: opts,
    stages: null,
    tally: null,
    capture: null,
  };
  // A client that leaves stops the upstream at once: no orphaned upstream streams.
  const client = new ResponseClientLink(res);
  if (gw.tracing !== null)
    state.trace = gw.tracing.startRequest({
      method: req.method ?? 'POST',
      endpoint: opts.endpoint,
      requestId: opts.requestId,
      headers: req.headers,
    });
  gw.metrics.inFlight++;
  gw.metrics.started++;
  try {
    await serve(gw, req, res, flight, client);
  } catch (err) {
    const bodyUnread = !req.complete && costlyBody(req.headers);
    await answerFailure(gw, res, flight, { err, clientGone: client.aborted, bodyUnread });
  } finally {
    // In flight until the row is queued: a clean stop waits for that before its last flush.
    try {
      if (flight.capture !== null && gw.bodyLog) state.responseBody = gw.bodyLog.keep(flight.capture.text());
      await settleRequest(gw, state, flight.ticket);
    } finally {
      gw.metrics.inFlight--;
    }
  }
}

async function serve(
  gw: Gateway,
  req: IncomingMessage,
  res: ServerResponse,
  flight: Flight,
  client: ResponseClientLink,
): Promise<void> {
  const { state } = flight;
  const { embedding, gemini } = flight.endpoint;
  const key = await (gemini === undefined
    ? authenticate(req.headers, gw.keys, state.startedWall, req.socket)
    : authenticateGemini(req.headers, req.url, gw.keys, state.startedWall, req.socket));
  state.key = key;
  // No usage row could be recorded for it: a billable request is not served unrecorded.
  if (gw.usage.full) throw new GatewayError('usage_unrecordable', { headers: { 'retry-after': '1' } });
  const { cloud } = flight.endpoint;
  // A cloud route's version is a body field: read with the body below.
  let version = flight.endpoint.version?.(req.headers) ?? null;
  const mode = embedding === true ? 'embedding' : 'chat';
  // A body that is costly to read (compressed, large or chunked) is not read for a key that may use no
  // model here (Gemini's path names the model), whose budget is spent or whose rate window is full: such
  // a refusal closes the connection instead of draining the rest of the upload (answerFailure). The model
  // a body names in its first bytes is checked the same way, before the rest arrives.
  let head: ((bytes: Buffer) => void) | undefined;
  if (costlyBody(req.headers)) {
    refuseUnusableKey(gw.catalog, key, {
      dialect: state.dialect,
      endpoint: state.endpoint,
      model: gemini?.model,
      mode,
    });
    await gw.admission.refuseIfFull(key, Date.now());
    if (cloud === undefined && gemini === undefined)
      head = (bytes) => {
        const named = topLevelString(bytes.toString('utf8'), 'model');
        if (named === null) return;
        state.model = named;
        resolveModel(gw.catalog, key, named, state.dialect, mode);
      };
  }
  let raw = await readBody(req, gw.bodyLimits, head);
  let { text, value } = parseJsonBody(raw);
  let cloudForward: Record<string, string> | undefined;
  let cloudAdjusted: string[] | undefined;
  if (cloud !== undefined) {
    const reshaped = cloud.reshape(value);
    value = reshaped.body;
    text = JSON.stringify(value);
    raw = Buffer.from(text);
    cloudForward = reshaped.forward;
    version = reshaped.version;
    if (reshaped.adjusted !== undefined && reshaped.adjusted.length > 0) cloudAdjusted = reshaped.adjusted;
  }
  // A request refused by validation still names its model in the usage row, metrics and logs.
  const named = (value as { model?: unknown } | null)?.model;
  if (typeof named === 'string') state.model = named;
  const facts = flight.endpoint.validate(value, { url: req.url, version });
  // The Responses endpoint's validator reads the conversation state too (endpoint-table.ts).
  const responsesFacts = withResponsesState(facts);
  state.model = facts.model;
  state.stream = facts.stream;
  state.sessionId = sessionIdOf(req.headers, value);
  // The cloud routes serve every chat model (Claude Code's cloud modes reach GPT models too): only
  // /v1/messages itself narrows by family.
  let model = resolveModel(gw.catalog, key, facts.model, cloud === undefined ? state.dialect : 'openai', mode);
  // An alias bills, limits and labels as the model it reaches; the reply still names what the caller sent.
  state.model = model.name;
  let parsed = value as Record<string, unknown>;
  // Stages see the prompt before it is stored, admitted or routed; a changed text is written back into
  // the body, whose new bytes then go upstream (pass-through) or to the translator.
  const stages = gw.stages === null ? null : gw.stages.forModel(model.name);
  if (stages !== null) {
    flight.stages = stages;
    flight.tally = new StageTally(state, gw.metrics);
    if (runBeforeRouting(stages, { dialect: state.dialect, body: parsed, stream: facts.stream }, flight.tally)) {
      text = JSON.stringify(parsed);
      raw = Buffer.from(text);
    }
  }
  let turn: ResponsesTurn | null = null;
  // A compaction the route cannot pass through is a summarising turn, reshaped after it is answered.
  let compactRequest: Record<string, unknown> | null = null;
  let upstreamQuery: TargetQuery | undefined;
  if (flight.endpoint.compact === true) {
    // Every deployment serves the Responses API itself: the caller's body goes to its compact endpoint.
    if (model.deployments.every(servesResponsesNatively)) upstreamQuery = COMPACT;
    else {
      compactRequest = parsed;
      parsed = value = summaryRequest(parsed);
      text = JSON.stringify(parsed);
      raw = Buffer.from(text);
    }
  }
  // A Conversations API conversation: its items in front of the input, the turn appended once answered.
  let conversation: ConversationTurn | null = null;
  if (responsesFacts !== null && parsed.conversation !== undefined) {
    const prepared = await prepareConversationTurn(gw.conversations, { key, parsed });
    if (prepared !== null) {
      conversation = prepared.turn;
      parsed = value = prepared.body;
      text = JSON.stringify(parsed);
      raw = Buffer.from(text);
    }
  }
  if (responsesFacts !== null) {
    // A continued conversation: its stored items, and the deployment a native chain stays on.
    const prepared = await prepareResponsesTurn(gw.responses, {
      key,
      facts: responsesFacts,
      parsed,
      model,
      now: state.startedWall,
      quota: gw.config.responsesStoreQuota,
    });
    ({ turn, model } = prepared);
    if (prepared.body !== null) {
      parsed = value = prepared.body;
      text = JSON.stringify(parsed);
      raw = Buffer.from(text);
    }
  }
  // Body logging: the request as the stages left it, masked again and cut; the reply is collected as relayed.
  const bodyLog = gw.bodyLog ?? null;
  if (bodyLog !== null && bodyLog.wants(key)) {
    state.requestBody = bodyLog.keep(text);
    flight.capture = new ReplyCapture(bodyLog.captureBytes);
  }
  flight.admissionRan = true;
  const admitted = await gw.admission.admit({
    key,
    model,
    body: parsed,
    bodyBytes: raw.length,
    now: Date.now(),
    dialect: state.dialect,
    embedding,
  });
  flight.ticket = admitted.ticket;
  // The tokenizer runs only when something needs the prompt size: admission did already, or a
  // translated Anthropic stream's message_start, or the bill of a stream cut before its usage arrived.
  const promptEstimate = promptEstimator({
    known: admitted.promptTokens,
    body: parsed,
    model: model.deployments[0]?.model ?? model.name,
    embedding,
  });

  // A streaming client hears from the gateway while the upstream is silent (stream-keep-alive.ts).
  const keepAlive =
    facts.stream && gw.config.streamKeepAliveMs > 0 && flight.endpoint.framing === undefined
      ? keepAliveFor(res, flight, gw.config.streamKeepAliveMs)
      : null;
  const input = {
    dialect: state.dialect,
    raw,
    text,
    parsed,
    facts,
    promptEstimate,
    defaultMaxTokens: gw.config.defaultMaxTokens,
    outputCap: admitted.outputCap,
    masker: gw.masker,
    embedding,
    geminiVersion: gemini?.version,
    upstreamQuery,
    promptCacheKey: promptCacheKeyOf(parsed, state.sessionId),
    owner: key.id,
    signatures: gw.signatures,
  };
  let answer: Answer;
  try {
    answer = await obtainAnswer({
      gw,
      state,
      model,
      input,
      forwardHeaders: cloudForward ?? (version === null ? undefined : forwardedHeaders(req.headers)),
      client,
    });
  } finally {
    keepAlive?.stop();
    flight.keptAlive = keepAlive?.sent === true;
  }
  // What a cloud route's reshape left out is said beside what the exchange itself changed.
  if (cloudAdjusted !== undefined) {
    const headers = answer.exchange.responseHeaders;
    const own = headers['x-modelgate-adjusted'];
    headers['x-modelgate-adjusted'] = [...cloudAdjusted, ...(own === undefined ? [] : [own])].join('; ');
  }
  state.deployment = answer.deployment.id;
  // The price the request resolved: a model changed or removed while it runs (admin API, a reload) bills as it started.
  state.price = answer.deployment.price ?? model.price ?? undefined;
  if (compactRequest !== null && answer.json !== null)
    answer.json = { body: compactionBody(compactRequest, answer.json.body), usage: answer.json.usage };
  if (conversation !== null && answer.json !== null)
    answer.json = { body: withConversation(answer.json.body, conversation.id), usage: answer.json.usage };
  // What the reply left for the caller's next turn is written before the caller can send that turn
  // (awaited only when there is such a write: pass-through has none and takes no extra turn of the loop).
  const kept = facts.stream ? null : (answer.exchange.kept?.() ?? null);
  if (kept !== null) await kept;
  const answered = facts.stream ? await relayStream(gw, res, flight, answer) : relayJson(gw, res, flight, answer);
  if (conversation !== null && answered !== null) {
    await appendConversationTurn(gw.conversations, conversation, answered).catch((err: unknown) => {
      gw.log.warn(
        { requestId: state.requestId, err: gw.masker.mask(String(err)) },
        'could not append the turn to its conversation',
      );
    });
  }
  if (turn !== null && answered !== null) {
    // The caller has its answer: a store that fails now costs the conversation's next turn, not this one.
    await storeResponsesTurn(
      { responses: gw.responses, retentionMs: gw.config.responsesRetentionMs },
      { turn, responseText: answered, deployment: answer.deployment, now: Date.now() },
    ).catch((err: unknown) => {
      gw.log.warn(
        { requestId: state.requestId, err: gw.masker.mask(String(err)) },
        'could not store the response: previous_response_id will not find it',
      );
    });
  }
}

/** A request that failed: an error in its dialect (before the first byte) or the stream's end, and a log line. */
async function answerFailure(
  gw: Gateway,
  res: ServerResponse,
  flight: Flight,
  failure: { err: unknown; clientGone: boolean; bodyUnread: boolean },
): Promise<void> {
  const { state, endpoint } = flight;
  const { err } = failure;
  if (err instanceof GatewayError && answeredOrGone(err)) {
    // The body never came whole: the client left (499), or Node has answered it (408, 400).
    state.status = err.status;
    state.errorCode = err.code;
    state.errorMessage = loggedMessage(gw.masker, err.message);
    return;
  }
  if (failure.clientGone) {
    // The client left: nobody to answer, nothing for the operator to fix, and the row says so the same
    // way before and after the first byte.
    state.status = 499;
    state.errorCode = 'client_disconnected';
    return;
  }
  const gerr = err instanceof GatewayError ? err : new GatewayError('internal_error');
  if (!(err instanceof GatewayError))
    gw.log.error(
      { err: gw.masker.mask(err instanceof Error ? (err.stack ?? err.message) : String(err)) },
      'unexpected error',
    );
  state.status = state.status || gerr.status;
  state.errorCode = gerr.code;
  state.errorMessage = loggedMessage(gw.masker, gerr.message);
  if (!res.headersSent) {
    state.status = gerr.status;
    // Every response of the generation endpoints carries the key's rate headers, errors included.
    const headers =
      flight.ticket !== null
        ? flight.ticket.headers
        : flight.admissionRan || state.key === null
          ? undefined
          : await gw.admission.headersFor(state.key, Date.now());
    // Refused before its body came whole (a 401, 403 or 429 decided from the headers): the connection
    // closes after the answer, so the rest of the upload is neither read nor waited for.
    const closing = failure.bodyUnread ? { ...headers, connection: 'close' } : headers;
    if (endpoint.renderError !== undefined) {
      const shaped = endpoint.renderError(gerr, endpoint.requestId);
      sendJson(res, {
        status: gerr.status,
        body: shaped.body,
        requestId: endpoint.requestId,
        headers: { ...closing, ...gerr.headers, ...shaped.headers },
      });
    } else sendError(res, { dialect: endpoint.dialect, error: gerr, requestId: endpoint.requestId, headers: closing });
  } else if (flight.keptAlive && !res.writableEnded) {
    // Only keep-alive comments went out: the failure is the stream's one error event in its dialect.
    res.end(renderStreamError(endpoint.dialect, gerr, endpoint.requestId));
  } else if (!res.writableEnded) {
    res.end();
  }
  // A store outage is logged once when it starts and once when it ends (serve-command.ts), not per request.
  if (gerr.status >= 500 && gerr.code !== 'admission_unavailable')
    gw.log.warn(
      { requestId: endpoint.requestId, code: gerr.code, status: gerr.status, reason: gerr.message },
      'request failed',
    );
  else if (gerr.status < 500 && gw.log.isLevelEnabled('debug'))
    gw.log.debug(
      {
        requestId: endpoint.requestId,
        code: gerr.code,
        status: gerr.status,
        model: rowModel(gw, state.model),
        reason: gw.masker.mask(gerr.message),
      },
      'request refused',
    );
}

/** Relays a whole answer; returns the body sent. */
export function relayJson(gw: Gateway, res: ServerResponse, flight: Flight, answer: Answer): string {
  const { state } = flight;
  // Routing read and converted the whole body before committing, so a bad 200 could still fail over.
  if (answer.json === null)
    throw new GatewayError('internal_error', { message: 'A non-streamed answer arrived without its body.' });
  const { usage } = answer.json;
  const staged =
    flight.stages === null
      ? answer.json.body
      : runAfterReply(flight.stages, flight.endpoint.dialect, answer.json.body, flight.tally!);
  const { reshapeReply } = flight.endpoint;
  const body = reshapeReply === undefined ? staged : reshapeReply(staged);
  state.usage = usage;
  state.status = 200;
  state.markFirstByte();
  const ids = { 'x-request-id': state.requestId, 'request-id': state.requestId };
  res.writeHead(200, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'x-modelgate-cost': costHeader(gw, state),
    ...ids,
    ...answer.exchange.responseHeaders,
    ...flight.ticket?.headers,
  });
  res.end(body);
  flight.capture?.add(body);
  return body;
}

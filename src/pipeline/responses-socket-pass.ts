// Responses over WebSocket passed through: a caller's `response.create` frames go to an upstream that
// serves the WebSocket mode itself (ProviderSpec.responsesSocket), over one upstream socket held for the
// caller's connection, so the upstream's connection-scoped state (`previous_response_id` with
// `store: false`, the `generate: false` warm-up) works as it does there. Each frame is one request, as on
// HTTP: the key checked again, the model's rights, admission (budget, rates, concurrency), the model
// renamed to the deployment's, the gateway's credential on the upgrade (never the caller's), usage read
// from the terminal event and written in a usage row; a caller that leaves closes the upstream socket and
// pays for what was delivered, as an abandoned HTTP stream does. A frame this path does not take (no
// deployment that serves the socket, stages or body logging for it, a conversation, a parameter the
// deployment refuses, an upgrade the upstream refused) is for the HTTP bridge, before anything is sent.
import type { IncomingHttpHeaders } from 'node:http';
import type WebSocket from 'ws';
import { authenticate } from '../auth/authenticate.ts';
import { resolveModel } from '../catalog/catalog.ts';
import type { DeploymentConfig, ModelConfig } from '../core/config-types.ts';
import { GatewayError } from '../core/errors.ts';
import type { JsonObject } from '../core/json.ts';
import type { KeyRecord } from '../core/key-record.ts';
import { ResponsesStreamTap } from '../dialects/openai-responses/passthrough-tap.ts';
import { validateResponsesRequest } from '../dialects/openai-responses/validate.ts';
import { renderError } from '../dialects/render-error.ts';
import { newRequestId } from '../http/server.ts';
import { promptEstimator, type Ticket } from '../admission/admission.ts';
import { loggedMessage, RequestState } from '../accounting/record.ts';
import { settleRequest } from './settle-request.ts';
import { providerSpec } from '../registry.ts';
import type { ResponsesSocketTarget } from '../spec/provider.ts';
import { AttemptPlan } from '../routing/plan.ts';
import { sessionIdOf } from '../routing/session.ts';
import { PassthroughRelay } from '../translate/passthrough-exchange.ts';
import { openResponsesSocket, refusalMeansUnserved, type SocketRefusals } from '../upstream/responses-socket.ts';
import type { Gateway } from './gateway.ts';
import { SocketTurn, type TurnEnd } from './responses-socket-turn.ts';

/** The largest frame read from an upstream (a response.completed that repeats a long output). */
const UPSTREAM_MAX_PAYLOAD = 256 * 1024 * 1024;

/** The upstream socket a caller's connection holds, and the deployment and credential it was opened with. */
interface UpstreamLink {
  socket: WebSocket;
  deployment: DeploymentConfig;
}

/** A frame this path serves: the caller's key, the model it reaches, the socket it goes over. */
interface Route {
  key: KeyRecord;
  model: ModelConfig;
  link: UpstreamLink;
}

export interface SocketPassOptions {
  gw: Gateway;
  /** The caller's socket. */
  client: WebSocket;
  /** The upgrade's headers: the key, per frame, and the caller's session and `openai-beta`. */
  headers: IncomingHttpHeaders;
  /** The caller's TCP connection (what the key cache's per-connection checks key on). */
  connection: object;
  refusals: SocketRefusals;
}

export class SocketPassThrough {
  readonly #o: SocketPassOptions;
  #link: UpstreamLink | null = null;
  #turn: SocketTurn | null = null;
  #gone = false;

  constructor(o: SocketPassOptions) {
    this.#o = o;
  }

  /** Serves the frame over an upstream socket; false (nothing sent) when the frame is for the HTTP bridge. */
  async serve(frame: JsonObject, bytes: number): Promise<boolean> {
    const route = await this.#route(frame);
    if (route === null || this.#gone) return false;
    await this.#request(route, frame, bytes);
    return true;
  }

  /** The caller left: the upstream socket closes, and a response in flight is billed as cut. */
  close(): void {
    this.#gone = true;
    this.#turn?.finish({ kind: 'cut' });
    this.#unlink();
  }

  async #route(frame: JsonObject): Promise<Route | null> {
    const { gw } = this.#o;
    if (typeof frame.model !== 'string' || frame.conversation !== undefined || gw.usage.full) return null;
    let key: KeyRecord;
    let model: ModelConfig;
    // A refusal here is the bridge's to give, in the same words as on HTTP.
    try {
      key = await authenticate(this.#o.headers, gw.keys, Date.now(), this.#o.connection);
      model = resolveModel(gw.catalog, key, frame.model, 'responses');
    } catch {
      return null;
    }
    if ((gw.stages?.forModel(model.name) ?? null) !== null || gw.bodyLog?.wants(key) === true) return null;
    const link = await this.#linkFor(model, frame);
    return link === null ? null : { key, model, link };
  }

  /**
   * The socket for a frame of this model: the one held when it is to one of the model's deployments and
   * that deployment is healthy (the upstream's state lives on it), else a new one to the deployment
   * routing picks; null when that deployment's upstream serves no socket or refused the upgrade, or the
   * frame sets a parameter the deployment's model refuses (the HTTP path leaves it out and says so).
   */
  async #linkFor(model: ModelConfig, frame: JsonObject): Promise<UpstreamLink | null> {
    const { gw, refusals } = this.#o;
    // A model none of whose deployments serves the socket is the bridge's without a routing step.
    if (!model.deployments.some((d) => socketTarget(d) !== null)) return null;
    const held = this.#link;
    if (
      held !== null &&
      held.socket.readyState === held.socket.OPEN &&
      model.deployments.includes(held.deployment) &&
      gw.breaker.allows(held.deployment.id)
    )
      return refusesSome(held.deployment, frame) ? null : held;
    const session = sessionIdOf(this.#o.headers, frame);
    const plan = new AttemptPlan({ model, breaker: gw.breaker, keys: gw.keyRotation, session });
    const step = plan.next();
    if (step.done) return null;
    const { deployment, apiKey } = step;
    const spec = providerSpec(deployment.provider);
    const target = socketTarget(deployment);
    if (
      step.delayMs > 0 ||
      target === null ||
      (target.mode === 'probe' && refusals.has(deployment.provider)) ||
      refusesSome(deployment, frame)
    ) {
      plan.cancel();
      return null;
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(spec.headers(deployment.provider, { apiKey, forward: {} })))
      if (name !== 'content-type' && name !== 'accept') headers[name] = value;
    const beta = this.#o.headers['openai-beta'];
    if (typeof beta === 'string') headers['openai-beta'] = beta;
    const opening = await openResponsesSocket({
      url: target.url,
      headers,
      connectMs: model.timeouts.connectMs,
      maxPayload: UPSTREAM_MAX_PAYLOAD,
    });
    // The HTTP bridge judges the deployment of a refused or failed upgrade by its own attempt.
    if (opening.kind !== 'open') {
      plan.cancel();
      const fields = { provider: deployment.provider.name, url: target.url };
      if (opening.kind === 'failed')
        gw.log.warn(
          { ...fields, reason: opening.reason },
          'responses websocket: no connection; this turn goes over HTTP',
        );
      else if (target.mode === 'probe' && refusalMeansUnserved(opening.status)) {
        refusals.add(deployment.provider);
        gw.log.info(
          { ...fields, status: opening.status },
          'responses websocket: the upstream serves none; its turns go over HTTP',
        );
      } else
        gw.log.warn(
          { ...fields, status: opening.status },
          'responses websocket: upgrade refused; this turn goes over HTTP',
        );
      return null;
    }
    plan.record(deployment.id, { kind: 'success' });
    if (this.#gone) {
      opening.socket.terminate();
      return null;
    }
    this.#unlink();
    const link: UpstreamLink = { socket: opening.socket, deployment };
    this.#link = link;
    this.#attach(link);
    return link;
  }

  /**
   * The upstream socket's frames go to the response in flight; between responses, on as they came. A
   * socket let go of (another took its place) is heard no more.
   */
  #attach(link: UpstreamLink): void {
    const { socket } = link;
    socket.on('message', (data, isBinary) => {
      if (isBinary || this.#link !== link) return;
      const text = data.toString();
      if (this.#turn !== null && !this.#turn.over) this.#turn.frame(text);
      else if (this.#o.client.readyState === this.#o.client.OPEN) this.#o.client.send(this.#o.gw.masker.mask(text));
    });
    const lost = (): void => {
      if (this.#link !== link) return;
      this.#link = null;
      this.#turn?.finish({ kind: 'broken' });
    };
    socket.on('close', lost);
    socket.on('error', lost);
  }

  #unlink(): void {
    const held = this.#link;
    this.#link = null;
    if (held !== null && held.socket.readyState !== held.socket.CLOSED) held.socket.terminate();
  }

  /** One frame as one request: admitted, relayed, billed and recorded as an HTTP stream is. */
  async #request(route: Route, frame: JsonObject, bytes: number): Promise<void> {
    const { gw } = this.#o;
    const { key, model, link } = route;
    const { deployment } = link;
    const state = new RequestState({ requestId: newRequestId(), dialect: 'responses', endpoint: '/v1/responses' });
    state.key = key;
    state.stream = true;
    state.model = model.name;
    state.sessionId = sessionIdOf(this.#o.headers, frame);
    state.deployment = deployment.id;
    state.price = deployment.price ?? model.price ?? undefined;
    state.attempts = 1;
    if (gw.tracing !== null)
      state.trace = gw.tracing.startRequest({
        method: 'GET',
        endpoint: state.endpoint,
        requestId: state.requestId,
        headers: this.#o.headers,
      });
    let ticket: Ticket | null = null;
    gw.metrics.inFlight++;
    gw.metrics.started++;
    try {
      const { type: _type, generate: _generate, ...body } = frame;
      validateResponsesRequest({ ...body, stream: true });
      const admitted = await gw.admission.admit({
        key,
        model,
        body,
        bodyBytes: bytes,
        now: Date.now(),
        dialect: 'responses',
      });
      ticket = admitted.ticket;
      const out: JsonObject = { ...frame, model: deployment.model };
      // A budget reserved this much output for a request that names no limit: the upstream is held to it.
      if (admitted.outputCap !== null && out.max_output_tokens == null) out.max_output_tokens = admitted.outputCap;
      const tap = new ResponsesStreamTap({
        clientModel: frame.model as string,
        upstreamModel: deployment.model,
        masker: gw.masker,
      });
      const relay = new PassthroughRelay({
        tap,
        dialect: 'responses',
        promptEstimate: promptEstimator({ known: admitted.promptTokens, body, model: deployment.model }),
      });
      if (this.#gone) throw new GatewayError('client_disconnected');
      const turn = new SocketTurn({ upstream: link.socket, client: this.#o.client, tap, timeouts: model.timeouts });
      this.#turn = turn;
      // A socket that closed since it was picked ends the turn at once, not at the first-byte timeout.
      if (link.socket.readyState === link.socket.OPEN) link.socket.send(JSON.stringify(out));
      else turn.finish({ kind: 'broken' });
      const end = await turn.ended;
      this.#turn = null;
      if (turn.answered) state.markFirstByte();
      // What was delivered is billed whatever ended it: the terminal event's usage, or the estimate.
      state.usage = relay.usage();
      this.#settle(state, end, link);
    } catch (err) {
      const gerr = err instanceof GatewayError ? err : new GatewayError('internal_error');
      if (!(err instanceof GatewayError))
        gw.log.error(
          { err: gw.masker.mask(err instanceof Error ? (err.stack ?? err.message) : String(err)) },
          'unexpected error',
        );
      state.status = gerr.status;
      state.errorCode = gerr.code;
      state.errorMessage = loggedMessage(gw.masker, gerr.message);
      this.#errorFrame(gerr, state.requestId);
    } finally {
      this.#turn = null;
      try {
        await settleRequest(gw, state, ticket);
      } finally {
        gw.metrics.inFlight--;
      }
    }
  }

  /** The row's status for how the response ended; the deployment's health where the upstream failed. */
  #settle(state: RequestState, end: TurnEnd, link: UpstreamLink): void {
    const { gw } = this.#o;
    const id = link.deployment.id;
    switch (end.kind) {
      case 'finished':
        state.status = 200;
        gw.breaker.onSuccess(id);
        return;
      case 'error':
        // The upstream's error frame went to the caller as it came.
        state.status = end.status;
        state.errorCode = end.code ?? 'upstream_error';
        if (end.status >= 500) gw.breaker.onFailure(id, `HTTP ${end.status}`);
        return;
      case 'cut':
        state.status = 499;
        state.errorCode = 'client_disconnected';
        this.#unlink();
        return;
      case 'broken':
      case 'timeout': {
        // The upstream's state for this connection is gone with its socket: the next frame opens another.
        this.#unlink();
        gw.breaker.onFailure(id, end.kind === 'timeout' ? 'timeout' : 'connection failed');
        throw end.kind === 'timeout'
          ? new GatewayError('upstream_timeout', {
              message: 'The upstream stopped sending events before the response was complete.',
            })
          : new GatewayError('upstream_error', {
              message: 'The upstream closed its WebSocket before the response was complete.',
            });
      }
    }
  }

  /** An error as the WebSocket mode writes one: the HTTP error body with the frame's type and status. */
  #errorFrame(err: GatewayError, requestId: string): void {
    const { client } = this.#o;
    if (client.readyState !== client.OPEN) return;
    client.send(`{"type":"error","status":${err.status},${renderError('responses', err, requestId).slice(1)}`);
  }
}

/** Where a deployment's upstream serves the Responses WebSocket; null: it does not. */
function socketTarget(d: DeploymentConfig): ResponsesSocketTarget | null {
  const spec = providerSpec(d.provider);
  // A kind that signs each request over its body and date has no upgrade to sign: it is bridged.
  return spec.sign === undefined ? (spec.responsesSocket?.(d.provider, d) ?? null) : null;
}

/** Whether the frame sets a parameter the deployment's model refuses (the HTTP path leaves it out and says so). */
function refusesSome(d: DeploymentConfig, frame: JsonObject): boolean {
  return d.refusedParams?.some((field) => field !== 'model' && frame[field] !== undefined) === true;
}

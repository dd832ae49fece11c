// The node:http server: request id, exact routing, and dispatch to the stage handlers.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { GatewayError } from '../core/errors.ts';
import { isObject } from '../core/json.ts';
import { handleGeneration } from '../pipeline/generate.ts';
import { authenticate, authenticateGemini, bearerToken } from '../auth/authenticate.ts';
import { checkAnthropicVersion, checkVersionRules } from '../dialects/anthropic-messages/version.ts';
import { geminiCountTokens } from '../providers/count-gemini.ts';
import { geminiModelBody, geminiModelsBody } from '../catalog/gemini-models.ts';
import type { KeyRecord } from '../core/key-record.ts';
import { geminiAuthenticated, geminiCallOf, geminiListingOf } from './gemini-routes.ts';
import { hashKey, sameHash } from '../auth/key-material.ts';
import { listModelsBody, modelBody } from '../catalog/list-models.ts';
import { usageTokenBody } from '../accounting/usage-token.ts';
import { countTokens } from '../providers/count-messages.ts';
import type { Gateway } from '../pipeline/gateway.ts';
import { answeredOrGone, readBody, parseJsonBody } from './body.ts';
import { answerClientError, noteResponse } from './client-error.ts';
import { sendError, sendJson } from './respond.ts';
import { newRequestId } from './request-id.ts';
import { callerDialect, dialectForPath, endpointClass, findRoute, modelIdOf, pathOf, responseIdOf, type Route } from './routes.ts';
import { CorsPolicy, refusalMessage } from './cors.ts';
import { maskKeyLike } from '../observability/mask-secrets.ts';
import { storedResponse } from '../store/stored-response.ts';
import { countResponsesInputTokens } from '../providers/count-responses.ts';
import { createAdminApi } from '../admin/api/admin-api.ts';
import { createUiHandler } from '../admin/ui-files.ts';

/** The last 'connection refused' warning: one a minute at most, the metric counts them all. */
let lastDropLog = -Infinity;

export function createGatewayServer(gw: Gateway): Server {
  // A client that stalls before its request is whole (slowloris) holds a socket and a buffer; it gets a
  // 408 after the request timeout. The response is not under that clock: a stream may run for hours.
  // Node checks its connections every connectionsCheckingInterval, so that follows a short timeout.
  const requestTimeout = gw.config.clientRequestTimeoutMs;
  const metricsTokenHash = gw.config.metricsToken === null ? null : hashKey(gw.config.metricsToken);
  const cors = gw.config.corsOrigins.length === 0 ? null : new CorsPolicy(gw.config.corsOrigins);
  // Both null without admin_token: their paths then fall through to the 404 below.
  const admin = createAdminApi(gw);
  const ui = createUiHandler({ enabled: admin !== null });
  const server = createServer({
    keepAliveTimeout: 65_000,
    requestTimeout,
    headersTimeout: Math.min(60_000, requestTimeout),
    connectionsCheckingInterval: Math.min(30_000, Math.max(100, Math.floor(requestTimeout / 4))),
  }, function modelgateRequest(req, res) {
    const requestId = newRequestId();
    noteResponse(req.socket, res);
    // Answers to the origins the operator named carry CORS headers, errors included (a browser script
    // can then read why); without cors_origins nothing is looked at here.
    if (cors !== null) {
      const origin = req.headers.origin;
      if (cors.allows(origin)) for (const [name, value] of Object.entries(cors.responseHeaders(origin))) res.setHeader(name, value);
      else res.setHeader('vary', 'Origin');
    }
    const path = pathOf(req.url);
    const route = geminiListing(findRoute(path), req);
    if (route?.name === 'gemini_unknown') {
      req.resume();
      sendError(res, { dialect: 'gemini', error: new GatewayError('not_found', { message: `No route for ${req.method} ${path}. The gateway serves Gemini's models/{model}:generateContent, :streamGenerateContent and :countTokens, and GET models.` }), requestId });
      return;
    }
    if (!route && admin !== null && ui !== null) {
      if (path.startsWith('/admin/')) return admin(req, res, path, requestId);
      if (path === '/ui' || path.startsWith('/ui/')) return ui(req, res, path);
    }
    if (!route) {
      req.resume();
      refusedRoute(gw, { req, path, reason: 'unknown_path' });
      sendError(res, {
        dialect: dialectForPath(path, req.headers['anthropic-version']),
        error: new GatewayError('not_found', { message: `No route for ${req.method} ${path}. Paths are exact: /v1/chat/completions, /v1/messages, /v1/responses, /v1/models, /api/usage/token.` }),
        requestId,
      });
      return;
    }
    // HEAD is GET without the body (RFC 9110 §9.3.2; load balancers probe /healthz with it): node:http
    // drops the body of a response to HEAD by itself.
    if (req.method !== route.method && req.method !== route.alsoMethod && !(req.method === 'HEAD' && route.method === 'GET')) {
      req.resume();
      const allow = [route.method, ...(route.method === 'GET' ? ['HEAD'] : []), ...(route.alsoMethod === undefined ? [] : [route.alsoMethod])].join(', ');
      if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
        answerPreflight(gw, { req, res, route, path, allow, requestId, cors });
        return;
      }
      refusedRoute(gw, { req, path, reason: 'method_not_allowed' });
      sendError(res, {
        dialect: callerDialect(route, req.headers['anthropic-version']),
        error: new GatewayError('method_not_allowed', { message: `${req.method} is not allowed on ${path}; use ${route.method}.` }),
        requestId,
        headers: { allow },
      });
      return;
    }
    if (route.name === 'metrics' && metricsTokenHash !== null && !bearerMatches(req.headers.authorization, metricsTokenHash)) {
      req.resume();
      sendError(res, {
        dialect: 'openai',
        error: new GatewayError('invalid_api_key', { message: 'GET /metrics needs `Authorization: Bearer <metrics_token>` (the metrics_token setting); API keys do not open it.' }),
        requestId,
        headers: { 'www-authenticate': 'Bearer' },
      });
      return;
    }
    dispatch(gw, req, res, route, requestId).catch((err: unknown) => {
      gw.log.error({ requestId, err: gw.masker.mask(String(err)) }, 'handler failed');
      if (!res.headersSent) sendError(res, { dialect: route.dialect, error: new GatewayError('internal_error'), requestId });
      else res.destroy();
    });
  });
  // Malformed HTTP never crashes the process; the socket is answered and closed: 408 for a request that
  // did not arrive in time, 431 for headers over Node's limit, else 400, each with a body in the caller's
  // dialect (client-error.ts).
  server.on('clientError', answerClientError);
  // Past this many open client connections a new one is closed at once (Node's maxConnections): a
  // flood of connections must not take the file descriptors every upstream call needs too.
  server.maxConnections = gw.config.maxConnections;
  server.on('drop', () => {
    gw.metrics.connectionsDropped++;
    const now = Date.now();
    if (now - lastDropLog < 60_000) return;
    lastDropLog = now;
    gw.log.warn({ maxConnections: gw.config.maxConnections }, `connection refused: ${gw.config.maxConnections} client connections are open (max_connections); counted in modelgate_connections_dropped_total`);
  });
  return server;
}

async function geminiAuthed(gw: Gateway, req: IncomingMessage, res: ServerResponse, opts: { key: KeyRecord; route: Route; requestId: string }): Promise<void> {
  const { key, route, requestId } = opts;
  const path = pathOf(req.url);
  const call = geminiCallOf(path) ?? geminiListingOf(path);
  if (route.name === 'gemini_models') {
    req.resume();
    return sendJson(res, { status: 200, body: geminiModelsBody(gw.catalog, key), requestId });
  }
  if (route.name === 'gemini_model') {
    req.resume();
    const body = call?.model ? geminiModelBody(gw.catalog, key, call.model) : null;
    if (body === null) throw new GatewayError('model_not_found', { message: `models/${call?.model ?? ''} is not found, or this key may not use it.` });
    return sendJson(res, { status: 200, body, requestId });
  }
  const { value } = parseJsonBody(await readBody(req, gw.bodyLimits));
  const counted = await geminiCountTokens(gw, { key, call: call!, value });
  return sendJson(res, { status: 200, body: counted.body, requestId, headers: { 'x-modelgate-token-count': counted.source } });
}

/** A request no route served: counted by endpoint class (never the raw path) and logged at debug. */
function refusedRoute(gw: Gateway, r: { req: IncomingMessage; path: string; reason: string }): void {
  const cls = endpointClass(r.path);
  gw.metrics.unrouted(cls, r.reason);
  if (gw.log.isLevelEnabled('debug')) {
    gw.log.debug({ method: r.req.method, endpointClass: cls, path: maskKeyLike(r.path.slice(0, 200)), reason: r.reason }, 'request refused before routing');
  }
}

/**
 * A CORS preflight: 204 with what the route allows when the origin is in cors_origins; else a 403 in
 * the route's dialect that says cross-origin calls are off and how an operator turns them on.
 */
function answerPreflight(gw: Gateway, p: { req: IncomingMessage; res: ServerResponse; route: Route; path: string; allow: string; requestId: string; cors: CorsPolicy | null }): void {
  const origin = p.req.headers.origin;
  if (p.cors !== null && p.cors.allows(origin)) {
    p.res.writeHead(204, { ...p.cors.preflightHeaders(origin, p.allow, p.req.headers), 'x-request-id': p.requestId });
    p.res.end();
    return;
  }
  refusedRoute(gw, { req: p.req, path: p.path, reason: 'cors_preflight_refused' });
  sendError(p.res, {
    dialect: callerDialect(p.route, p.req.headers['anthropic-version']),
    error: new GatewayError('cors_not_allowed', { message: refusalMessage(origin, p.cors !== null) }),
    requestId: p.requestId,
  });
}

/** Hashes both sides first, so the comparison takes the same time whatever the lengths. */
function bearerMatches(header: string | undefined, tokenHash: string): boolean {
  const token = bearerToken(header);
  return token !== null && sameHash(hashKey(token), tokenHash);
}

async function dispatch(gw: Gateway, req: IncomingMessage, res: ServerResponse, route: Route, requestId: string): Promise<void> {
  switch (route.name) {
    case 'chat':
      return handleGeneration(gw, req, res, { dialect: 'openai', requestId, endpoint: '/v1/chat/completions' });
    case 'messages':
      return handleGeneration(gw, req, res, { dialect: 'anthropic', requestId, endpoint: '/v1/messages' });
    case 'embeddings':
      return handleGeneration(gw, req, res, { dialect: 'openai', requestId, endpoint: '/v1/embeddings', embedding: true });
    case 'gemini_generate': {
      const gemini = geminiCallOf(pathOf(req.url))!;
      // A template, not the URL: the model is the row's own column, and a `?key=` never reaches a row or a label.
      return handleGeneration(gw, req, res, { dialect: 'gemini', requestId, endpoint: `/${gemini.version}/models/{model}:${gemini.method}`, gemini });
    }
    case 'responses':
      return handleGeneration(gw, req, res, { dialect: 'responses', requestId, endpoint: '/v1/responses' });
    case 'healthz':
      return sendJson(res, { status: 200, body: '{"status":"ok"}', requestId });
    case 'metrics': {
      const text = await gw.metrics.render();
      res.writeHead(200, { 'content-type': gw.metrics.contentType, 'x-request-id': requestId });
      res.end(text);
      return;
    }
    default:
      return simpleAuthed(gw, req, res, route, requestId);
  }
}

/** GET /v1/models[/{id}] from a caller that authenticates the Gemini way is Gemini's listing. */
function geminiListing(route: Route | undefined, req: IncomingMessage): Route | undefined {
  if ((route?.name !== 'models' && route?.name !== 'model') || !geminiAuthenticated(req.headers, req.url)) return route;
  return findRoute(route.name === 'models' ? '/v1beta/models' : '/v1beta/models/x');
}

async function simpleAuthed(gw: Gateway, req: IncomingMessage, res: ServerResponse, route: Route, requestId: string): Promise<void> {
  try {
    const now = Date.now();
    const authenticated = route.dialect === 'gemini' ? authenticateGemini(req.headers, req.url, gw.keys, now, req.socket) : authenticate(req.headers, gw.keys, now, req.socket);
    const key = authenticated instanceof Promise ? await authenticated : authenticated;
    if (route.dialect === 'gemini') return await geminiAuthed(gw, req, res, { key, route, requestId });
    if (route.name === 'models') {
      req.resume();
      return sendJson(res, { status: 200, body: listModelsBody(gw.catalog, key), requestId });
    }
    if (route.name === 'model') {
      req.resume();
      const id = modelIdOf(pathOf(req.url));
      const body = id === null ? null : modelBody(gw.catalog, key, id);
      // A model the key may not use is as absent as in the listing.
      if (body === null) throw new GatewayError('model_not_found', { message: `The model '${id ?? ''}' does not exist or this key may not use it.` });
      return sendJson(res, { status: 200, body, requestId });
    }
    if (route.name === 'usage_token') {
      req.resume();
      return sendJson(res, { status: 200, body: await usageTokenBody(gw, key, now), requestId });
    }
    if (route.name === 'response') {
      req.resume();
      const body = await storedResponse(gw, { key, id: responseIdOf(pathOf(req.url)), method: req.method ?? 'GET', now });
      return sendJson(res, { status: 200, body, requestId });
    }
    if (route.name === 'responses_input_tokens') {
      const { text, value } = parseJsonBody(await readBody(req, gw.bodyLimits));
      const counted = await countResponsesInputTokens(gw, { key, text, value });
      return sendJson(res, { status: 200, body: counted.body, requestId, headers: { 'x-modelgate-token-count': counted.source } });
    }
    const version = checkAnthropicVersion(req.headers);
    const { text, value } = parseJsonBody(await readBody(req, gw.bodyLimits));
    if (isObject(value)) checkVersionRules(value, version);
    const counted = await countTokens(gw, { key, text, value, req });
    return sendJson(res, { status: 200, body: counted.body, requestId, headers: { 'x-modelgate-token-count': counted.source } });
  } catch (err) {
    if (!(err instanceof GatewayError)) throw err;
    if (answeredOrGone(err)) return;
    req.resume();
    sendError(res, { dialect: callerDialect(route, req.headers['anthropic-version']), error: err, requestId });
  }
}

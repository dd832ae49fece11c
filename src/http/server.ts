// The node:http server: request id, exact routing by the endpoint table (`router`), /healthz, /livez, /readyz
// and /metrics, every other endpoint's own handler, and, under admin_token, the admin API and dashboard.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { GatewayConfig } from '../core/config-types.ts';
import { GatewayError } from '../core/errors.ts';
import type { Logger } from '../observability/logger.ts';
import type { Metrics } from '../observability/metrics.ts';
import { maskKeyLike, type SecretMasker } from '../core/mask-secrets.ts';
import { answerClientError } from './client-error.ts';
import { guardConnections } from './connection-guard.ts';
import { refuseOverloaded } from './overload-refusal.ts';
import { acceptHttp2 } from './http2.ts';
import { sendError, sendJson } from './respond.ts';
import { callerDialect, dialectForPath, endpointClass, pathOf } from './routes.ts';
import type { OwnRoute, Router, RouteMatch } from './endpoint.ts';
import { CorsPolicy, refusalMessage } from './cors.ts';
import type { Readiness } from '../observability/readiness.ts';

export interface ServerOptions {
  config: Pick<
    GatewayConfig,
    'clientHeaderTimeoutMs' | 'clientRequestTimeoutMs' | 'corsOrigins' | 'maxConnections' | 'maxConnectionsPerAddress'
  >;
  metrics: Pick<Metrics, 'connectionsDropped' | 'contentType' | 'render' | 'unrouted'>;
  log: Logger;
  masker: SecretMasker;
  /** Whether an Authorization header opens GET /metrics; null when metrics_token is unset (then it is open). */
  metricsAuthorized: ((authorization: string | undefined) => boolean) | null;
  /** Every API endpoint, each with its handler (pipeline/endpoint-table.ts). */
  router: Router;
  /** /admin/ (and the sign-in's /auth/) and /ui/; both null without admin_token, admin_tokens or oidc, and their paths are then 404. */
  admin: ((req: IncomingMessage, res: ServerResponse, path: string, requestId: string) => void) | null;
  ui: ((req: IncomingMessage, res: ServerResponse, path: string) => void) | null;
  /** While `shedding`, API requests it does not `admit()` get a fast 503 `overloaded` (load-shedding.ts); null: never. */
  shedder: { readonly shedding: boolean; admit(): boolean } | null;
  /** /readyz's answer; while it drains, every answer closes its connection (clients reconnect elsewhere). */
  readiness: Pick<Readiness, 'draining' | 'reasons'>;
}

/** Request ids: a per-process random prefix and a counter — unique, sortable within a process, and cheap. */
const REQUEST_ID_PREFIX = `req_${randomBytes(6).toString('hex')}`;
let requestCounter = 0;

export function newRequestId(): string {
  requestCounter = (requestCounter + 1) % 0x7fffffff;
  return `${REQUEST_ID_PREFIX}${requestCounter.toString(36).padStart(6, '0')}`;
}

/** The response a socket is serving now (one property store a request), for Node's refusal of its next request. */
const RESPONSE = Symbol('modelgate.response');
type Tagged = Socket & { [RESPONSE]?: ServerResponse };

/** The last 'connection refused' warning: one a minute at most, the metric counts them all. */
let lastDropLog = -Infinity;

export function createGatewayServer(gw: ServerOptions): Server {
  // A client that stalls before its request is whole (slowloris) holds a socket and a buffer; it gets a
  // 408 and loses the connection once its headers are late (client_header_timeout_ms) or its whole
  // request is (client_request_timeout_ms). The response is not under that clock: a stream may run for
  // hours. Node checks its connections every connectionsCheckingInterval, so that follows a short timeout.
  const requestTimeout = gw.config.clientRequestTimeoutMs;
  const headersTimeout = Math.min(gw.config.clientHeaderTimeoutMs, requestTimeout);
  const cors = gw.config.corsOrigins.length === 0 ? null : new CorsPolicy(gw.config.corsOrigins);
  const { admin, ui, readiness, router } = gw;
  const shedder = gw.shedder;
  const server = createServer(
    {
      keepAliveTimeout: 65_000,
      requestTimeout,
      headersTimeout,
      connectionsCheckingInterval: Math.min(30_000, Math.max(100, Math.floor(headersTimeout / 4))),
    },
    function modelgateRequest(req: IncomingMessage, res: ServerResponse) {
      const requestId = newRequestId();
      (req.socket as Tagged)[RESPONSE] = res;
      // A stopping gateway keeps no connection open for a next request: the client's next one goes to a
      // replica that is staying. (HTTP/2 has no Connection header: its sessions get a GOAWAY at close.)
      if (readiness.draining && req.httpVersionMajor === 1) res.setHeader('connection', 'close');
      // Answers to the origins the operator named carry CORS headers, errors included (a browser script
      // can then read why); without cors_origins nothing is looked at here.
      if (cors !== null) {
        const origin = req.headers.origin;
        if (cors.allows(origin))
          for (const [name, value] of Object.entries(cors.responseHeaders(origin))) res.setHeader(name, value);
        else res.setHeader('vary', 'Origin');
      }
      const path = pathOf(req.url);
      let match = router.find(path);
      const variant = match?.endpoint.variant;
      if (variant !== undefined && variant.when(req))
        match = { endpoint: variant.endpoint, params: variant.params(path) };
      const route = match?.endpoint;
      if (!route && admin !== null && ui !== null) {
        if (path.startsWith('/admin/') || path.startsWith('/auth/')) return admin(req, res, path, requestId);
        if (path === '/ui' || path.startsWith('/ui/')) return ui(req, res, path);
      }
      if (!route) {
        req.resume();
        refusedRoute(gw, { req, path, reason: 'unknown_path' });
        sendError(res, {
          dialect: dialectForPath(path, req.headers['anthropic-version']),
          error: new GatewayError('not_found', {
            message: `No route for ${req.method} ${path}. Paths are exact: /v1/chat/completions, /v1/messages, /v1/responses, /v1/models, /api/usage/token.`,
          }),
          requestId,
        });
        return;
      }
      // HEAD is GET without the body (RFC 9110 §9.3.2; load balancers probe /healthz with it): node:http
      // drops the body of a response to HEAD by itself.
      const methods = route.methods;
      if (
        req.method !== methods[0] &&
        !methods.includes(req.method ?? '') &&
        !(req.method === 'HEAD' && methods.includes('GET'))
      ) {
        req.resume();
        const allow = (methods.includes('GET') ? [...methods, 'HEAD'] : methods).join(', ');
        if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
          answerPreflight(gw, { req, res, route, path, allow, requestId, cors });
          return;
        }
        refusedRoute(gw, { req, path, reason: 'method_not_allowed' });
        sendError(res, {
          dialect: callerDialect(route, req.headers['anthropic-version']),
          error: new GatewayError('method_not_allowed', {
            message: `${req.method} is not allowed on ${path}; use ${methods[0]}.`,
          }),
          requestId,
          headers: { allow },
        });
        return;
      }
      const own = route.own;
      if (own === 'metrics' && gw.metricsAuthorized !== null && !gw.metricsAuthorized(req.headers.authorization)) {
        req.resume();
        sendError(res, {
          dialect: 'openai',
          error: new GatewayError('invalid_api_key', {
            message:
              'GET /metrics needs `Authorization: Bearer <metrics_token>` (the metrics_token setting); API keys do not open it.',
          }),
          requestId,
          headers: { 'www-authenticate': 'Bearer' },
        });
        return;
      }
      // A loop past its capacity: a share of new requests is refused at once, before its body is read,
      // so the admitted ones keep their latency.
      if (own === undefined && shedder !== null && shedder.shedding && !shedder.admit()) {
        req.resume();
        refuseOverloaded(res, callerDialect(route, req.headers['anthropic-version']), requestId);
        return;
      }
      const served =
        own === undefined ? route.serve(req, res, match as RouteMatch, requestId) : serveOwn(gw, res, own, requestId);
      served.catch((err: unknown) => {
        gw.log.error({ requestId, err: gw.masker.mask(String(err)) }, 'handler failed');
        if (!res.headersSent)
          sendError(res, { dialect: route.dialect, error: new GatewayError('internal_error'), requestId });
        else res.destroy();
      });
    },
  );
  // HTTP/2 with prior knowledge on the same port (the AWS SDK's default for Bedrock Runtime): its requests
  // take the same handler through node:http2's compatibility objects, which have what it reads.
  const handler = server.listeners('request')[0] as (req: IncomingMessage, res: ServerResponse) => void;
  acceptHttp2(server, {
    onRequest: handler as unknown as Parameters<typeof acceptHttp2>[1]['onRequest'],
    firstByteTimeoutMs: headersTimeout,
  });
  // Malformed HTTP never crashes the process; the socket is answered and closed: 408 for a request that
  // did not arrive in time, 431 for headers over Node's limit, else 400, each with a body in the caller's
  // dialect (client-error.ts).
  server.on('clientError', (err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket) =>
    answerClientError(err, socket, (socket as Tagged)[RESPONSE], newRequestId(), router),
  );
  // Past max_connections open client connections, or an address's share of them, a new one is closed at
  // once: a flood of connections must not take the file descriptors every upstream call needs too, nor
  // one address the slots every other client needs (connection-guard.ts).
  guardConnections(server, {
    maxConnections: gw.config.maxConnections,
    maxConnectionsPerAddress: gw.config.maxConnectionsPerAddress,
    idle: (socket) => (socket as Tagged)[RESPONSE]?.writableFinished === true,
    dropped: (reason) => {
      gw.metrics.connectionsDropped++;
      const now = Date.now();
      if (now - lastDropLog < 60_000) return;
      lastDropLog = now;
      gw.log.warn(
        { maxConnections: gw.config.maxConnections, maxConnectionsPerAddress: gw.config.maxConnectionsPerAddress },
        reason === 'max_connections'
          ? `connection refused: ${gw.config.maxConnections} client connections are open (max_connections); counted in modelgate_connections_dropped_total`
          : `connection refused: one client address holds ${gw.config.maxConnectionsPerAddress} connections (max_connections_per_address); counted in modelgate_connections_dropped_total`,
      );
    },
  });
  return server;
}

/** A request no route served: counted by endpoint class (never the raw path) and logged at debug. */
function refusedRoute(gw: ServerOptions, r: { req: IncomingMessage; path: string; reason: string }): void {
  const cls = endpointClass(r.path);
  gw.metrics.unrouted(cls, r.reason);
  if (gw.log.isLevelEnabled('debug')) {
    gw.log.debug(
      { method: r.req.method, endpointClass: cls, path: maskKeyLike(r.path.slice(0, 200)), reason: r.reason },
      'request refused before routing',
    );
  }
}

/**
 * A CORS preflight: 204 with what the route allows when the origin is in cors_origins; else a 403 in
 * the route's dialect that says cross-origin calls are off and how an operator turns them on.
 */
function answerPreflight(
  gw: ServerOptions,
  p: {
    req: IncomingMessage;
    res: ServerResponse;
    route: RouteMatch['endpoint'];
    path: string;
    allow: string;
    requestId: string;
    cors: CorsPolicy | null;
  },
): void {
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

/**
 * The server's own routes: /healthz (kept as it was: 200 while the process answers), /livez (the process
 * is alive: restart it when this fails), /readyz (send it requests: 503 while draining for a stop or
 * while a store the requests need is unreachable), and /metrics.
 */
async function serveOwn(gw: ServerOptions, res: ServerResponse, own: OwnRoute, requestId: string): Promise<void> {
  if (own === 'healthz' || own === 'root') return sendJson(res, { status: 200, body: '{"status":"ok"}', requestId });
  if (own === 'livez') return sendJson(res, { status: 200, body: '{"status":"alive"}', requestId });
  if (own === 'readyz') {
    const reasons = gw.readiness.reasons();
    if (reasons.length === 0) return sendJson(res, { status: 200, body: '{"status":"ready"}', requestId });
    return sendJson(res, { status: 503, body: JSON.stringify({ status: 'not ready', reasons }), requestId });
  }
  const text = await gw.metrics.render();
  res.writeHead(200, { 'content-type': gw.metrics.contentType, 'x-request-id': requestId });
  res.end(text);
}

// The node:http server: request id, exact routing, and dispatch to the stage handlers.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { GatewayError } from '../core/errors.ts';
import { handleGeneration } from '../pipeline/generate.ts';
import { authenticate, checkAnthropicVersion } from '../pipeline/authenticate.ts';
import { listModelsBody } from '../pipeline/list-models.ts';
import { usageTokenBody } from '../pipeline/usage-token.ts';
import { countTokens } from '../pipeline/count-tokens.ts';
import type { Gateway } from '../pipeline/gateway.ts';
import { readBody, parseJsonBody } from './body.ts';
import { sendError, sendJson } from './respond.ts';
import { newRequestId } from './request-id.ts';
import { dialectForPath, findRoute, pathOf, type Route } from './routes.ts';

export function createGatewayServer(gw: Gateway): Server {
  const server = createServer({ keepAliveTimeout: 65_000, requestTimeout: 0 }, function modelgateRequest(req, res) {
    const requestId = newRequestId();
    const path = pathOf(req.url);
    const route = findRoute(path);
    if (!route) {
      req.resume();
      sendError(res, {
        dialect: dialectForPath(path),
        error: new GatewayError('not_found', { message: `No route for ${req.method} ${path}. Paths are exact: /v1/chat/completions, /v1/messages, /v1/models, /api/usage/token.` }),
        requestId,
      });
      return;
    }
    if (req.method !== route.method) {
      req.resume();
      sendError(res, {
        dialect: route.dialect,
        error: new GatewayError('method_not_allowed', { message: `${req.method} is not allowed on ${path}; use ${route.method}.` }),
        requestId,
        headers: { allow: route.method },
      });
      return;
    }
    dispatch(gw, req, res, route, requestId).catch((err: unknown) => {
      gw.log.error({ requestId, err: gw.masker.mask(String(err)) }, 'handler failed');
      if (!res.headersSent) sendError(res, { dialect: route.dialect, error: new GatewayError('internal_error'), requestId });
      else res.destroy();
    });
  });
  // Malformed HTTP never crashes the process; the socket is answered 400 and closed.
  server.on('clientError', (err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    else socket.destroy(err);
  });
  return server;
}

async function dispatch(gw: Gateway, req: IncomingMessage, res: ServerResponse, route: Route, requestId: string): Promise<void> {
  switch (route.name) {
    case 'chat':
      return handleGeneration(gw, req, res, { dialect: 'openai', requestId, endpoint: '/v1/chat/completions' });
    case 'messages':
      return handleGeneration(gw, req, res, { dialect: 'anthropic', requestId, endpoint: '/v1/messages' });
    case 'healthz':
      return sendJson(res, { status: 200, body: '{"status":"ok"}', requestId });
    case 'metrics':
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4', 'x-request-id': requestId });
      res.end(gw.metrics.render());
      return;
    default:
      return simpleAuthed(gw, req, res, route, requestId);
  }
}

async function simpleAuthed(gw: Gateway, req: IncomingMessage, res: ServerResponse, route: Route, requestId: string): Promise<void> {
  try {
    const now = Date.now();
    const key = authenticate(req.headers, gw.keys, now, req.socket);
    if (route.name === 'models') {
      req.resume();
      return sendJson(res, { status: 200, body: listModelsBody(gw.catalog, key), requestId });
    }
    if (route.name === 'usage_token') {
      req.resume();
      return sendJson(res, { status: 200, body: await usageTokenBody(gw, key, now), requestId });
    }
    checkAnthropicVersion(req.headers);
    const { text, value } = parseJsonBody(await readBody(req, gw.config.bodyLimitBytes));
    const counted = await countTokens(gw, { key, text, value, req });
    return sendJson(res, { status: 200, body: counted.body, requestId, headers: { 'x-modelgate-token-count': counted.source } });
  } catch (err) {
    if (!(err instanceof GatewayError)) throw err;
    req.resume();
    sendError(res, { dialect: route.dialect, error: err, requestId });
  }
}

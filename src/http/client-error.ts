// Requests Node's parser refuses before a handler sees them (malformed HTTP, headers over the limit, a
// request not in time) answered with an error body in the caller's dialect where its path is known,
// JSON otherwise, instead of an empty body. Only public APIs: 'clientError', err.rawPacket.
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { GatewayError } from '../core/errors.ts';
import type { Dialect } from '../core/dialect.ts';
import { renderError } from '../dialects/render-error.ts';
import { markAnsweredByNode } from './body.ts';
import { callerDialect, dialectForPath, pathOf } from './routes.ts';
import type { Router } from './endpoint.ts';

const STATUS_LINES: Readonly<Record<number, string>> = {
  400: '400 Bad Request',
  408: '408 Request Timeout',
  431: '431 Request Header Fields Too Large',
};

/**
 * `res` is the response the socket was serving last (server.ts notes it per request), if any; `router`
 * finds the endpoint whose dialect the answer is written in.
 */
export function answerClientError(
  err: NodeJS.ErrnoException & { rawPacket?: Buffer },
  socket: Socket,
  res: ServerResponse | undefined,
  requestId: string,
  router: Router,
): void {
  const current = res !== undefined && !res.writableFinished ? res : undefined;
  // Not while a response is under way on the socket: raw bytes in the middle of it would corrupt what
  // the client already has.
  if (!socket.writable || current?.headersSent === true) {
    socket.destroy(err);
    return;
  }
  if (err.code !== undefined) markAnsweredByNode(socket, err.code);
  const error = refusal(err);
  const body = renderError(dialectOf(router, current, err.rawPacket), error, requestId);
  // The socket is closed once the answer is flushed, not half-closed: a client that never reads or
  // closes must not keep its slot under max_connections.
  socket.end(
    `HTTP/1.1 ${STATUS_LINES[error.status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
      `connection: close\r\nx-request-id: ${requestId}\r\nrequest-id: ${requestId}\r\n\r\n${body}`,
    () => socket.destroy(),
  );
  // A client that does not read its answer leaves it unflushed: it goes anyway after a short while.
  socket.setTimeout(5_000, () => socket.destroy());
}

function refusal(err: NodeJS.ErrnoException): GatewayError {
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return new GatewayError('request_timeout');
  if (err.code === 'HPE_HEADER_OVERFLOW') return new GatewayError('header_too_large');
  return new GatewayError('malformed_http', {
    message: `The request is not valid HTTP (${err.code ?? 'unparseable'}).`,
  });
}

/**
 * The request's dialect: from the request in progress when there is one (a body that did not arrive in
 * time), else from the request line and headers Node could read before it gave up.
 */
function dialectOf(router: Router, current: ServerResponse | undefined, raw: Buffer | undefined): Dialect {
  if (current !== undefined)
    return dialectFor(router, pathOf(current.req.url), current.req.headers['anthropic-version'] !== undefined);
  if (raw === undefined || raw.length === 0) return 'openai';
  const head = raw.subarray(0, 16_384).toString('latin1');
  const target = /^[A-Z]+ (\S+) HTTP\//.exec(head)?.[1];
  if (target === undefined) return 'openai';
  return dialectFor(router, pathOf(target), /\r\nanthropic-version:/i.test(head));
}

function dialectFor(router: Router, path: string, anthropicVersion: boolean): Dialect {
  const route = router.find(path)?.endpoint;
  const version = anthropicVersion ? '' : undefined;
  return route === undefined ? dialectForPath(path, version) : callerDialect(route, version);
}

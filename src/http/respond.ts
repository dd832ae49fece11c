// Writing whole responses: JSON bodies and dialect-shaped errors, always with the request id headers.
import type { ServerResponse } from 'node:http';
import type { Dialect } from '../core/dialect.ts';
import type { GatewayError } from '../core/errors.ts';
import { renderError } from '../dialects/render-error.ts';

export function sendJson(
  res: ServerResponse,
  opts: { status: number; body: string; requestId: string; headers?: Record<string, string> },
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(opts.status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(opts.body),
    'x-request-id': opts.requestId,
    'request-id': opts.requestId,
    ...opts.headers,
  });
  res.end(opts.body);
}

export function sendError(
  res: ServerResponse,
  opts: { dialect: Dialect; error: GatewayError; requestId: string; headers?: Record<string, string> },
): void {
  sendJson(res, {
    status: opts.error.status,
    body: renderError(opts.dialect, opts.error, opts.requestId),
    requestId: opts.requestId,
    headers: { ...opts.headers, ...opts.error.headers },
  });
}

// The reference floor for any Node proxy: node:http in, undici Pool.request out, bytes piped both ways.
// Run as `node bench/bare-proxy.ts --port 0 --upstream http://127.0.0.1:N`; prints `{"port":N}`. `--h2`: the
// pool offers HTTP/2 by ALPN, the floor for an HTTPS upstream that takes it.
import http from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';

// undici refuses hop-by-hop headers, and the pool sets its own host.
const DROP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'host', 'proxy-connection']);

function forwardable(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined && !DROP.has(name)) out[name] = value;
  }
  return out;
}

export function createBareProxy(upstream: string, h2 = false): http.Server {
  // No connection cap: 1,000 held streams need 1,000 upstream connections over HTTP/1.1.
  const pool = h2
    ? new Pool(upstream, { connections: null, allowH2: true })
    : new Pool(upstream, { connections: null, pipelining: 1, allowH2: false });
  const server = http.createServer(function bareProxy(req, res) {
    pool
      .request({
        path: req.url ?? '/',
        method: req.method as 'POST',
        headers: forwardable(req.headers),
        body: req.method === 'GET' ? null : req,
      })
      .then((up) => {
        res.writeHead(up.statusCode, forwardable(up.headers));
        up.body.pipe(res);
      })
      .catch((error: Error) => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(error.message);
      });
  });
  server.keepAliveTimeout = 120_000;
  return server;
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: { port: { type: 'string', default: '0' }, upstream: { type: 'string' }, h2: { type: 'boolean' } },
  });
  if (values.upstream === undefined) throw new Error('--upstream http://host:port is required');
  const server = createBareProxy(values.upstream, values.h2 === true);
  server.listen(Number(values.port), '127.0.0.1', () => {
    process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
  });
  process.on('SIGTERM', () => process.exit(0));
}

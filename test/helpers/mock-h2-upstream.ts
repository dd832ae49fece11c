// An OpenAI-style upstream over HTTP/2 for end-to-end tests: TLS with a self-signed certificate made for
// the test (h2 offered by ALPN, HTTP/1.1 too), or h2c by prior knowledge. Each chat stream sends its
// first event at once and holds the rest until the test releases it, so a test can hold many streams
// open, send GOAWAY while they are, or reset some of them.
import http2 from 'node:http2';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';

export interface H2MockOptions {
  /** TLS (h2 by ALPN) or plain h2c; default TLS. */
  tls?: boolean;
  /** SETTINGS_MAX_CONCURRENT_STREAMS the server announces; default 100. */
  maxConcurrentStreams?: number;
  /** Streams reset (RST_STREAM, INTERNAL_ERROR) before any answer: every one when true. */
  resetStreams?: boolean;
  /** Streams are held after their first event until `release()`; default true. */
  hold?: boolean;
}

export interface H2Mock {
  /** The base URL for a provider (`…/v1`). */
  readonly baseUrl: string;
  /** The certificate's file, for NODE_EXTRA_CA_CERTS (TLS only). */
  readonly caFile: string;
  /** Connections accepted so far. */
  readonly connections: number;
  /** Chat streams being answered now, and requests seen in all. */
  readonly streamsOpen: number;
  readonly requests: number;
  /** Streams the client closed before their end (RST_STREAM from the gateway). */
  readonly cancelled: number;
  /** Requests that came over HTTP/1.1 (a client that did not take h2 when offered), answered whole at once. */
  readonly http1Requests: number;
  /** Resolves once `n` streams are open at the same time. */
  streamsAtLeast(n: number): Promise<void>;
  /** Ends every held stream, and every later one as soon as it has started. */
  release(): void;
  /** A graceful GOAWAY on every connection: streams in flight go on, new ones must use a new connection. */
  goaway(): void;
  close(): Promise<void>;
}

const chunk = (delta: Record<string, unknown>, finish: string | null): string =>
  `data: ${JSON.stringify({ id: 'h2-1', object: 'chat.completion.chunk', created: 1, model: 'upstream-h2', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const USAGE = `data: ${JSON.stringify({ id: 'h2-1', object: 'chat.completion.chunk', created: 1, model: 'upstream-h2', choices: [], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } })}\n\n`;
/** The text every whole stream carries. */
export const H2_REPLY_TEXT = 'hello world';

export async function startH2Mock(o: H2MockOptions = {}): Promise<H2Mock> {
  const tls = o.tls !== false;
  const dir = mkdtempSync(join(tmpdir(), 'modelgate-h2-'));
  const keyFile = join(dir, 'key.pem');
  const caFile = join(dir, 'cert.pem');
  if (tls)
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyFile]
        .concat(['-out', caFile, '-days', '1', '-subj', '/CN=localhost'])
        .concat(['-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1']),
      { stdio: 'ignore' },
    );
  const settings = { maxConcurrentStreams: o.maxConcurrentStreams ?? 100 };
  const server = tls
    ? http2.createSecureServer({
        key: readFileSync(keyFile),
        cert: readFileSync(caFile),
        allowHTTP1: true,
        settings,
      })
    : http2.createServer({ settings });
  const sessions = new Set<http2.ServerHttp2Session>();
  const held = new Set<() => void>();
  const waiters: { n: number; resolve: () => void }[] = [];
  let connections = 0;
  let streamsOpen = 0;
  let requests = 0;
  let cancelled = 0;
  let released = o.hold === false;
  let http1Requests = 0;

  server.on('session', (session: http2.ServerHttp2Session) => {
    connections++;
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
    session.on('error', () => {});
  });
  server.on('stream', (stream, headers) => {
    requests++;
    stream.on('error', () => {});
    if (o.resetStreams === true) {
      stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
      return;
    }
    // The body is read whole before the answer, as a real upstream does.
    stream.resume();
    stream.on('end', () => {
      if (headers[':path'] !== '/v1/chat/completions') {
        stream.respond({ ':status': 404 });
        stream.end();
        return;
      }
      streamsOpen++;
      for (const w of [...waiters])
        if (streamsOpen >= w.n) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      let finished = false;
      stream.once('close', () => {
        streamsOpen--;
        if (!finished) cancelled++;
        held.delete(finish);
      });
      stream.respond({ ':status': 200, 'content-type': 'text/event-stream' });
      stream.write(chunk({ role: 'assistant', content: 'hello' }, null));
      function finish(): void {
        if (stream.destroyed || stream.closed) return;
        finished = true;
        stream.write(chunk({ content: ' world' }, null));
        stream.write(chunk({}, 'stop'));
        stream.write(USAGE);
        stream.end('data: [DONE]\n\n');
      }
      if (released) setImmediate(finish);
      else held.add(finish);
    });
  });
  // With allowHTTP1, a client that did not take h2 arrives here (h2 requests come as 'stream' above).
  server.on('request', (req, res) => {
    if (req.httpVersion === '2.0') return;
    http1Requests++;
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ role: 'assistant', content: 'hello' }, null));
      res.write(chunk({ content: ' world' }, 'stop'));
      res.write(USAGE);
      res.end('data: [DONE]\n\n');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;

  return {
    baseUrl: tls ? `https://localhost:${port}/v1` : `http://127.0.0.1:${port}/v1`,
    caFile,
    get connections() {
      return connections;
    },
    get streamsOpen() {
      return streamsOpen;
    },
    get requests() {
      return requests;
    },
    get cancelled() {
      return cancelled;
    },
    get http1Requests() {
      return http1Requests;
    },
    streamsAtLeast(n) {
      if (streamsOpen >= n) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ n, resolve }));
    },
    release() {
      released = true;
      for (const finish of [...held]) finish();
      held.clear();
    },
    goaway() {
      for (const s of sessions) s.close();
    },
    async close() {
      for (const s of sessions) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// The benchmark's standalone mock upstream: OpenAI- and Anthropic-style replies, JSON or SSE, with
// configurable chunk count, size, pacing and latency, and a hold mode that parks streams for the
// 1,000-open-streams scenario. Run as `node bench/mock-upstream.ts --port 0`; prints `{"port":N}`. With
// `--tls-dir DIR` (DIR/key.pem, DIR/cert.pem) it also serves HTTPS offering HTTP/2 by ALPN (HTTP/1.1 too),
// as the large providers do, and prints `{"port":N,"tlsPort":M}`: the plain port stays for the harness.
// Under /agent/<deployment>/ it answers agent-shaped requests with a prompt cache per deployment
// (agents/mock-agent.ts).
import http from 'node:http';
import http2 from 'node:http2';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { AGENT_PREFIX, createAgentMock } from './agents/mock-agent.ts';
import { buildMockBodies } from './mock-bodies.ts';
import type { MockBodies, StreamBodies } from './mock-bodies.ts';

/** `none`: the whole stream in one write; `tick`: one content event per event-loop turn; a number: ms between events. */
export type Pacing = 'none' | 'tick' | number;

export interface MockOptions {
  chunks: number;
  chunkSize: number;
  pacing: Pacing;
  /** Delay before the response headers, ms. */
  latencyMs: number;
}

export interface MockStats {
  requests: number;
  streams: number;
  held: number;
  active: number;
  /** Connections open now, to the plain port and the HTTPS one (the reader's own /stats request included). */
  connections: number;
}

interface ActiveStream {
  res: ServerResponse;
  bodies: StreamBodies;
  sent: number;
  withUsage: boolean;
}

const JSON_HEADERS = { 'content-type': 'application/json' };
const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };
const STREAM_TRUE = /"stream"\s*:\s*true/;
const INCLUDE_USAGE = /"include_usage"\s*:\s*true/;
const HOLD_PREFIX = '/hold/';

// One pump advances every active stream by one content event per step, so pacing costs one timer in
// total rather than one per stream.
class StreamPump {
  readonly active = new Set<ActiveStream>();
  readonly held = new Set<ActiveStream>();
  /** Whether /hold streams are parked; /release turns it off so queued streams finish, /hold/arm back on. */
  holding = true;
  #scheduled = false;
  readonly #options: MockOptions;
  readonly #step = (): void => this.#advance();

  constructor(options: MockOptions) {
    this.#options = options;
  }

  start(stream: ActiveStream, hold: boolean): void {
    const { res, bodies } = stream;
    res.writeHead(200, SSE_HEADERS);
    if (this.#options.pacing === 'none' && !hold) {
      res.end(
        Buffer.concat([bodies.head, ...Array<Buffer>(this.#options.chunks).fill(bodies.content), tailOf(stream)]),
      );
      return;
    }
    res.write(bodies.head);
    const park = hold && this.holding;
    const set = park ? this.held : this.active;
    set.add(stream);
    res.on('close', () => set.delete(stream));
    if (!park) this.#schedule();
  }

  release(): number {
    this.holding = false;
    const count = this.held.size;
    for (const stream of this.held) {
      this.active.add(stream);
      stream.res.on('close', () => this.active.delete(stream));
    }
    this.held.clear();
    this.#schedule();
    return count;
  }

  #schedule(): void {
    if (this.#scheduled || this.active.size === 0) return;
    this.#scheduled = true;
    const pacing = this.#options.pacing;
    if (pacing === 'tick' || pacing === 'none') setImmediate(this.#step);
    else setTimeout(this.#step, pacing);
  }

  #advance(): void {
    this.#scheduled = false;
    for (const stream of this.active) {
      if (stream.sent < this.#options.chunks) {
        stream.res.write(stream.bodies.content);
        stream.sent += 1;
      } else {
        stream.res.end(tailOf(stream));
        this.active.delete(stream);
      }
    }
    this.#schedule();
  }
}

function tailOf(stream: ActiveStream): Buffer {
  return stream.withUsage ? stream.bodies.tailWithUsage : stream.bodies.tail;
}

function pathOf(url: string | undefined): string {
  const raw = url ?? '/';
  const q = raw.indexOf('?');
  return q === -1 ? raw : raw.slice(0, q);
}

export function createMockUpstream(options: MockOptions): {
  server: http.Server;
  stats: () => MockStats;
  /** Serves the same replies over HTTPS with HTTP/2 offered, with the certificate in `dir`. */
  tls: (dir: string) => http2.Http2SecureServer;
} {
  const bodies: MockBodies = buildMockBodies(options);
  const pump = new StreamPump(options);
  const counts = { requests: 0, streams: 0 };
  const agent = createAgentMock();

  function reply(req: IncomingMessage, res: ServerResponse, body: string): void {
    const path = pathOf(req.url);
    if (path.startsWith(AGENT_PREFIX) && agent.reply(path, res, body)) {
      counts.requests += 1;
      return;
    }
    const openai = path.endsWith('/chat/completions');
    if (!openai && !path.endsWith('/messages')) {
      res.writeHead(404, JSON_HEADERS).end('{"error":{"message":"mock: unknown path","type":"not_found"}}');
      return;
    }
    counts.requests += 1;
    if (!STREAM_TRUE.test(body)) {
      res.writeHead(200, JSON_HEADERS).end(openai ? bodies.openaiJson : bodies.anthropicJson);
      return;
    }
    counts.streams += 1;
    const stream: ActiveStream = {
      res,
      bodies: openai ? bodies.openaiStream : bodies.anthropicStream,
      sent: 0,
      withUsage: openai && INCLUDE_USAGE.test(body),
    };
    pump.start(stream, path.startsWith(HOLD_PREFIX));
  }

  function control(req: IncomingMessage, res: ServerResponse): boolean {
    const path = pathOf(req.url);
    if (req.method === 'GET' && path === '/healthz') {
      res.writeHead(200, JSON_HEADERS).end('{"ok":true}');
      return true;
    }
    if (req.method === 'GET' && path === '/stats') {
      res.writeHead(200, JSON_HEADERS).end(JSON.stringify(stats()));
      return true;
    }
    if (req.method === 'POST' && path === '/hold/arm') {
      pump.holding = true;
      res.writeHead(200, JSON_HEADERS).end('{"holding":true}');
      return true;
    }
    // The instruction pass warms a proxy up on fast streams, then counts streams whose events come apart.
    if (req.method === 'POST' && path === '/pacing') {
      const to = new URL(req.url ?? '/', 'http://mock').searchParams.get('to') ?? '';
      try {
        options.pacing = parsePacing(to);
      } catch (error) {
        res.writeHead(400, JSON_HEADERS).end(JSON.stringify({ error: (error as Error).message }));
        return true;
      }
      res.writeHead(200, JSON_HEADERS).end(JSON.stringify({ pacing: options.pacing }));
      return true;
    }
    if (path.startsWith(AGENT_PREFIX) && agent.control(req, res, path)) return true;
    if (req.method === 'POST' && path === '/release') {
      res.writeHead(200, JSON_HEADERS).end(JSON.stringify({ released: pump.release() }));
      return true;
    }
    return false;
  }

  function stats(): MockStats {
    return {
      requests: counts.requests,
      streams: counts.streams,
      held: pump.held.size,
      active: pump.active.size,
      connections: connections.open,
    };
  }

  const connections = { open: 0 };
  function handle(req: IncomingMessage, res: ServerResponse): void {
    if (control(req, res)) return;
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const body = parts.length === 1 ? parts[0].toString('latin1') : Buffer.concat(parts).toString('latin1');
      if (options.latencyMs > 0) setTimeout(reply, options.latencyMs, req, res, body);
      else reply(req, res, body);
    });
  }
  const server = http.createServer(function mockUpstream(req, res) {
    handle(req, res);
  });
  // Proxies keep pooled connections; never let the mock be the one that closes them mid-run.
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 121_000;
  server.requestTimeout = 0;
  // The HTTP/2 compatibility API's request and response stand in for node:http's in the handler.
  const serveTls = (dir: string): http2.Http2SecureServer => {
    const tls = http2.createSecureServer(
      { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')), allowHTTP1: true },
      (req, res) => handle(req as unknown as IncomingMessage, res as unknown as ServerResponse),
    );
    tls.on('secureConnection', (socket) => {
      // Counted once: the TLS socket wraps a TCP one the plain count never sees.
      connections.open++;
      socket.once('close', () => connections.open--);
    });
    return tls;
  };
  server.on('connection', (socket) => {
    connections.open++;
    socket.once('close', () => connections.open--);
  });
  return { server, stats, tls: serveTls };
}

export function parsePacing(text: string): Pacing {
  if (text === 'none' || text === 'tick') return text;
  const ms = Number(text);
  if (!Number.isFinite(ms) || ms < 0) throw new Error(`--pacing must be none, tick or milliseconds, got ${text}`);
  return ms;
}

function main(): void {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '0' },
      host: { type: 'string', default: '127.0.0.1' },
      chunks: { type: 'string', default: '50' },
      'chunk-size': { type: 'string', default: '6' },
      pacing: { type: 'string', default: 'tick' },
      'latency-ms': { type: 'string', default: '0' },
      'tls-dir': { type: 'string' },
    },
  });
  const { server, tls } = createMockUpstream({
    chunks: Number(values.chunks),
    chunkSize: Number(values['chunk-size']),
    pacing: parsePacing(values.pacing),
    latencyMs: Number(values['latency-ms']),
  });
  const tlsDir = values['tls-dir'];
  server.listen(Number(values.port), values.host, () => {
    const port = (server.address() as AddressInfo).port;
    if (tlsDir === undefined) {
      process.stdout.write(`${JSON.stringify({ port })}\n`);
      return;
    }
    const secure = tls(tlsDir);
    secure.listen(0, values.host, () => {
      process.stdout.write(`${JSON.stringify({ port, tlsPort: (secure.address() as AddressInfo).port })}\n`);
    });
  });
  process.on('SIGTERM', () => process.exit(0));
}

if (import.meta.main) main();

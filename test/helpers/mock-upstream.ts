// A programmable upstream on 127.0.0.1 that speaks the real OpenAI and Anthropic wire formats, records every
// request and can be told to fail in specific ways, so end-to-end tests exercise the gateway against
// something that behaves like a provider. Routes: POST /v1/chat/completions, POST /v1/responses,
// POST /v1/responses/input_tokens, POST /v1/responses/compact, GET /v1/models (OpenAI); POST /v1/messages, POST /v1/messages/count_tokens (Anthropic).
//
//   const up = await startMockUpstream();          // openai base `${up.url}/v1`, anthropic base `${up.url}`
//   up.enqueue({ kind: 'status', status: 429, headers: { 'retry-after': '1' } });   // next request only
//   up.setBehaviour((req) => (req.path === '/v1/messages' ? { kind: 'stream-error' } : undefined));
//   await up.waitFor(() => up.requests[0]?.outcome === 'aborted', 'upstream request aborted');
//   await up.close();
//
// Pooled (keep-alive) clients keep sockets open after a response, so to prove the gateway abandoned an
// upstream call, wait on the request's `outcome`, not on `waitForSocketsClosed()`.

import { brotliCompressSync, gzipSync } from 'node:zlib';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { EventEmitter } from 'node:events';
import { anthropicFrames, anthropicMessage, anthropicTokenCount } from './mock-anthropic-wire.ts';
import { mockErrorBody } from './mock-errors.ts';
import { openaiCompletion, openaiFrames, openaiModelList } from './mock-openai-wire.ts';
import { responsesAsChat, responsesBody, responsesCompaction, responsesFrames } from './mock-responses-wire.ts';
import { orphanToolResult } from './mock-tool-pairing.ts';
import { mockPromptTokens, planReply } from './mock-reply.ts';
import { closeSignal, pause, writePrepared } from './mock-respond.ts';
import type { PreparedResponse } from './mock-respond.ts';
import { planFault } from './mock-fault-plan.ts';
import {
  chatShapeOfGemini,
  geminiBatchEmbed,
  geminiFrames,
  geminiModelList,
  geminiPath,
  geminiResponse,
  geminiTokenCount,
  openaiEmbeddings,
} from './mock-gemini-wire.ts';
import type {
  Behaviour,
  Fault,
  HeaderMap,
  MockDialect,
  MockUpstream,
  MockUpstreamOptions,
  RecordedRequest,
  WaitOptions,
} from './mock-upstream-types.ts';

export type * from './mock-upstream-types.ts';
export { countMockTokens, mockPromptTokens, DEFAULT_REPLY_TEXT } from './mock-reply.ts';
export { mockErrorBody } from './mock-errors.ts';

const DEFAULT_WAIT_MS = 2000;

type Route =
  | 'chat'
  | 'models'
  | 'messages'
  | 'count_tokens'
  | 'embeddings'
  | 'responses'
  | 'responses_input_tokens'
  | 'responses_compact';

const ROUTES: Record<string, { method: string; route: Route }> = {
  '/v1/chat/completions': { method: 'POST', route: 'chat' },
  '/v1/models': { method: 'GET', route: 'models' },
  '/v1/messages': { method: 'POST', route: 'messages' },
  '/v1/messages/count_tokens': { method: 'POST', route: 'count_tokens' },
  '/v1/embeddings': { method: 'POST', route: 'embeddings' },
  '/v1/responses': { method: 'POST', route: 'responses' },
  '/v1/responses/input_tokens': { method: 'POST', route: 'responses_input_tokens' },
  '/v1/responses/compact': { method: 'POST', route: 'responses_compact' },
};

function dialectOfPath(path: string): MockDialect {
  if (path.startsWith('/v1beta/') || geminiPath(path) !== null) return 'gemini';
  return path.startsWith('/v1/messages') ? 'anthropic' : path.startsWith('/v1/responses') ? 'responses' : 'openai';
}

function parseJson(body: Buffer): unknown {
  if (body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

class MockUpstreamServer implements MockUpstream {
  readonly requests: RecordedRequest[] = [];
  #server: Server;
  #initial: MockUpstreamOptions;
  #options: MockUpstreamOptions;
  #sockets = new Set<Socket>();
  #queue: Fault[] = [];
  #behaviour: Behaviour | undefined;
  #events = new EventEmitter();
  #sequence = 0;
  #port = 0;

  constructor(options: MockUpstreamOptions) {
    this.#initial = { ...options };
    this.#options = { ...options };
    this.#events.setMaxListeners(0);
    this.#server = createServer((req, res) => {
      // A client that aborts mid-body, or a throwing custom handler, must not crash the test process.
      this.#handle(req, res).catch(() => res.destroy());
    });
    this.#server.on('connection', (socket: Socket) => {
      this.#sockets.add(socket);
      this.#changed();
      socket.once('close', () => {
        this.#sockets.delete(socket);
        this.#changed();
      });
    });
  }

  get url(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  get port(): number {
    return this.#port;
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(0, '127.0.0.1', () => resolve());
    });
    this.#port = (this.#server.address() as AddressInfo).port;
  }

  enqueue(...faults: Fault[]): void {
    this.#queue.push(...faults);
  }

  setBehaviour(fn: Behaviour | undefined): void {
    this.#behaviour = fn;
  }

  configure(options: MockUpstreamOptions): void {
    this.#options = { ...this.#options, ...options };
  }

  openSockets(): number {
    return this.#sockets.size;
  }

  inFlight(): number {
    return this.requests.filter((r) => r.outcome === 'pending').length;
  }

  waitForRequests(n: number, options?: WaitOptions): Promise<void> {
    return this.waitFor(() => this.requests.length >= n, `${n} request(s)`, options);
  }

  waitForSocketsClosed(options?: WaitOptions): Promise<void> {
    return this.waitFor(() => this.#sockets.size === 0, 'all sockets to close', options);
  }

  waitFor(predicate: () => boolean, description: string, options?: WaitOptions): Promise<void> {
    if (predicate()) return Promise.resolve();
    const timeoutMs = options?.timeoutMs ?? DEFAULT_WAIT_MS;
    return new Promise((resolve, reject) => {
      const onChange = (): void => {
        if (!predicate()) return;
        cleanup();
        resolve();
      };
      const timer = setTimeout(() => {
        cleanup();
        const state = `requests=${this.requests.length}, openSockets=${this.#sockets.size}, inFlight=${this.inFlight()}`;
        reject(new Error(`mock upstream: timed out after ${timeoutMs} ms waiting for ${description} (${state})`));
      }, timeoutMs);
      const cleanup = (): void => {
        clearTimeout(timer);
        this.#events.off('change', onChange);
      };
      this.#events.on('change', onChange);
    });
  }

  reset(): void {
    this.requests.length = 0;
    this.#sequence = 0;
    this.#queue = [];
    this.#behaviour = undefined;
    this.#options = { ...this.#initial };
    this.#changed();
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    for (const socket of this.#sockets) socket.destroy();
    await closed;
  }

  #changed(): void {
    this.#events.emit('change');
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const url = req.url ?? '/';
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.split('?')[0],
      url,
      headers: req.headers,
      body,
      json: parseJson(body),
      outcome: 'pending',
    };
    const sequence = ++this.#sequence;
    this.requests.push(recorded);
    res.once('close', () => {
      recorded.outcome = res.writableFinished ? 'finished' : 'aborted';
      this.#changed();
    });
    this.#changed();
    const fault = this.#queue.shift() ?? this.#behaviour?.(recorded);
    const dialect = dialectOfPath(recorded.path);
    if (fault?.kind === 'custom') {
      await fault.handle({ req, res, recorded, dialect });
      return;
    }
    if (!(await pause(this.#options.latencyMs ?? 0, closeSignal(res)))) return;
    if (fault?.kind === 'early-hints') res.writeEarlyHints({ link: '</hint.css>; rel=preload' });
    const asked =
      fault?.kind === 'ignore-stream' && typeof recorded.json === 'object' && recorded.json !== null
        ? { ...recorded, json: { ...recorded.json, stream: false } }
        : recorded;
    const prepared = this.#prepare({ recorded: asked, dialect, sequence });
    if (fault?.kind === 'encoded') {
      const body = prepared.pieces.join('');
      res.writeHead(prepared.status, { ...prepared.headers, 'content-encoding': fault.encoding });
      res.end(fault.encoding === 'gzip' ? gzipSync(body) : brotliCompressSync(body));
      return;
    }
    const damage = fault?.kind === 'early-hints' || fault?.kind === 'ignore-stream' ? undefined : fault;
    await this.#respond({ res, prepared, fault: damage, dialect, sequence });
  }

  #baseHeaders(dialect: MockDialect, sequence: number): HeaderMap {
    const id = `req_mock_${sequence}`;
    return dialect === 'anthropic'
      ? { 'request-id': id, 'anthropic-organization-id': 'mock-org' }
      : { 'x-request-id': id, 'openai-processing-ms': '1', 'openai-version': '2020-10-01' };
  }

  #prepare(options: { recorded: RecordedRequest; dialect: MockDialect; sequence: number }): PreparedResponse {
    const { recorded, dialect, sequence } = options;
    const headers = this.#baseHeaders(dialect, sequence);
    const json = (status: number, value: unknown): PreparedResponse => ({
      status,
      headers: { ...headers, 'content-type': 'application/json' },
      pieces: [JSON.stringify(value)],
      stream: false,
    });
    const requestId = `req_mock_${sequence}`;
    if (dialect === 'gemini') return this.#prepareGemini({ recorded, sequence, json });
    const entry = ROUTES[recorded.path];
    if (entry === undefined) return json(404, mockErrorBody({ dialect, status: 404, requestId }));
    if (entry.method !== recorded.method) {
      return json(
        405,
        mockErrorBody({ dialect, status: 405, message: `Method ${recorded.method} not allowed.`, requestId }),
      );
    }
    if (entry.route === 'models') return json(200, openaiModelList(this.#options.models ?? ['mock-model']));
    if (entry.route === 'count_tokens') return json(200, anthropicTokenCount(mockPromptTokens(recorded.json)));
    if (entry.route === 'embeddings') return json(200, openaiEmbeddings(recorded.json));
    if (entry.route === 'responses_input_tokens')
      return json(200, {
        object: 'response.input_tokens',
        input_tokens: mockPromptTokens(responsesAsChat(recorded.json)),
      });
    if (entry.route === 'chat' || entry.route === 'messages' || entry.route === 'responses') {
      const orphan = orphanToolResult(dialect, recorded.json);
      if (orphan !== null) return json(400, mockErrorBody({ dialect, status: 400, message: orphan, requestId }));
    }
    if (entry.route === 'responses_compact') {
      const asked = { ...recorded, json: { ...responsesAsChat(recorded.json), stream: false } };
      const rplan = planReply({ dialect: 'openai', recorded: asked, config: this.#options, sequence });
      return json(200, responsesCompaction(rplan, recorded.json));
    }
    if (entry.route === 'responses') {
      const asked = { ...recorded, json: responsesAsChat(recorded.json) };
      const rplan = planReply({ dialect: 'openai', recorded: asked, config: this.#options, sequence });
      if (!rplan.stream) return json(200, responsesBody(rplan, recorded.json));
      return {
        status: 200,
        headers: { ...headers, 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' },
        pieces: responsesFrames(rplan, recorded.json),
        stream: true,
      };
    }
    const plan = planReply({
      dialect: dialect === 'anthropic' ? 'anthropic' : 'openai',
      recorded,
      config: this.#options,
      sequence,
    });
    if (!plan.stream) return json(200, dialect === 'openai' ? openaiCompletion(plan) : anthropicMessage(plan));
    return {
      status: 200,
      headers: { ...headers, 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' },
      pieces: dialect === 'openai' ? openaiFrames(plan) : anthropicFrames(plan),
      stream: true,
    };
  }

  /** Gemini's paths: the model and the method are in the path, the stream only with `?alt=sse`. */
  #prepareGemini(options: {
    recorded: RecordedRequest;
    sequence: number;
    json: (status: number, value: unknown) => PreparedResponse;
  }): PreparedResponse {
    const { recorded, sequence, json } = options;
    const requestId = `req_mock_${sequence}`;
    if (recorded.method === 'GET' && recorded.path === '/v1beta/models')
      return json(200, geminiModelList(this.#options.models ?? ['mock-model']));
    const call = geminiPath(recorded.path);
    if (call === null || recorded.method !== 'POST')
      return json(404, mockErrorBody({ dialect: 'gemini', status: 404, requestId }));
    if (call.method === 'countTokens') return json(200, geminiTokenCount(recorded.json));
    if (call.method === 'batchEmbedContents') return json(200, geminiBatchEmbed(recorded.json));
    const stream = call.method === 'streamGenerateContent';
    if (!stream && call.method !== 'generateContent')
      return json(404, mockErrorBody({ dialect: 'gemini', status: 404, requestId }));
    const shaped = {
      ...recorded,
      json: chatShapeOfGemini(recorded.json, call.model, stream && recorded.url.includes('alt=sse')),
    };
    const plan = planReply({ dialect: 'openai', recorded: shaped, config: this.#options, sequence });
    if (!plan.stream) return json(200, geminiResponse(plan));
    return {
      status: 200,
      headers: {
        ...this.#baseHeaders('gemini', sequence),
        'content-type': 'text/event-stream',
        'x-gemini-service-tier': 'standard',
      },
      pieces: geminiFrames(plan),
      stream: true,
    };
  }

  async #respond(options: {
    res: ServerResponse;
    prepared: PreparedResponse;
    fault: Exclude<Fault, { kind: 'custom' | 'early-hints' | 'ignore-stream' | 'encoded' }> | undefined;
    dialect: MockDialect;
    sequence: number;
  }): Promise<void> {
    const { res, prepared, fault, dialect, sequence } = options;
    const baseHeaders = this.#baseHeaders(dialect, sequence);
    const plan = planFault({ fault, prepared, dialect, baseHeaders, requestId: `req_mock_${sequence}` });
    if (plan.action === 'reset') res.socket?.resetAndDestroy();
    if (plan.action !== 'write') return;
    const pieceDelayMs = this.#options.chunkDelayMs ?? 0;
    await writePrepared(res, plan.prepared, { pieceDelayMs, damage: plan.damage, trickle: plan.trickle });
  }
}

/** Starts a mock upstream on 127.0.0.1 at a free port. Call `close()` when done (e.g. in `after`). */
export async function startMockUpstream(options: MockUpstreamOptions = {}): Promise<MockUpstream> {
  const mock = new MockUpstreamServer(options);
  await mock.listen();
  return mock;
}

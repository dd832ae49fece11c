// Thin client for OpenAI-compatible, Anthropic-style and Gemini upstreams: endpoint path, auth headers and an
// undici Pool per origin; the `mock` kind is answered in-process. Everything about retries and timeouts
// above the socket lives in routing/.
import { Pool, type Dispatcher } from 'undici';
import type { ProviderConfig } from '../core/config-types.ts';
import type { StopLink, UpstreamCall, UpstreamHeaders, UpstreamResponse } from './upstream-types.ts';
import { callMockProvider } from './mock/mock-provider.ts';
import { ChunkFeed, type FeedSource } from './upstream-body.ts';
import { DEFAULT_UPSTREAM_VERSION } from '../dialects/anthropic-messages/version.ts';

const pools = new Map<string, Pool>();

/** One attempt, to the provider's kind: the network for openai/anthropic/gemini, in-process for mock. */
export function callUpstream(call: UpstreamCall, connectTimeoutMs: number): Promise<UpstreamResponse> {
  return call.deployment.provider.kind === 'mock' ? callMockProvider(call) : callHttpProvider(call, connectTimeoutMs);
}

/** A response header's (first) value. */
export function header(headers: UpstreamHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** One pool per origin and connect timeout: the timeout is a pool option and models may differ in it. */
function poolFor(origin: string, connectTimeoutMs: number): Pool {
  const id = `${origin} ${connectTimeoutMs}`;
  let pool = pools.get(id);
  if (!pool) {
    pool = new Pool(origin, {
      // No cap: one streaming response holds one upstream connection for as long as it streams.
      connections: null,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      connect: { timeout: connectTimeoutMs },
      // The attempt's own clocks (routing/attempt-watch.ts) govern first byte, idle gaps and the deadline,
      // and abort the request through the handler. undici's would be a second pair of timers a request, each
      // allocated afresh and kept in its half-second sweep long enough to reach V8's old generation.
      headersTimeout: 0,
      bodyTimeout: 0,
    });
    pools.set(id, pool);
  }
  return pool;
}

interface Target {
  origin: string;
  path: string;
  /** The base URL's own path, before an endpoint's (`call.path`). */
  prefix: string;
  /** kind openai: where Responses API requests go (`apis: [responses]`). */
  responsesPath: string;
  /** The pool last used from this target and its connect timeout: the per-request lookup is two reads. */
  pool: Pool | null;
  poolTimeout: number;
}

const targets = new Map<string, Target>();

function targetFor(p: ProviderConfig): Target {
  let t = targets.get(p.name);
  if (!t) {
    const url = new URL(p.baseUrl);
    const prefix = url.pathname.replace(/\/+$/, '');
    // openai kind: base_url already ends in /v1 (like the SDK's baseURL); anthropic kind: it does not.
    const path = p.kind === 'anthropic' ? `${prefix}/v1/messages` : `${prefix}/chat/completions`;
    t = { origin: url.origin, path, prefix, responsesPath: `${prefix}/responses`, pool: null, poolTimeout: -1 };
    targets.set(p.name, t);
  }
  return t;
}

/** OpenAI-style headers depend only on the provider and its key: built once per key, not per request. */
const openaiHeaders = new WeakMap<ProviderConfig, Map<string | null, Record<string, string>>>();

export function upstreamHeaders(p: ProviderConfig, call: UpstreamCall): Record<string, string> {
  if (p.kind !== 'anthropic') {
    let byKey = openaiHeaders.get(p);
    if (byKey === undefined) openaiHeaders.set(p, (byKey = new Map()));
    let cached = byKey.get(call.apiKey);
    if (cached === undefined) byKey.set(call.apiKey, (cached = Object.freeze(buildHeaders(p, call))));
    return cached;
  }
  return buildHeaders(p, call);
}

function buildHeaders(p: ProviderConfig, call: UpstreamCall): Record<string, string> {
  // identity: the answer is tapped for usage and relayed as it comes; undici does not decompress.
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'accept-encoding': 'identity',
    ...p.headers,
  };
  const key = call.apiKey;
  if (p.kind === 'gemini') {
    if (key) headers['x-goog-api-key'] = key;
  } else if (p.kind === 'anthropic') {
    // Pass-through carries the caller's version; a translated request the one the provider names.
    headers['anthropic-version'] =
      call.forwardHeaders['anthropic-version'] ?? p.anthropicVersion ?? DEFAULT_UPSTREAM_VERSION;
    const beta = call.forwardHeaders['anthropic-beta'];
    if (beta) headers['anthropic-beta'] = beta;
    if (key) headers['x-api-key'] = key;
  } else if (key) {
    headers.authorization = `Bearer ${key}`;
  }
  return headers;
}

export function callHttpProvider(call: UpstreamCall, connectTimeoutMs: number): Promise<UpstreamResponse> {
  const p = call.deployment.provider;
  const t = targetFor(p);
  if (t.poolTimeout !== connectTimeoutMs || t.pool === null) {
    t.pool = poolFor(t.origin, connectTimeoutMs);
    t.poolTimeout = connectTimeoutMs;
  }
  const pool = t.pool;
  if (call.stop.stopError !== null) return Promise.reject(call.stop.stopError);
  return new Promise((resolve, reject) => {
    const handler = new UpstreamHandler(call.stop, resolve, reject);
    pool.dispatch(
      {
        method: 'POST',
        path: call.path !== undefined ? t.prefix + call.path : call.dialect === 'responses' ? t.responsesPath : t.path,
        headers:
          call.traceHeaders === null ? upstreamHeaders(p, call) : { ...upstreamHeaders(p, call), ...call.traceHeaders },
        body: call.body,
      },
      handler,
    );
  });
}

/**
 * undici's dispatch handler for one attempt: resolves with status and headers, then pushes body chunks
 * into a ChunkFeed. Pool.request would add an AbortSignal listener, a Readable body and a promise per
 * chunk on top of this; streamed events pay for that on every chunk.
 */
class UpstreamHandler implements Dispatcher.DispatchHandler, FeedSource {
  readonly #feed = new ChunkFeed();
  #resolve: ((res: UpstreamResponse) => void) | null;
  #reject: ((err: Error) => void) | null;
  #controller: Dispatcher.DispatchController | null = null;
  /** Stopped while connecting: undici takes the abort only once it hands over its controller. */
  #pendingAbort: Error | null = null;
  #done = false;

  constructor(stop: StopLink, resolve: (res: UpstreamResponse) => void, reject: (err: Error) => void) {
    this.#resolve = resolve;
    this.#reject = reject;
    stop.onStop((reason) => this.abort(reason));
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    this.#feed.source = this;
    if (this.#pendingAbort !== null) controller.abort(this.#pendingAbort);
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    // 1xx (103 Early Hints from a CDN in front of the upstream) are informational: the answer follows.
    if (statusCode < 200) return;
    const resolve = this.#resolve;
    this.#resolve = null;
    this.#reject = null;
    resolve?.({ status: statusCode, headers, body: this.#feed });
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (!this.#feed.push(chunk)) controller.pause();
  }

  onResponseEnd(): void {
    this.#done = true;
    this.#feed.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    this.#done = true;
    const reject = this.#reject;
    this.#resolve = null;
    this.#reject = null;
    if (reject !== null) reject(err);
    else this.#feed.fail(err);
  }

  // FeedSource: the feed pauses and resumes the socket with the client's backpressure.
  pause(): void {
    this.#controller?.pause();
  }

  resume(): void {
    this.#controller?.resume();
  }

  /** Stops the request (a clock fired, the client left, the relay failed); nothing once it is over. */
  abort(reason: Error): void {
    if (this.#done) return;
    if (this.#controller === null) this.#pendingAbort = reason;
    else this.#controller.abort(reason);
  }
}

export async function closeProviderPools(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  targets.clear();
  await Promise.all(all.map((p) => p.close().catch(() => undefined)));
}

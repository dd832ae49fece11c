// The engine's client for every provider: where a request goes and with which headers come from its
// provider spec (src/registry.ts), asked once per deployment and query and kept; a pool per provider and
// origin (upstream-pools.ts: HTTP/1.1, or HTTP/2 where the provider's `http2` allows it); a provider that
// answers in-process (the mock) is called instead. Everything about retries and timeouts above the
// socket lives in routing/.
import type { Dispatcher } from 'undici';
import type { DeploymentConfig, ProviderConfig } from '../core/config-types.ts';
import { providerSpec } from '../registry.ts';
import type { HeaderContext, ProviderSpec, Target, TargetQuery } from '../spec/provider.ts';
import {
  type StopLink,
  type UpstreamCall,
  UpstreamCredentialsError,
  type UpstreamHeaders,
  type UpstreamResponse,
} from '../spec/upstream.ts';
import { ChunkFeed, type FeedSource } from '../providers/upstream-body.ts';
import { closePools, poolFor, type UpstreamPool } from './upstream-pools.ts';

/** One attempt: to the network, or to a provider that answers in-process. */
export function callUpstream(call: UpstreamCall, connectTimeoutMs: number): Promise<UpstreamResponse> {
  const route = routeOf(call.deployment);
  return route.spec.call !== undefined ? route.spec.call(call) : callHttpProvider(route, call, connectTimeoutMs);
}

/** A response header's (first) value. */
export function header(headers: UpstreamHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** A deployment's target for one query, and the pool last used for it: the per-request lookup is two reads. */
interface CachedTarget {
  readonly target: Target;
  pool: UpstreamPool | null;
  poolTimeout: number;
}

/** What the engine keeps per deployment: its provider's spec, targets by query id, headers by key. */
interface DeploymentRoute {
  readonly spec: ProviderSpec;
  readonly provider: ProviderConfig;
  readonly deployment: DeploymentConfig;
  readonly targets: (CachedTarget | undefined)[];
  readonly headers: Map<string | null, Record<string, string>>;
}

/** Weak: a reloaded config's deployments take their routes with them. */
let routes = new WeakMap<DeploymentConfig, DeploymentRoute>();

function routeOf(d: DeploymentConfig): DeploymentRoute {
  let route = routes.get(d);
  if (route === undefined) {
    route = { spec: providerSpec(d.provider), provider: d.provider, deployment: d, targets: [], headers: new Map() };
    routes.set(d, route);
  }
  return route;
}

function targetOf(route: DeploymentRoute, query: TargetQuery): CachedTarget {
  let t = route.targets[query.id];
  if (t === undefined) {
    t = { target: route.spec.target(route.provider, route.deployment, query), pool: null, poolTimeout: -1 };
    route.targets[query.id] = t;
  }
  return t;
}

/** The spec's headers: built once per key and frozen, or per request for a spec that reads the caller's. */
function headersOf(
  route: DeploymentRoute,
  apiKey: string | null,
  forward: Record<string, string>,
): Record<string, string> {
  if (route.spec.headersReadForward === true) return route.spec.headers(route.provider, { apiKey, forward });
  let cached = route.headers.get(apiKey);
  if (cached === undefined) {
    cached = Object.freeze(route.spec.headers(route.provider, { apiKey, forward: NO_FORWARD }));
    route.headers.set(apiKey, cached);
  }
  return cached;
}

const NO_FORWARD: HeaderContext['forward'] = Object.freeze({});

/**
 * Where a deployment's upstream takes a query, and the headers for a key, signed: for calls outside the
 * attempt loop (the token counts), which send with undici's `request`.
 */
export async function upstreamRequest(
  deployment: DeploymentConfig,
  query: TargetQuery,
  o: { apiKey: string | null; forward?: Record<string, string>; body: string | Buffer },
): Promise<{ url: string; headers: Record<string, string>; body: string | Buffer }> {
  const route = routeOf(deployment);
  const { target } = targetOf(route, query);
  const forward = o.forward ?? NO_FORWARD;
  const headers = { ...headersOf(route, o.apiKey, forward) };
  const body =
    route.spec.wireBody === undefined
      ? o.body
      : route.spec.wireBody({ provider: route.provider, deployment, query, body: o.body, forward });
  if (route.spec.sign !== undefined)
    await route.spec.sign({ provider: route.provider, deployment, target, headers, body });
  return { url: target.origin + target.path, headers, body };
}

function callHttpProvider(
  route: DeploymentRoute,
  call: UpstreamCall,
  connectTimeoutMs: number,
): Promise<UpstreamResponse> {
  const t = targetOf(route, call.query);
  if (t.poolTimeout !== connectTimeoutMs || t.pool === null) {
    t.pool = poolFor(route.provider, t.target.origin, connectTimeoutMs);
    t.poolTimeout = connectTimeoutMs;
  }
  const pool = t.pool;
  if (call.stop.stopError !== null) return Promise.reject(call.stop.stopError);
  let headers = headersOf(route, call.apiKey, call.forwardHeaders);
  if (call.traceHeaders !== null) headers = { ...headers, ...call.traceHeaders };
  if (route.spec.wireBody !== undefined) {
    try {
      call = {
        ...call,
        body: route.spec.wireBody({
          provider: route.provider,
          deployment: route.deployment,
          query: call.query,
          body: call.body,
          forward: call.forwardHeaders,
        }),
      };
    } catch (err) {
      return Promise.reject(err);
    }
  }
  const sign = route.spec.sign;
  if (sign !== undefined) {
    // Signing adds to the request's own copy: the cached headers stay as they are.
    if (call.traceHeaders === null) headers = { ...headers };
    let signed: void | Promise<void>;
    try {
      signed = sign({
        provider: route.provider,
        deployment: route.deployment,
        target: t.target,
        headers,
        body: call.body,
      });
    } catch (err) {
      return Promise.reject(credentialsError(route, err));
    }
    if (signed !== undefined)
      return signed.then(
        () =>
          call.stop.stopError !== null
            ? Promise.reject(call.stop.stopError)
            : dispatch(pool, t.target.path, headers, call),
        (err: unknown) => Promise.reject(credentialsError(route, err)),
      );
  }
  return dispatch(pool, t.target.path, headers, call);
}

function credentialsError(route: DeploymentRoute, err: unknown): UpstreamCredentialsError {
  const detail = err instanceof Error ? err.message : String(err);
  return new UpstreamCredentialsError(`provider ${route.provider.name}: no credentials for the request (${detail})`, {
    cause: err,
  });
}

function dispatch(
  pool: UpstreamPool,
  path: string,
  headers: Record<string, string>,
  call: UpstreamCall,
): Promise<UpstreamResponse> {
  return new Promise((resolve, reject) => {
    const handler = new UpstreamHandler(call.stop, resolve, reject);
    pool.dispatch({ method: 'POST', path, headers, body: call.body }, handler);
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
  routes = new WeakMap();
  await closePools();
}

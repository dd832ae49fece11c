// Thin client for OpenAI-compatible and Anthropic-style upstreams: endpoint path, auth headers and an
// undici Pool per origin. Everything about retries and timeouts above the socket lives in routing/.
import { Pool } from 'undici';
import type { ProviderConfig } from '../core/config-types.ts';
import type { UpstreamCall, UpstreamResponse } from './upstream-types.ts';

const pools = new Map<string, Pool>();

/** One pool per origin and connect timeout: the timeout is a pool option and models may differ in it. */
function poolFor(origin: string, connectTimeoutMs: number): Pool {
  const id = `${origin} ${connectTimeoutMs}`;
  let pool = pools.get(id);
  if (!pool) {
    pool = new Pool(origin, {
      // No cap: one streaming response holds one upstream connection, and the 1,000-stream benchmark needs 1,000.
      connections: null,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      connect: { timeout: connectTimeoutMs },
    });
    pools.set(id, pool);
  }
  return pool;
}

interface Target {
  origin: string;
  path: string;
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
    t = { origin: url.origin, path, pool: null, poolTimeout: -1 };
    targets.set(p.name, t);
  }
  return t;
}

export function upstreamHeaders(p: ProviderConfig, call: UpstreamCall): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...p.headers };
  const key = call.apiKey;
  if (p.kind === 'anthropic') {
    headers['anthropic-version'] = call.forwardHeaders['anthropic-version'] ?? '2023-06-01';
    const beta = call.forwardHeaders['anthropic-beta'];
    if (beta) headers['anthropic-beta'] = beta;
    if (key) headers['x-api-key'] = key;
  } else if (key) {
    headers.authorization = `Bearer ${key}`;
  }
  return headers;
}

export async function callHttpProvider(call: UpstreamCall, connectTimeoutMs: number): Promise<UpstreamResponse> {
  const p = call.deployment.provider;
  const t = targetFor(p);
  if (t.poolTimeout !== connectTimeoutMs || t.pool === null) {
    t.pool = poolFor(t.origin, connectTimeoutMs);
    t.poolTimeout = connectTimeoutMs;
  }
  const res = await t.pool.request({
    method: 'POST',
    path: t.path,
    headers: upstreamHeaders(p, call),
    body: call.body,
    signal: call.signal,
    headersTimeout: call.firstByteTimeoutMs,
    bodyTimeout: call.idleTimeoutMs,
  });
  return { status: res.statusCode, headers: res.headers, body: res.body };
}

export async function closeProviderPools(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  targets.clear();
  await Promise.all(all.map((p) => p.close().catch(() => undefined)));
}

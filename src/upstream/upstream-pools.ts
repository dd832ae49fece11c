// The connection pools to upstreams: one per provider, origin and connect timeout. HTTP/1.1 pools are
// undici's (one request a connection, kept alive). A pool that may speak HTTP/2 (a provider's `http2`:
// `auto` over TLS, or `true`) comes from undici 8, loaded on first use, whose Pool negotiates h2 by ALPN
// (or speaks h2c by prior knowledge), puts many streams on a connection within the server's
// SETTINGS_MAX_CONCURRENT_STREAMS, opens more as needed, and on GOAWAY lets the streams in flight finish
// while new ones go to a fresh connection. Every connector is counted against the descriptor budget.
import { buildConnector, Pool, type Dispatcher } from 'undici';
import type { ProviderConfig } from '../core/config-types.ts';
import type { TLSSocket } from 'node:tls';
import { budgetedConnector, STREAMS_PER_H2_CONNECTION } from './descriptor-budget.ts';

type H2Module = typeof import('undici-h2');
type BudgetConnect = (options: never, callback: (err: Error | null, socket: TLSSocket | null) => void) => void;

/** The dispatcher a pool offers: both undici majors' Pool satisfy it. */
export interface UpstreamPool {
  dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean;
  close(): Promise<void>;
  readonly stats: { readonly connected: number; readonly running: number };
}

interface PoolEntry {
  readonly provider: string;
  readonly pool: UpstreamPool;
}

const pools = new Map<string, PoolEntry>();
let h2: H2Module | null = null;
let h2Loading: Promise<void> | null = null;

// The attempt's own clocks (routing/attempt-watch.ts) govern first byte, idle gaps and the deadline, and
// abort the request through the handler. undici's would be a second pair of timers a request, each
// allocated afresh and kept in its half-second sweep long enough to reach V8's old generation.
const NO_UNDICI_TIMERS = { headersTimeout: 0, bodyTimeout: 0 } as const;

/** Whether a provider's connections to `origin` may speak HTTP/2. */
export function mayUseHttp2(provider: ProviderConfig, origin: string): boolean {
  const mode = provider.http2 ?? 'auto';
  return mode === true || (mode === 'auto' && origin.startsWith('https:'));
}

/** Loads undici 8 for the HTTP/2 pools; resolves at once when it is loaded. */
export function loadHttp2(): Promise<void> {
  h2Loading ??= import('undici-h2').then(
    (m) => {
      h2 = m;
    },
    (err: unknown) => {
      h2Loading = null;
      throw err;
    },
  );
  return h2Loading;
}

/** At start: loads undici 8 when a provider may speak HTTP/2, so a broken install stops the start. */
export async function prepareUpstreamPools(providers: readonly ProviderConfig[]): Promise<void> {
  if (providers.some((p) => !p.inProcess && mayUseHttp2(p, p.baseUrl))) await loadHttp2();
}

/**
 * The pool for a provider's origin and connect timeout (the timeout is a pool option and models may
 * differ in it); null when it may speak HTTP/2 and undici 8 is not loaded yet (loadHttp2 first).
 */
export function poolFor(provider: ProviderConfig, origin: string, connectTimeoutMs: number): UpstreamPool | null {
  const id = `${provider.name} ${origin} ${connectTimeoutMs}`;
  const found = pools.get(id);
  if (found !== undefined) return found.pool;
  let pool: UpstreamPool;
  if (mayUseHttp2(provider, origin)) {
    if (h2 === null) return null;
    // Over plain HTTP, `http2: true` is prior knowledge (h2c): undici 8 reads `useH2c` in the Pool and the
    // connector though its types name it only under h2Options.
    const useH2c = origin.startsWith('http:');
    const h2c = { useH2c } as object;
    const { Client } = h2;
    pool = new h2.Pool(origin, {
      connections: null,
      pipelining: 1,
      // A connection that negotiated h2 takes up to STREAMS_PER_H2_CONNECTION streams (undici lowers it to
      // the server's SETTINGS_MAX_CONCURRENT_STREAMS); one that fell back to HTTP/1.1 keeps one request.
      // Set on the client as its socket connects: after a GOAWAY the client then opens its next
      // connection while the old one's streams finish, instead of waiting for them.
      factory: (o: string | URL, opts: object) => {
        const connect = (opts as { connect: BudgetConnect }).connect;
        const protocolAware: BudgetConnect = (options, callback) =>
          connect(options, (err, socket) => {
            if (socket !== null) client.pipelining = socket.alpnProtocol === 'h2' ? STREAMS_PER_H2_CONNECTION : 1;
            callback(err, socket);
          });
        const client = new Client(o, {
          ...opts,
          connect: protocolAware as unknown as ReturnType<H2Module['buildConnector']>,
        });
        return client;
      },
      keepAliveTimeout: 30_000,
      allowH2: true,
      ...h2c,
      connect: budgetedConnector(h2.buildConnector({ timeout: connectTimeoutMs, allowH2: true, ...h2c })),
      ...NO_UNDICI_TIMERS,
    }) as unknown as UpstreamPool;
  } else {
    pool = new Pool(origin, {
      // No cap: one streaming response holds one upstream connection for as long as it streams.
      connections: null,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      connect: budgetedConnector(buildConnector({ timeout: connectTimeoutMs })),
      ...NO_UNDICI_TIMERS,
    });
  }
  pools.set(id, { provider: provider.name, pool });
  return pool;
}

/** Upstream connections and the streams on them, by provider (read when /metrics is scraped). */
export function upstreamPoolStats(): { provider: string; connections: number; streams: number }[] {
  const by = new Map<string, { provider: string; connections: number; streams: number }>();
  for (const { provider, pool } of pools.values()) {
    const s = pool.stats;
    let row = by.get(provider);
    if (row === undefined) {
      row = { provider, connections: 0, streams: 0 };
      by.set(provider, row);
    }
    row.connections += s.connected;
    row.streams += s.running;
  }
  return [...by.values()];
}

export async function closePools(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((p) => p.pool.close().catch(() => undefined)));
}

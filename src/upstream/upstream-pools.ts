// The connection pools to upstreams: one per provider, origin and connect timeout. A pool that may speak
// HTTP/2 (a provider's `http2`: `auto` over TLS, or `true`) negotiates h2 by ALPN (or speaks h2c by prior
// knowledge), puts many streams on a connection within the server's SETTINGS_MAX_CONCURRENT_STREAMS,
// opens more as needed, and on GOAWAY lets the streams in flight finish while new ones go to a fresh
// connection; any other pool holds one request a connection, kept alive. Every connector is counted
// against the descriptor budget.
import { buildConnector, Client, Pool } from 'undici';
import type { ProviderConfig } from '../core/config-types.ts';
import type { TLSSocket } from 'node:tls';
import { budgetedConnector, STREAMS_PER_H2_CONNECTION } from './descriptor-budget.ts';

type BudgetConnect = (options: never, callback: (err: Error | null, socket: TLSSocket | null) => void) => void;

/** What the gateway uses of a pool. */
export type UpstreamPool = Pick<Pool, 'dispatch' | 'close' | 'stats'>;

interface PoolEntry {
  readonly provider: string;
  readonly pool: UpstreamPool;
}

const pools = new Map<string, PoolEntry>();

// The attempt's own clocks (routing/attempt-watch.ts) govern first byte, idle gaps and the deadline, and
// abort the request through the handler. undici's would be a second pair of timers a request, each
// allocated afresh and kept in its half-second sweep long enough to reach V8's old generation.
const NO_UNDICI_TIMERS = { headersTimeout: 0, bodyTimeout: 0 } as const;

/** Whether a provider's connections to `origin` may speak HTTP/2. */
export function mayUseHttp2(provider: ProviderConfig, origin: string): boolean {
  const mode = provider.http2 ?? 'auto';
  return mode === true || (mode === 'auto' && origin.startsWith('https:'));
}

/** The pool for a provider's origin and connect timeout (the timeout is a pool option and models may differ in it). */
export function poolFor(provider: ProviderConfig, origin: string, connectTimeoutMs: number): UpstreamPool {
  const id = `${provider.name} ${origin} ${connectTimeoutMs}`;
  const found = pools.get(id);
  if (found !== undefined) return found.pool;
  let pool: UpstreamPool;
  if (mayUseHttp2(provider, origin)) {
    // Over plain HTTP, `http2: true` is prior knowledge (h2c): undici reads `useH2c` in the Pool and the
    // connector though its types name it only under h2Options.
    const useH2c = origin.startsWith('http:');
    const h2c = { useH2c } as object;
    pool = new Pool(origin, {
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
          connect: protocolAware as unknown as ReturnType<typeof buildConnector>,
        });
        return client;
      },
      keepAliveTimeout: 30_000,
      allowH2: true,
      ...h2c,
      connect: budgetedConnector(buildConnector({ timeout: connectTimeoutMs, allowH2: true, ...h2c })),
      ...NO_UNDICI_TIMERS,
    });
  } else {
    pool = new Pool(origin, {
      // No cap: one streaming response holds one upstream connection for as long as it streams.
      connections: null,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      // undici offers h2 by ALPN unless told not to: a provider set to `http2: false` (or plain HTTP) speaks HTTP/1.1.
      allowH2: false,
      connect: budgetedConnector(buildConnector({ timeout: connectTimeoutMs, allowH2: false })),
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

// The descriptor budget: the process's file limit shared between client connections (max_connections),
// upstream connections and a reserve for everything else (the database, its worker threads, logs, DNS).
// Planned once at start; afterwards the only runtime check sits in the upstream connector, so it costs
// once per new upstream connection and nothing per request: at the cap a new upstream connection is
// refused with DescriptorBudgetError, which the caller sees as a 503 with `retry-after`.
import type { Socket } from 'node:net';
import type { ProviderConfig } from '../core/config-types.ts';

/** Streams one HTTP/2 connection is counted to carry (the usual SETTINGS_MAX_CONCURRENT_STREAMS). */
export const STREAMS_PER_H2_CONNECTION = 100;
/** Connections an HTTP/2 upstream may hold beyond that share: draining ones after GOAWAY, probes. */
const H2_SPARE_CONNECTIONS = 4;

/** Descriptors kept for what is neither a client nor an upstream connection. */
export function reservedDescriptors(limit: number): number {
  return Math.max(64, Math.ceil(limit / 50));
}

export interface DescriptorPlan {
  limit: number;
  reserved: number;
  /** Client connections: max_connections, or lower when the default did not fit. */
  maxConnections: number;
  /** Upstream connections the client connections may need at most. */
  upstreamImplied: number;
  /** Upstream connections open at once past which a new one is refused (what is left of the limit). */
  upstreamCap: number;
  /** max_connections was the default and was lowered to fit. */
  lowered: boolean;
}

/** A provider whose connections may speak HTTP/1.1: one upstream connection per stream. */
function mayUseHttp1(p: ProviderConfig): boolean {
  return !p.inProcess && p.http2 !== true;
}

/** Upstream connections `clients` client connections may need at most, with every stream upstream. */
export function upstreamConnectionsImplied(clients: number, providers: readonly ProviderConfig[]): number {
  let implied = providers.some(mayUseHttp1) ? clients : 0;
  for (const p of providers)
    if (!p.inProcess && p.http2 === true)
      implied += Math.ceil(clients / STREAMS_PER_H2_CONNECTION) + H2_SPARE_CONNECTIONS;
  return implied;
}

/**
 * The budget for a file limit, or the start-up error when an explicit max_connections cannot fit. A
 * default max_connections that cannot fit is lowered to the largest that does.
 */
export function planDescriptors(o: {
  limit: number;
  hardLimit: number | null;
  maxConnections: number;
  /** The operator set max_connections: it is never lowered silently, the start fails instead. */
  explicit: boolean;
  providers: readonly ProviderConfig[];
}): DescriptorPlan | { error: string } {
  const reserved = reservedDescriptors(o.limit);
  const needs = (c: number): number => c + upstreamConnectionsImplied(c, o.providers) + reserved;
  const fits = (c: number): boolean => needs(c) <= o.limit;
  let clients = o.maxConnections;
  if (!fits(clients)) {
    let lo = 0;
    let hi = clients;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (fits(mid)) lo = mid;
      else hi = mid - 1;
    }
    const raise =
      o.hardLimit === null || o.hardLimit > o.limit
        ? `raise it (ulimit -n${o.hardLimit === null ? '' : `, up to the hard limit ${o.hardLimit}`}; LimitNOFILE= under systemd)`
        : 'raise the hard limit (LimitNOFILE= under systemd, --ulimit nofile= in Docker)';
    const what = `max_connections ${o.maxConnections} needs about ${needs(o.maxConnections)} file descriptors (${o.maxConnections} client connections, up to ${upstreamConnectionsImplied(o.maxConnections, o.providers)} upstream connections, ${reserved} for the rest) but the process's file limit is ${o.limit}`;
    if (lo < 1) return { error: `${what}, too few for any connection: ${raise}` };
    if (o.explicit) return { error: `${what}: ${raise}, or set max_connections to at most ${lo}` };
    clients = lo;
  }
  const upstreamImplied = upstreamConnectionsImplied(clients, o.providers);
  return {
    limit: o.limit,
    reserved,
    maxConnections: clients,
    upstreamImplied,
    upstreamCap: o.limit - reserved - clients,
    lowered: clients !== o.maxConnections,
  };
}

/** A new upstream connection would pass the descriptor budget (or the process is out of descriptors). */
export class DescriptorBudgetError extends Error {
  override name = 'DescriptorBudgetError';
  readonly code = 'MODELGATE_DESCRIPTORS';

  constructor(cap: number) {
    super(`the gateway holds ${cap} upstream connections, all its file-descriptor budget allows`);
  }
}

/** Upstream sockets open now, and the cap the plan set (none until it is set). */
const upstream = { open: 0, cap: Number.POSITIVE_INFINITY };

export function setUpstreamConnectionCap(cap: number): void {
  upstream.cap = cap;
}

export function upstreamConnectionsOpen(): number {
  return upstream.open;
}

type ConnectCallback = (err: Error | null, socket: Socket | null) => void;
/** undici's connector, as both undici majors in use declare it. */
export type Connector = (options: never, callback: ConnectCallback) => unknown;

/** `connect`, counted against the budget: refused at the cap, released when the socket closes. */
export function budgetedConnector<C extends Connector>(connect: C): C {
  const budgeted = (options: never, callback: ConnectCallback): void => {
    if (upstream.open >= upstream.cap) {
      callback(new DescriptorBudgetError(upstream.cap), null);
      return;
    }
    upstream.open++;
    let held = true;
    const release = (): void => {
      if (held) {
        held = false;
        upstream.open--;
      }
    };
    let socket: unknown;
    try {
      socket = connect(options, (err, s) => {
        if (err !== null) release();
        callback(err, s);
      });
    } catch (err) {
      release();
      throw err;
    }
    (socket as Socket | undefined)?.once?.('close', release);
  };
  return budgeted as C;
}

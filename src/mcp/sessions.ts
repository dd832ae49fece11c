// Sessions of /mcp, for clients that keep one (the SDK's client, Claude Code, Codex, Gemini CLI do): an
// `initialize` without a session id starts one (its id in `Mcp-Session-Id`), and its standalone GET stream
// carries the `list_changed` notifications of the servers behind the gateway. A session lives in this
// process only: a request naming a session this process does not know (another replica, a restart, an
// expired one) is answered statelessly like a client without sessions, so nothing breaks when it is lost;
// only its notifications stop until the client initializes again.
import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { KeyRecord } from '../core/key-record.ts';
import type { McpAggregator } from './aggregator.ts';
import type { ListKind } from './upstream.ts';

/** Sessions held at once; past this an `initialize` is answered statelessly (no session, no notifications). */
const MAX_SESSIONS = 10_000;
/** A session with no request and no open stream for this long is closed. */
const IDLE_MS = 30 * 60_000;
const SWEEP_MS = 60_000;

/** The key a session's requests came with: each request re-authenticates and refreshes it (its rights). */
export interface KeyRef {
  key: KeyRecord;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  keyRef: KeyRef;
  lastSeen: number;
  openStreams: number;
}

export class McpSessions {
  readonly #sessions = new Map<string, Session>();
  #sweep: NodeJS.Timeout | null = null;

  constructor(aggregator: McpAggregator | null) {
    aggregator?.onListChanged((kind) => this.#notify(kind));
    aggregator?.onDrain(() => this.closeAll());
  }

  /** The session `id` names, when this process holds it and it belongs to `key`. */
  find(id: string | undefined, key: KeyRecord): Session | undefined {
    if (id === undefined) return undefined;
    const s = this.#sessions.get(id);
    if (s === undefined || s.keyRef.key.id !== key.id) return undefined;
    s.keyRef.key = key;
    s.lastSeen = Date.now();
    return s;
  }

  /** A transport that starts a session with the `initialize` it is given; null when no more fit. */
  start(server: Server, keyRef: KeyRef): StreamableHTTPServerTransport | null {
    if (this.#sessions.size >= MAX_SESSIONS) return null;
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      enableJsonResponse: true,
      onsessioninitialized: (id) => {
        this.#sessions.set(id, { transport, server, keyRef, lastSeen: Date.now(), openStreams: 0 });
        this.#sweep ??= setInterval(() => this.#closeIdle(), SWEEP_MS).unref();
      },
      onsessionclosed: (id) => this.#forget(id),
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) this.#forget(transport.sessionId);
    };
    return transport;
  }

  /** Counts the session's open GET stream while `res` is open, so an idle sweep leaves it be. */
  holdStream(s: Session, res: { once(event: 'close', fn: () => void): unknown }): void {
    s.openStreams++;
    res.once('close', () => {
      s.openStreams--;
      s.lastSeen = Date.now();
    });
  }

  get size(): number {
    return this.#sessions.size;
  }

  closeAll(): void {
    for (const [id, s] of this.#sessions) {
      this.#sessions.delete(id);
      void s.transport.close();
      void s.server.close();
    }
    if (this.#sweep !== null) clearInterval(this.#sweep);
    this.#sweep = null;
  }

  #forget(id: string): void {
    const s = this.#sessions.get(id);
    if (s === undefined) return;
    this.#sessions.delete(id);
    void s.server.close();
  }

  #closeIdle(): void {
    const before = Date.now() - IDLE_MS;
    for (const [id, s] of this.#sessions)
      if (s.openStreams === 0 && s.lastSeen < before) {
        this.#sessions.delete(id);
        void s.transport.close();
        void s.server.close();
      }
  }

  /** Tells every session's client that a list changed; a session without an open stream drops it. */
  #notify(kind: ListKind): void {
    for (const s of this.#sessions.values()) {
      const sent =
        kind === 'tools'
          ? s.server.sendToolListChanged()
          : kind === 'resources'
            ? s.server.sendResourceListChanged()
            : s.server.sendPromptListChanged();
      void sent.catch(() => undefined);
    }
  }
}

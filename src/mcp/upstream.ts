// One upstream MCP server the gateway speaks to as a client: connected at start, its tool list kept, and
// reconnected with exponential backoff whenever the connection (or, for a stdio server, the process) ends.
// A stdio server is started by the gateway; its process ending closes the transport, which restarts it.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ToolListChangedNotificationSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig } from '../core/config-types.ts';
import { MODELGATE_VERSION } from '../runtime/version.ts';

/** The first reconnect waits this long; each failure doubles it up to MAX_BACKOFF_MS; a listing resets it. */
const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 30_000;

export type UpstreamState = 'connecting' | 'up' | 'down';

export interface UpstreamHealth {
  name: string;
  kind: 'remote' | 'stdio';
  state: UpstreamState;
  tools: number;
  /** The last failure, with the server's own words; null while up. */
  error: string | null;
  /** Connections made (1 after the first; each restart adds one). */
  connects: number;
  /** Unix ms of the last state change. */
  since: number;
}

export class UpstreamServer {
  readonly config: McpServerConfig;
  #client: Client | null = null;
  #state: UpstreamState = 'connecting';
  #tools: Tool[] = [];
  #error: string | null = null;
  #connects = 0;
  #since = Date.now();
  #backoffMs = FIRST_BACKOFF_MS;
  #timer: NodeJS.Timeout | null = null;
  #stopped = false;
  /** Settles once the first connection attempt has listed tools or failed. */
  readonly firstListing: Promise<void>;
  #settleFirst!: () => void;
  readonly #onToolsChanged: () => void;
  readonly #onLog: (msg: string, fields: Record<string, unknown>) => void;

  constructor(
    config: McpServerConfig,
    hooks: { onToolsChanged: () => void; onLog: (msg: string, fields: Record<string, unknown>) => void },
  ) {
    this.config = config;
    this.#onToolsChanged = hooks.onToolsChanged;
    this.#onLog = hooks.onLog;
    this.firstListing = new Promise((resolve) => {
      this.#settleFirst = resolve;
    });
  }

  get name(): string {
    return this.config.name;
  }

  get state(): UpstreamState {
    return this.#state;
  }

  /** Resolves when the server is next up (a reconnect under way), or after `ms` at most. */
  whenUp(ms: number): Promise<void> {
    if (this.#state === 'up' || this.#stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      const waiters = this.#upWaiters;
      function done(): void {
        clearTimeout(timer);
        waiters.delete(done);
        resolve();
      }
      waiters.add(done);
    });
  }

  #upWaiters = new Set<() => void>();

  isUp(): boolean {
    return this.#state === 'up';
  }

  /** The tools as last listed; empty while the server is not up. */
  get tools(): readonly Tool[] {
    return this.#state === 'up' ? this.#tools : [];
  }

  get error(): string | null {
    return this.#error;
  }

  health(): UpstreamHealth {
    return {
      name: this.name,
      kind: this.config.kind,
      state: this.#state,
      tools: this.tools.length,
      error: this.#error,
      connects: this.#connects,
      since: this.#since,
    };
  }

  start(): void {
    void this.#connect();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    const client = this.#client;
    this.#client = null;
    await client?.close().catch(() => undefined);
  }

  async callTool(tool: string, args: Record<string, unknown> | undefined): Promise<CallToolResult> {
    const client = this.#client;
    if (client === null || this.#state !== 'up')
      throw new Error(`MCP server "${this.name}" is unavailable: ${this.#error ?? 'not connected'}`);
    return (await client.callTool({ name: tool, arguments: args }, undefined, {
      timeout: this.config.timeoutMs,
    })) as CallToolResult;
  }

  #transport(): Transport {
    const c = this.config;
    if (c.kind === 'stdio')
      return new StdioClientTransport({ command: c.command, args: c.args, env: c.env, stderr: 'ignore' });
    const requestInit = { headers: c.headers };
    return c.transport === 'sse'
      ? new SSEClientTransport(new URL(c.url), { requestInit })
      : new StreamableHTTPClientTransport(new URL(c.url), { requestInit });
  }

  async #connect(): Promise<void> {
    if (this.#stopped) return;
    this.#setState('connecting', this.#error);
    const client = new Client({ name: 'modelgate', version: MODELGATE_VERSION });
    let closed = false;
    const onGone = (why: string): void => {
      if (closed) return;
      closed = true;
      if (this.#client === client) this.#client = null;
      this.#fail(why);
    };
    try {
      const transport = this.#transport();
      client.onclose = () => onGone('connection closed');
      client.onerror = (err) => {
        // Transport errors on a live connection (a garbled line) are logged; a closed connection restarts.
        this.#onLog('MCP server transport error', { server: this.name, err: String(err) });
      };
      await client.connect(transport, { timeout: this.config.timeoutMs });
      this.#client = client;
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        void this.#list(client).catch((err: unknown) =>
          this.#onLog('MCP tool re-list failed', { server: this.name, err: String(err) }),
        );
      });
      await this.#list(client);
      this.#connects++;
      this.#backoffMs = FIRST_BACKOFF_MS;
      this.#setState('up', null);
      this.#settleFirst();
      for (const w of [...this.#upWaiters]) w();
      this.#onToolsChanged();
    } catch (err) {
      closed = true;
      if (this.#client === client) this.#client = null;
      await client.close().catch(() => undefined);
      this.#fail(err instanceof Error ? err.message : String(err));
    }
  }

  async #list(client: Client): Promise<void> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? undefined : { cursor }, {
        timeout: this.config.timeoutMs,
      });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    this.#tools = tools;
    if (this.#state === 'up') this.#onToolsChanged();
  }

  #fail(why: string): void {
    const wasUp = this.#state === 'up';
    this.#setState('down', why);
    this.#settleFirst();
    if (wasUp) this.#onToolsChanged();
    if (this.#stopped) return;
    const wait = this.#backoffMs;
    this.#backoffMs = Math.min(this.#backoffMs * 2, MAX_BACKOFF_MS);
    this.#onLog('MCP server unavailable; reconnecting', { server: this.name, err: why, retryMs: wait });
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.#connect();
    }, wait);
    this.#timer.unref();
  }

  #setState(state: UpstreamState, error: string | null): void {
    if (state !== this.#state) this.#since = Date.now();
    this.#state = state;
    this.#error = error;
  }
}

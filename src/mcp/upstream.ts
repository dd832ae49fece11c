// One upstream MCP server the gateway speaks to as a client: connected at start, its tool list kept, and
// reconnected with exponential backoff whenever the connection (or, for a stdio server, the process) ends.
// A stdio server is started by the gateway; its process ending closes the transport, which restarts it.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type GetPromptResult,
  type Prompt,
  type ReadResourceResult,
  type Resource,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { McpOAuthConfig, McpServerConfig } from '../core/config-types.ts';
import { MODELGATE_VERSION } from '../runtime/version.ts';
import { ClientCredentials } from './oauth.ts';
import { upstreamFetch } from './upstream-fetch.ts';

/** The first reconnect waits this long; each failure doubles it up to MAX_BACKOFF_MS; a listing resets it. */
const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 30_000;

export type UpstreamState = 'connecting' | 'up' | 'down';

/** The lists a server offers, each with its own `list_changed` notification. */
export type ListKind = 'tools' | 'resources' | 'prompts';

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
  #resources: Resource[] = [];
  #prompts: Prompt[] = [];
  #error: string | null = null;
  #connects = 0;
  #since = Date.now();
  #backoffMs = FIRST_BACKOFF_MS;
  #timer: NodeJS.Timeout | null = null;
  #stopped = false;
  /** Settles once the first connection attempt has listed tools or failed. */
  readonly firstListing: Promise<void>;
  #settleFirst!: () => void;
  readonly #onToolsChanged: (what: ListKind) => void;
  readonly #onLog: (msg: string, fields: Record<string, unknown>) => void;

  constructor(
    config: McpServerConfig,
    hooks: { onToolsChanged: (what: ListKind) => void; onLog: (msg: string, fields: Record<string, unknown>) => void },
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

  /** The resources and prompts as last listed (servers that offer none: empty); empty while not up. */
  get resources(): readonly Resource[] {
    return this.#state === 'up' ? this.#resources : [];
  }

  get prompts(): readonly Prompt[] {
    return this.#state === 'up' ? this.#prompts : [];
  }

  async readResource(uri: string): Promise<ReadResourceResult> {
    return (await this.#live().readResource({ uri }, { timeout: this.config.timeoutMs })) as ReadResourceResult;
  }

  async getPrompt(name: string, args: Record<string, string> | undefined): Promise<GetPromptResult> {
    return (await this.#live().getPrompt(
      { name, arguments: args },
      { timeout: this.config.timeoutMs },
    )) as GetPromptResult;
  }

  #live(): Client {
    const client = this.#client;
    if (client === null || this.#state !== 'up')
      throw new Error(`MCP server "${this.name}" is unavailable: ${this.#error ?? 'not connected'}`);
    return client;
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
    return (await this.#live().callTool({ name: tool, arguments: args }, undefined, {
      timeout: this.config.timeoutMs,
    })) as CallToolResult;
  }

  #transport(): Transport {
    const c = this.config;
    if (c.kind === 'stdio')
      return new StdioClientTransport({ command: c.command, args: c.args, env: c.env, stderr: 'ignore' });
    const opts = { requestInit: { headers: c.headers }, fetch: this.#transportFetch(c.oauth) };
    return c.transport === 'sse'
      ? new SSEClientTransport(new URL(c.url), opts)
      : new StreamableHTTPClientTransport(new URL(c.url), opts);
  }

  #fetchImpl: ReturnType<typeof upstreamFetch> | null = null;

  /** One fetch (and one token cache) per server, kept across reconnects. */
  #transportFetch(oauth: McpOAuthConfig | null): ReturnType<typeof upstreamFetch> {
    this.#fetchImpl ??= upstreamFetch(oauth === null ? null : new ClientCredentials(oauth, this.config.timeoutMs));
    return this.#fetchImpl;
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
      const relist = (what: 'tools' | 'resources' | 'prompts') => () => {
        void this.#list(client, what).catch((err: unknown) =>
          this.#onLog(`MCP ${what} re-list failed`, { server: this.name, err: String(err) }),
        );
      };
      client.setNotificationHandler(ToolListChangedNotificationSchema, relist('tools'));
      client.setNotificationHandler(ResourceListChangedNotificationSchema, relist('resources'));
      client.setNotificationHandler(PromptListChangedNotificationSchema, relist('prompts'));
      await Promise.all([this.#list(client, 'tools'), this.#list(client, 'resources'), this.#list(client, 'prompts')]);
      this.#connects++;
      this.#backoffMs = FIRST_BACKOFF_MS;
      this.#setState('up', null);
      this.#settleFirst();
      for (const w of [...this.#upWaiters]) w();
      for (const kind of ['tools', 'resources', 'prompts'] as const) this.#onToolsChanged(kind);
    } catch (err) {
      closed = true;
      if (this.#client === client) this.#client = null;
      await client.close().catch(() => undefined);
      this.#fail(err instanceof Error ? err.message : String(err));
    }
  }

  /** Lists one kind in full (every page); a kind the server does not offer is an empty list. */
  async #list(client: Client, what: 'tools' | 'resources' | 'prompts'): Promise<void> {
    const offered = client.getServerCapabilities();
    if (what !== 'tools' && offered?.[what] === undefined) return;
    const items: unknown[] = [];
    const timeout = { timeout: this.config.timeoutMs };
    let cursor: string | undefined;
    do {
      const params = cursor === undefined ? undefined : { cursor };
      const page =
        what === 'tools'
          ? await client.listTools(params, timeout)
          : what === 'resources'
            ? await client.listResources(params, timeout)
            : await client.listPrompts(params, timeout);
      items.push(...((page as Record<string, unknown>)[what] as unknown[]));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    if (what === 'tools') this.#tools = items as Tool[];
    else if (what === 'resources') this.#resources = items as Resource[];
    else this.#prompts = items as Prompt[];
    if (this.#state === 'up') this.#onToolsChanged(what);
  }

  #fail(why: string): void {
    const wasUp = this.#state === 'up';
    this.#setState('down', why);
    this.#settleFirst();
    if (wasUp) for (const kind of ['tools', 'resources', 'prompts'] as const) this.#onToolsChanged(kind);
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

// The configured MCP servers as one: their tools under `SERVER__TOOL` names, a call sent to the server its
// name points at. A server that is down or slow costs only its own tools: a listing waits for each server's
// first listing at most its timeout, then leaves out whatever is not up; a call to it is an error result.
import type {
  CallToolResult,
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
  Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig } from '../core/config-types.ts';
import { namespaced, splitName } from './names.ts';
import type { ToolRights } from './rights.ts';
import { UpstreamServer, type ListKind, type UpstreamHealth } from './upstream.ts';

export type ToolCallStatus = 'ok' | 'error' | 'refused' | 'rate_limited' | 'unknown_tool' | 'unavailable' | 'timeout';

/** Each status as the usage row's HTTP-like status (>= 400 counts as an error in the reports). */
export const TOOL_CALL_HTTP_STATUS: Readonly<Record<ToolCallStatus, number>> = {
  ok: 200,
  error: 502,
  refused: 403,
  rate_limited: 429,
  unknown_tool: 404,
  unavailable: 503,
  timeout: 504,
};

/** One tool call, as the books and the metrics see it. */
export interface ToolCallRecord {
  keyId: string;
  server: string;
  tool: string;
  status: ToolCallStatus;
  durationMs: number;
  /** Bytes of the arguments sent and of the result returned, as JSON. */
  requestBytes: number;
  responseBytes: number;
}

export class McpAggregator {
  readonly #servers = new Map<string, UpstreamServer>();
  readonly #listeners = new Set<(kind: ListKind) => void>();
  readonly #drainListeners = new Set<() => void>();

  constructor(configs: readonly McpServerConfig[], onLog: (msg: string, fields: Record<string, unknown>) => void) {
    for (const c of configs)
      this.#servers.set(c.name, new UpstreamServer(c, { onToolsChanged: (kind) => this.#changed(kind), onLog }));
  }

  get size(): number {
    return this.#servers.size;
  }

  /** Connects to every server at once, so the first listing after a start finds them listed. */
  start(): void {
    for (const s of this.#servers.values()) s.start();
  }

  /** Called when the gateway stops taking connections: open client streams end, so the stop is not held up. */
  onDrain(listener: () => void): void {
    this.#drainListeners.add(listener);
  }

  drain(): void {
    for (const l of this.#drainListeners) l();
  }

  async stop(): Promise<void> {
    this.drain();
    await Promise.all([...this.#servers.values()].map((s) => s.stop()));
  }

  /** Called when any server's tools, resources or prompts change (connected, lost, or its own list_changed). */
  onListChanged(listener: (kind: ListKind) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  health(): UpstreamHealth[] {
    return [...this.#servers.values()].map((s) => s.health());
  }

  /** Every tool `allowed` lets through, of every server that is up once its first listing has had its time. */
  async listTools(allowed: ToolRights): Promise<Tool[]> {
    await Promise.all([...this.#servers.values()].map(firstListingOrTimeout));
    const out: Tool[] = [];
    for (const s of this.#servers.values()) {
      for (const t of s.tools) {
        const name = namespaced(s.name, t.name);
        if (allowed(name)) out.push({ ...t, name });
      }
    }
    return out;
  }

  /** A call by namespaced name: always a result (an error result names what went wrong), never a throw. */
  async callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    allowed: ToolRights,
  ): Promise<{ result: CallToolResult; server: string; tool: string; status: ToolCallStatus }> {
    const split = splitName(name);
    const server = split === null ? undefined : this.#servers.get(split.server);
    if (split === null || server === undefined)
      return {
        result: errorResult(`Unknown tool "${name}": tools are named SERVER__TOOL after a configured MCP server.`),
        server: split?.server ?? '',
        tool: split?.tool ?? name,
        status: 'unknown_tool',
      };
    const at = { server: split.server, tool: split.tool };
    if (!allowed(name))
      return { ...at, result: errorResult(`This key may not call the tool "${name}".`), status: 'refused' };
    if (server.state !== 'up') {
      // A server being restarted is waited for, up to its timeout, rather than failing the call at once.
      await server.whenUp(server.config.timeoutMs);
      if (!server.isUp())
        return {
          ...at,
          result: errorResult(`The MCP server "${split.server}" is unavailable: ${server.error ?? 'not connected'}.`),
          status: 'unavailable',
        };
    }
    try {
      const result = await server.callTool(split.tool, args);
      return { ...at, result, status: result.isError === true ? 'error' : 'ok' };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const timedOut = /timed out|timeout/i.test(message);
      return {
        ...at,
        result: errorResult(
          timedOut
            ? `The MCP server "${split.server}" did not answer "${split.tool}" within ${server.config.timeoutMs} ms.`
            : `The MCP server "${split.server}" failed the call to "${split.tool}": ${message}`,
        ),
        status: timedOut ? 'timeout' : 'unavailable',
      };
    }
  }

  /**
   * Every resource of every server that is up, its URI namespaced as `SERVER__URI`; shown where `allowed`
   * lets that name through (so `github__*` covers github's resources as well as its tools).
   */
  async listResources(allowed: ToolRights): Promise<Resource[]> {
    await Promise.all([...this.#servers.values()].map(firstListingOrTimeout));
    const out: Resource[] = [];
    for (const s of this.#servers.values())
      for (const r of s.resources) {
        const uri = namespaced(s.name, r.uri);
        if (allowed(uri)) out.push({ ...r, uri });
      }
    return out;
  }

  /** Every prompt of every server that is up, named `SERVER__PROMPT`, where `allowed` lets the name through. */
  async listPrompts(allowed: ToolRights): Promise<Prompt[]> {
    await Promise.all([...this.#servers.values()].map(firstListingOrTimeout));
    const out: Prompt[] = [];
    for (const s of this.#servers.values())
      for (const p of s.prompts) {
        const name = namespaced(s.name, p.name);
        if (allowed(name)) out.push({ ...p, name });
      }
    return out;
  }

  /** Reads a namespaced resource; throws an Error naming what went wrong (the endpoint makes it a JSON-RPC error). */
  async readResource(uri: string, allowed: ToolRights): Promise<ReadResourceResult> {
    const { server, inner } = this.#target(uri, allowed, 'resource');
    const result = await server.readResource(inner);
    return { ...result, contents: result.contents.map((c) => ({ ...c, uri: namespaced(server.name, c.uri) })) };
  }

  async getPrompt(
    name: string,
    args: Record<string, string> | undefined,
    allowed: ToolRights,
  ): Promise<GetPromptResult> {
    const { server, inner } = this.#target(name, allowed, 'prompt');
    return server.getPrompt(inner, args);
  }

  #target(name: string, allowed: ToolRights, what: string): { server: UpstreamServer; inner: string } {
    const split = splitName(name);
    const server = split === null ? undefined : this.#servers.get(split.server);
    if (split === null || server === undefined)
      throw new Error(`Unknown ${what} "${name}": names are SERVER__NAME after a configured MCP server.`);
    if (!allowed(name)) throw new Error(`This key may not use the ${what} "${name}".`);
    if (!server.isUp())
      throw new Error(`The MCP server "${split.server}" is unavailable: ${server.error ?? 'not connected'}.`);
    return { server, inner: split.tool };
  }

  #changed(kind: ListKind): void {
    for (const l of this.#listeners) l(kind);
  }
}

function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

function firstListingOrTimeout(s: UpstreamServer): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, s.config.timeoutMs);
    timer.unref();
  });
  return Promise.race([s.firstListing, timeout]).finally(() => clearTimeout(timer));
}

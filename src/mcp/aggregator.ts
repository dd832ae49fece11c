// The configured MCP servers as one: their tools under `SERVER__TOOL` names, a call sent to the server its
// name points at. A server that is down or slow costs only its own tools: a listing waits for each server's
// first listing at most its timeout, then leaves out whatever is not up; a call to it is an error result.
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig } from '../core/config-types.ts';
import { namespaced, splitName } from './names.ts';
import type { ToolRights } from './rights.ts';
import { UpstreamServer, type UpstreamHealth } from './upstream.ts';

export type ToolCallStatus = 'ok' | 'error' | 'refused' | 'unknown_tool' | 'unavailable' | 'timeout';

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
  readonly #listeners = new Set<() => void>();

  constructor(configs: readonly McpServerConfig[], onLog: (msg: string, fields: Record<string, unknown>) => void) {
    for (const c of configs)
      this.#servers.set(c.name, new UpstreamServer(c, { onToolsChanged: () => this.#changed(), onLog }));
  }

  get size(): number {
    return this.#servers.size;
  }

  /** Connects to every server at once, so the first listing after a start finds them listed. */
  start(): void {
    for (const s of this.#servers.values()) s.start();
  }

  async stop(): Promise<void> {
    await Promise.all([...this.#servers.values()].map((s) => s.stop()));
  }

  /** Called when any server's tool list changes (connected, lost, or its own list_changed). */
  onToolsChanged(listener: () => void): () => void {
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

  #changed(): void {
    for (const l of this.#listeners) l();
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

// POST /mcp: the gateway as one MCP server over Streamable HTTP, for the caller's gateway key.
// Stateless: each request gets its own protocol server and transport, built from the shared aggregator,
// so any replica answers any request and nothing is kept per client between requests (docs/mcp.md).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { GatewayError } from '../core/errors.ts';
import type { KeyRecord } from '../core/key-record.ts';
import { authenticate } from '../auth/authenticate.ts';
import { answeredOrGone, parseJsonBody, readBody } from '../http/body.ts';
import { sendError } from '../http/respond.ts';
import type { BodyLimits } from '../http/body.ts';
import { MODELGATE_VERSION } from '../runtime/version.ts';
import type { McpAggregator, ToolCallRecord } from './aggregator.ts';
import { toolRights } from './rights.ts';

/** What /mcp needs beyond the gateway: the servers it aggregates and where each tool call is booked. */
export interface McpService {
  aggregator: McpAggregator;
  record: (call: ToolCallRecord) => void;
}

/** What /mcp reads of the gateway (the pipeline's Gateway is one). */
export interface McpContext {
  keys: Parameters<typeof authenticate>[1];
  bodyLimits: BodyLimits;
  mcp: McpService | null;
}

export async function handleMcp(
  gw: McpContext,
  req: IncomingMessage,
  res: ServerResponse,
  requestId: string,
): Promise<void> {
  let key: KeyRecord;
  let body: unknown;
  try {
    key = await authenticate(req.headers, gw.keys, Date.now(), req.socket);
    body = req.method === 'POST' ? parseJsonBody(await readBody(req, gw.bodyLimits)).value : undefined;
  } catch (err) {
    if (!(err instanceof GatewayError)) throw err;
    if (answeredOrGone(err)) return;
    req.resume();
    sendError(res, { dialect: 'openai', error: err, requestId });
    return;
  }
  const mcp = gw.mcp;
  const server = protocolServer(mcp, key);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.once('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

function protocolServer(mcp: McpService | null, key: KeyRecord): Server {
  const server = new Server({ name: 'modelgate', version: MODELGATE_VERSION }, { capabilities: { tools: {} } });
  const allowed = toolRights(key.mcpTools);
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: mcp === null ? [] : await mcp.aggregator.listTools(allowed),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: args } = request.params;
    if (mcp === null)
      return {
        isError: true,
        content: [{ type: 'text' as const, text: `Unknown tool "${name}": no MCP servers are configured.` }],
      };
    const started = performance.now();
    const out = await mcp.aggregator.callTool(name, args, allowed);
    mcp.record({
      keyId: key.id,
      server: out.server,
      tool: out.tool,
      status: out.status,
      durationMs: performance.now() - started,
      requestBytes: args === undefined ? 0 : Buffer.byteLength(JSON.stringify(args)),
      responseBytes: Buffer.byteLength(JSON.stringify(out.result)),
    });
    return out.result;
  });
  return server;
}

// /mcp: the gateway as one MCP server over Streamable HTTP, for the caller's gateway key. A client that
// keeps a session gets one (sessions.ts: its GET stream carries `list_changed`); every other request —
// no session id, or one this process does not hold — gets its own protocol server and transport, built
// from the shared aggregator, so any replica answers it and a restart loses nothing (docs/mcp.md).
// Each tool call runs under the key's RPM and concurrency limits (never its budgets: a call costs no
// tokens) and ends as a usage row (endpoint `/mcp`), a metric and, with tracing on, a span.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  isInitializeRequest,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError } from '../core/errors.ts';
import type { KeyRecord } from '../core/key-record.ts';
import type { ModelConfig } from '../core/config-types.ts';
import { periodStart } from '../core/budget.ts';
import type { Admission } from '../admission/admission.ts';
import type { UsageWriter } from '../accounting/usage-writer.ts';
import type { Tracing } from '../observability/tracing.ts';
import { authenticate } from '../auth/authenticate.ts';
import { answeredOrGone, parseJsonBody, readBody } from '../http/body.ts';
import { sendError } from '../http/respond.ts';
import type { BodyLimits } from '../http/body.ts';
import { MODELGATE_VERSION } from '../runtime/version.ts';
import { TOOL_CALL_HTTP_STATUS, type McpAggregator, type ToolCallRecord, type ToolCallStatus } from './aggregator.ts';
import { namespaced } from './names.ts';
import { registerListings } from './listings.ts';
import { keyToolRights } from './rights.ts';
import { McpSessions, type KeyRef } from './sessions.ts';

/** The gateway's id of the HTTP request a message came in, for its usage row (set on the request's headers). */
const REQUEST_ID_HEADER = 'x-modelgate-request-id';

const sessionsOf = new WeakMap<McpContext, McpSessions>();

/** What /mcp needs beyond the gateway: the servers it aggregates and where each tool call is counted. */
export interface McpService {
  aggregator: McpAggregator;
  record: (call: ToolCallRecord) => void;
}

/** What /mcp reads of the gateway (the pipeline's Gateway is one). */
export interface McpContext {
  keys: Parameters<typeof authenticate>[1];
  bodyLimits: BodyLimits;
  mcp: McpService | null;
  usage: Pick<UsageWriter, 'add'>;
  admission: Pick<Admission, 'whileCounting'>;
  tracing: Tracing | null;
}

/** What admission sizes a tool call by: nothing (it is admitted free, against RPM and concurrency only). */
const TOOL_CALLS: ModelConfig = {
  name: 'mcp',
  family: 'mcp',
  mode: 'chat',
  price: null,
  deployments: [],
  timeouts: { connectMs: 0, firstByteMs: 0, idleMs: 0, totalMs: 0 },
  maxRetries: 0,
};

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
  // Read back by the tool-call handler (through the SDK's request info): one protocol server may serve
  // several HTTP requests of a session at once.
  req.headers[REQUEST_ID_HEADER] = requestId;
  let sessions = sessionsOf.get(gw);
  if (sessions === undefined) sessionsOf.set(gw, (sessions = new McpSessions(gw.mcp?.aggregator ?? null)));
  const sessionId = req.headers['mcp-session-id'];
  const session = sessions.find(typeof sessionId === 'string' ? sessionId : undefined, key);
  if (session !== undefined) {
    if (req.method === 'GET') sessions.holdStream(session, res);
    await session.transport.handleRequest(req, res, body);
    return;
  }
  if (req.method !== 'POST') {
    // No session of this key here: no stream to open (405, as the transport allows) and nothing to end.
    res.writeHead(405, { allow: 'POST', 'content-type': 'application/json' }).end(
      JSON.stringify({
        jsonrpc: '2.0',
        error: { code: -32000, message: `${req.method} /mcp needs a session of this gateway; use POST.` },
        id: null,
      }),
    );
    return;
  }
  const keyRef: KeyRef = { key };
  const server = protocolServer(gw, keyRef);
  const stateful = sessionId === undefined && isInitializeRequest(body) ? sessions.start(server, keyRef) : null;
  if (stateful !== null) {
    await server.connect(stateful);
    await stateful.handleRequest(req, res, body);
    return;
  }
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.once('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

function protocolServer(gw: McpContext, keyRef: KeyRef): Server {
  const mcp = gw.mcp;
  const server = new Server(
    { name: 'modelgate', version: MODELGATE_VERSION },
    {
      capabilities: {
        tools: { listChanged: true },
        resources: { listChanged: true },
        prompts: { listChanged: true },
      },
    },
  );
  // The key's rights as of its latest request (a session's key may be changed meanwhile).
  let rightsOf = keyRef.key;
  let rights = keyToolRights(rightsOf);
  const allowed = (name: string): boolean => {
    if (keyRef.key !== rightsOf) rights = keyToolRights((rightsOf = keyRef.key));
    return rights(name);
  };
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: mcp === null ? [] : await mcp.aggregator.listTools(allowed),
  }));
  registerListings(server, mcp?.aggregator ?? null, allowed);
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args } = request.params;
    const key = keyRef.key;
    const headers: IncomingHttpHeaders = (extra.requestInfo?.headers ?? {}) as IncomingHttpHeaders;
    const requestIdHeader = headers[REQUEST_ID_HEADER];
    const requestId = typeof requestIdHeader === 'string' ? requestIdHeader : '';
    if (mcp === null)
      return {
        isError: true,
        content: [{ type: 'text' as const, text: `Unknown tool "${name}": no MCP servers are configured.` }],
      };
    const startWall = Date.now();
    const started = performance.now();
    let out: { result: CallToolResult; server: string; tool: string; status: ToolCallStatus };
    try {
      out = await gw.admission.whileCounting({ key, model: TOOL_CALLS, body: {}, bodyBytes: 0 }, () =>
        mcp.aggregator.callTool(name, args, allowed),
      );
    } catch (err) {
      if (!(err instanceof GatewayError)) throw err;
      // The key's limits refused the call: an error result the agent reads, naming the limit and when to retry.
      const retry = err.headers?.['retry-after'];
      out = {
        ...splitForBooks(name),
        status: 'rate_limited',
        result: {
          isError: true,
          content: [
            {
              type: 'text',
              text: `Refused by this key's limits: ${err.message}.${retry === undefined ? '' : ` Retry after ${retry} s.`}`,
            },
          ],
        },
      };
    }
    const durationMs = performance.now() - started;
    const requestBytes = args === undefined ? 0 : Buffer.byteLength(JSON.stringify(args));
    const responseBytes = Buffer.byteLength(JSON.stringify(out.result));
    const call: ToolCallRecord = {
      keyId: key.id,
      server: out.server,
      tool: out.tool,
      status: out.status,
      durationMs,
      requestBytes,
      responseBytes,
    };
    mcp.record(call);
    bookToolCall(gw, key, requestId, startWall, call);
    gw.tracing?.traceToolCall({
      headers,
      requestId,
      startMs: startWall,
      endMs: startWall + durationMs,
      server: call.status === 'unknown_tool' ? '' : call.server,
      tool: call.status === 'unknown_tool' ? '' : call.tool,
      status: call.status,
      keyId: key.id,
      keyName: key.name,
      requestBytes,
      responseBytes,
    });
    return out.result;
  });
  return server;
}

/** A name's server and tool for the books before the aggregator has looked at it. */
function splitForBooks(name: string): { server: string; tool: string } {
  const at = name.indexOf('__');
  return at <= 0 ? { server: '', tool: name } : { server: name.slice(0, at), tool: name.slice(at + 2) };
}

/**
 * The call's usage row: `model` is the namespaced tool name and `deployment` the server, so the usage
 * report groups tool calls by server, tool and key with its usual dimensions. An unknown tool's name is
 * the caller's text and is kept out of the row's model (as out of the metrics).
 */
function bookToolCall(gw: McpContext, key: KeyRecord, requestId: string, ts: number, call: ToolCallRecord): void {
  const known = call.status !== 'unknown_tool';
  gw.usage.add({
    ts,
    requestId,
    keyId: key.id,
    endpoint: '/mcp',
    model: known ? namespaced(call.server, call.tool) : '',
    deployment: known && call.server !== '' ? call.server : null,
    status: TOOL_CALL_HTTP_STATUS[call.status],
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    costNanos: 0,
    latencyMs: Math.round(call.durationMs),
    ttfbMs: null,
    streamed: false,
    attempts: 1,
    periodStart: periodStart(key.budgetPeriod, ts),
    errorCode: call.status === 'ok' ? null : call.status,
    routing: null,
    requestBytes: call.requestBytes,
    responseBytes: call.responseBytes,
  });
}

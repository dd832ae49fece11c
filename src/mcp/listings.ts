// The resources and prompts of the configured servers, served by /mcp beside their tools: listed under
// namespaced names (`SERVER__URI`, `SERVER__PROMPT`) where the key's `mcp_tools` patterns let the name
// through, read and fetched from the server the name points at. A failure is a JSON-RPC error naming it.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { McpAggregator } from './aggregator.ts';
import type { ToolRights } from './rights.ts';

export function registerListings(server: Server, aggregator: McpAggregator | null, allowed: ToolRights): void {
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: aggregator === null ? [] : await aggregator.listResources(allowed),
  }));
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: aggregator === null ? [] : await aggregator.listPrompts(allowed),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    if (aggregator === null) throw new McpError(ErrorCode.InvalidParams, 'No MCP servers are configured.');
    return aggregator.readResource(request.params.uri, allowed).catch(asRpcError);
  });
  server.setRequestHandler(GetPromptRequestSchema, async (request) => {
    if (aggregator === null) throw new McpError(ErrorCode.InvalidParams, 'No MCP servers are configured.');
    return aggregator.getPrompt(request.params.name, request.params.arguments, allowed).catch(asRpcError);
  });
}

function asRpcError(err: unknown): never {
  if (err instanceof McpError) throw err;
  throw new McpError(ErrorCode.InvalidParams, err instanceof Error ? err.message : String(err));
}

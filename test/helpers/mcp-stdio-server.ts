// A small MCP server over stdio, started by the gateway under test (`mcp_servers: [{ command, args }]`).
// `shout` upper-cases its text; `whoami` says its process id (a restart shows as a new one); `crash` exits;
// `grow` adds a tool `grown` (the SDK then sends `notifications/tools/list_changed`).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'local-test', version: '1.0.0' });
server.registerTool(
  'shout',
  { description: 'Upper-cases a text', inputSchema: { text: z.string() } },
  async ({ text }) => ({ content: [{ type: 'text', text: `${text.toUpperCase()}${process.env.SHOUT_SUFFIX ?? ''}` }] }),
);
server.registerTool('whoami', { description: 'The process id of this server' }, async () => ({
  content: [{ type: 'text', text: String(process.pid) }],
}));
server.registerTool('crash', { description: 'Exits the process' }, async () => process.exit(3));
server.registerTool('grow', { description: 'Adds the tool grown' }, async () => {
  server.registerTool('grown', { description: 'A tool added while running' }, async () => ({
    content: [{ type: 'text', text: 'grown' }],
  }));
  return { content: [{ type: 'text', text: 'grew' }] };
});
await server.connect(new StdioServerTransport());

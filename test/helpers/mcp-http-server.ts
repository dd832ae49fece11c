// A remote MCP server over Streamable HTTP (stateless, the SDK's McpServer), started by a test. It refuses
// requests without the header the gateway is configured to send, so a test sees the gateway keep it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export interface McpHttpServer {
  url: string;
  /** Authorization headers seen, one per request. */
  seenAuth: string[];
  /** The token it takes from now on (a revoked one is refused with 401). */
  setToken(token: string): void;
  close(): Promise<void>;
}

export async function startMcpHttpServer(opts: { token: string; port?: number }): Promise<McpHttpServer> {
  const seenAuth: string[] = [];
  let token = opts.token;
  const http: Server = createServer((req, res) => {
    seenAuth.push(req.headers.authorization ?? '');
    if (req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401).end('unauthorized');
      return;
    }
    const server = new McpServer({ name: 'remote-test', version: '1.0.0' });
    server.registerTool(
      'add',
      { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } },
      async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
    );
    server.registerTool('secret_admin', { description: 'A tool only some keys may call' }, async () => ({
      content: [{ type: 'text', text: 'admin done' }],
    }));
    server.registerResource(
      'readme',
      'note://readme',
      { description: 'The team notes', mimeType: 'text/plain' },
      async (uri) => ({
        contents: [{ uri: uri.href, text: 'remember the milk' }],
      }),
    );
    server.registerPrompt('greet', { description: 'Greets someone', argsSchema: { who: z.string() } }, ({ who }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${who}` } }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    void server.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => http.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seenAuth,
    setToken: (t) => {
      token = t;
    },
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

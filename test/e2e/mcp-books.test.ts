// /mcp books and limits end to end: every tool call is a usage row the admin report groups by server, tool
// and key; a key's RPM refuses the call past its limit with an error result that says so; the servers'
// resources and prompts are listed and read under namespaced names with the key's rights; a remote server
// behind OAuth client credentials is reached with a token the gateway fetched, cached and kept to itself.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startGateway, configYaml, type GatewayProcess } from '../helpers/gateway-process.ts';
import { startMcpHttpServer, type McpHttpServer } from '../helpers/mcp-http-server.ts';

const ADMIN_TOKEN = 'admin-token-mcp-books-0123456789';
const UPSTREAM_TOKEN = 'mcp-upstream-secret-9a8b7c6d5e';
const CLIENT_SECRET = 'oauth-client-secret-5c4b3a29';
const STDIO_SERVER = new URL('../helpers/mcp-stdio-server.ts', import.meta.url).pathname;

let remote: McpHttpServer;
let secured: McpHttpServer;
let tokenServer: Server;
const tokenRequests: { auth: string; body: string }[] = [];
let issued = 0;
let gw: GatewayProcess;

/** A token endpoint that gives out an access token for the right client credentials: `oauth-access-token-N`, N counting. */
async function startTokenEndpoint(): Promise<string> {
  tokenServer = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c));
    req.on('end', () => {
      tokenRequests.push({ auth: req.headers.authorization ?? '', body });
      const expected = `Basic ${Buffer.from(`gateway:${CLIENT_SECRET}`).toString('base64')}`;
      if (req.headers.authorization !== expected || !body.includes('grant_type=client_credentials')) {
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid_client"}');
        return;
      }
      issued++;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ access_token: `oauth-access-token-${issued}`, token_type: 'Bearer', expires_in: 3600 }));
    });
  });
  await new Promise<void>((resolve) => tokenServer.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(tokenServer.address() as AddressInfo).port}/token`;
}

before(async () => {
  remote = await startMcpHttpServer({ token: UPSTREAM_TOKEN });
  secured = await startMcpHttpServer({ token: 'oauth-access-token-1' });
  const tokenUrl = await startTokenEndpoint();
  gw = await startGateway({
    configYaml: configYaml({
      models: '  - { name: gpt-mock, deployments: [ { provider: mock, model: gpt-mock } ] }',
      extra: `admin_token: "${ADMIN_TOKEN}"
mcp_servers:
  - { name: remote, url: "${remote.url}", headers: { Authorization: "Bearer ${UPSTREAM_TOKEN}" }, timeout_ms: 3000 }
  - { name: local, command: "${process.execPath}", args: ["${STDIO_SERVER}"], timeout_ms: 5000 }
  - name: secured
    url: "${secured.url}"
    oauth: { token_url: "${tokenUrl}", client_id: gateway, client_secret: "${CLIENT_SECRET}", scope: "tools.read" }
    timeout_ms: 3000`,
    }),
  });
});
after(async () => {
  await gw?.cleanup();
  await remote?.close();
  await secured?.close();
  tokenServer?.closeAllConnections();
  await new Promise((resolve) => tokenServer?.close(resolve));
});

async function connect(key: string): Promise<Client> {
  const client = new Client({ name: 'e2e-books', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

function text(r: unknown): string {
  return ((r as CallToolResult).content[0] as { text: string }).text;
}

async function admin(path: string): Promise<Response> {
  return fetch(`${gw.url}${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
}

test('a server behind OAuth client credentials: its tools listed and called with the token the gateway fetched', async () => {
  const { key } = await gw.createKey({ name: 'oauth-user' });
  const client = await connect(key);
  const names = (await client.listTools()).tools.map((t) => t.name);
  assert.ok(names.includes('secured__add'), names.join(','));
  assert.equal(text(await client.callTool({ name: 'secured__add', arguments: { a: 20, b: 22 } })), '42');
  assert.equal(text(await client.callTool({ name: 'secured__add', arguments: { a: 1, b: 1 } })), '2');
  await client.close();
  assert.equal(issued, 1, 'one token, cached for every request after the first');
  assert.ok(tokenRequests[0].body.includes('scope=tools.read'));
  assert.ok(secured.seenAuth.every((a) => a === 'Bearer oauth-access-token-1'));
  const health = await (await admin('/admin/mcp/servers')).text();
  assert.ok(!health.includes(CLIENT_SECRET) && !health.includes('oauth-access-token-1'), 'never shown');
});

test('a token the server stops taking (401) is replaced: the gateway fetches a new one and the call goes through', async () => {
  const { key } = await gw.createKey({ name: 'oauth-revoked' });
  const client = await connect(key);
  secured.setToken('oauth-access-token-2');
  const before = issued;
  assert.equal(text(await client.callTool({ name: 'secured__add', arguments: { a: 3, b: 4 } })), '7');
  assert.equal(issued, before + 1, 'one new token');
  assert.equal(secured.seenAuth.at(-1), 'Bearer oauth-access-token-2');
  await client.close();
});

test('every tool call is a usage row: the admin report groups tool calls by server, tool and key (JSON and CSV)', async () => {
  const { key, id } = await gw.createKey({ name: 'books' });
  const client = await connect(key);
  await client.callTool({ name: 'remote__add', arguments: { a: 2, b: 3 } });
  await client.callTool({ name: 'remote__add', arguments: { a: 4, b: 5 } });
  await client.callTool({ name: 'local__shout', arguments: { text: 'x' } });
  await client.callTool({ name: 'nowhere__x', arguments: {} });
  await client.close();

  const report = (await (await admin(`/admin/usage?endpoint=/mcp&key=${id}&group_by=deployment,model,key`)).json()) as {
    totals: { requests: number; errors: number };
    groups: Record<string, unknown>[];
  };
  assert.equal(report.totals.requests, 4);
  assert.equal(report.totals.errors, 1, 'the unknown tool');
  const add = report.groups.find((g) => g.model === 'remote__add')!;
  assert.equal(add.deployment, 'remote');
  assert.equal(add.requests, 2);
  assert.equal(add.key_name, 'books');
  assert.equal(report.groups.find((g) => g.model === 'local__shout')?.requests, 1);

  const rows = (await (await admin(`/admin/requests?endpoint=/mcp&key=${id}`)).json()) as {
    data: Record<string, unknown>[];
  };
  const call = rows.data.find((r) => r.model === 'local__shout')!;
  assert.equal(call.endpoint, '/mcp');
  assert.equal(call.deployment, 'local');
  assert.equal(call.status, 200);
  assert.equal(call.request_bytes, Buffer.byteLength(JSON.stringify({ text: 'x' })));
  assert.ok(Number(call.response_bytes) > 0);
  assert.equal(rows.data.find((r) => r.status === 404)?.error_code, 'unknown_tool');

  const csv = await (await admin(`/admin/usage?endpoint=/mcp&key=${id}&group_by=deployment,model&format=csv`)).text();
  assert.match(csv, /^deployment,model,requests,/);
  assert.match(csv, /\r\nremote,remote__add,2,/);
  // The CLI's report, from the database.
  const cli = await gw.cli(['usage', '--endpoint', '/mcp', '--key', id, '--group-by', 'deployment,model', '--csv']);
  assert.match(cli, /^deployment,model,requests,/);
  assert.match(cli, /\nlocal,local__shout,1,/);
});

test('a key’s RPM applies to tool calls: the call past the limit gets an error result naming the limit', async () => {
  const { key, id } = await gw.createKey({ name: 'rpm-2', flags: ['--rpm', '2'] });
  const client = await connect(key);
  assert.equal(text(await client.callTool({ name: 'remote__add', arguments: { a: 1, b: 1 } })), '2');
  assert.equal(text(await client.callTool({ name: 'remote__add', arguments: { a: 1, b: 2 } })), '3');
  const refused = (await client.callTool({ name: 'remote__add', arguments: { a: 1, b: 3 } })) as CallToolResult;
  assert.equal(refused.isError, true);
  assert.match(text(refused), /^Refused by this key's limits: rate limit reached: 2 requests per minute/);
  // Listing is not a call: it is not counted or refused.
  assert.ok((await client.listTools()).tools.length > 0);
  await client.close();
  const rows = (await (await admin(`/admin/requests?endpoint=/mcp&key=${id}`)).json()) as {
    data: { status: number; error_code: string | null }[];
  };
  assert.deepEqual(
    rows.data.map((r) => r.status),
    [429, 200, 200],
  );
  assert.equal(rows.data[0].error_code, 'rate_limited');
});

test('resources and prompts are listed and read under SERVER__ names, with the key’s rights', async () => {
  const { key } = await gw.createKey({ name: 'resources' });
  const client = await connect(key);
  const resources = (await client.listResources()).resources.map((r) => r.uri).sort();
  assert.deepEqual(resources, ['remote__note://readme', 'secured__note://readme']);
  const read = await client.readResource({ uri: 'remote__note://readme' });
  assert.equal((read.contents[0] as { text: string }).text, 'remember the milk');
  const prompts = (await client.listPrompts()).prompts.map((p) => p.name).sort();
  assert.deepEqual(prompts, ['remote__greet', 'secured__greet']);
  const prompt = await client.getPrompt({ name: 'remote__greet', arguments: { who: 'Ada' } });
  assert.equal((prompt.messages[0].content as { text: string }).text, 'Say hello to Ada');
  await client.close();

  const { key: limited } = await gw.createKey({ name: 'remote-only', flags: ['--mcp-tools', 'remote__*'] });
  const lc = await connect(limited);
  assert.deepEqual(
    (await lc.listResources()).resources.map((r) => r.uri),
    ['remote__note://readme'],
  );
  await assert.rejects(lc.readResource({ uri: 'secured__note://readme' }), /may not use the resource/);
  await assert.rejects(lc.getPrompt({ name: 'secured__greet', arguments: { who: 'x' } }), /may not use the prompt/);
  await lc.close();
});

// /mcp end to end: the official SDK client lists and calls the tools of two configured MCP servers (one
// remote over Streamable HTTP, one local over stdio) through the gateway, with the key's rights; a dead
// server costs only its own tools; a restarted gateway lists every tool on its first listing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startGateway, configYaml, type GatewayProcess } from '../helpers/gateway-process.ts';
import { startMcpHttpServer, type McpHttpServer } from '../helpers/mcp-http-server.ts';

const ADMIN_TOKEN = 'admin-token-mcp-0123456789';
const UPSTREAM_TOKEN = 'mcp-upstream-secret-4f3e2d1c0b';
const STDIO_SERVER = new URL('../helpers/mcp-stdio-server.ts', import.meta.url).pathname;

let remote: McpHttpServer;
let gw: GatewayProcess;
let key: string;

before(async () => {
  remote = await startMcpHttpServer({ token: UPSTREAM_TOKEN });
  gw = await startGateway({
    configYaml: configYaml({
      models: '  - { name: gpt-mock, deployments: [ { provider: mock, model: gpt-mock } ] }',
      extra: `admin_token: "${ADMIN_TOKEN}"
mcp_servers:
  - { name: remote, url: "${remote.url}", headers: { Authorization: "Bearer ${UPSTREAM_TOKEN}" }, timeout_ms: 3000 }
  - { name: local, command: "${process.execPath}", args: ["${STDIO_SERVER}"], env: { SHOUT_SUFFIX: "!" }, timeout_ms: 5000 }`,
    }),
  });
  key = (await gw.createKey({ name: 'mcp-all' })).key;
});
after(async () => {
  await gw?.cleanup();
  await remote?.close();
});

async function connect(withKey: string): Promise<Client> {
  const client = new Client({ name: 'e2e', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${withKey}` } },
    }),
  );
  return client;
}

function text(r: unknown): string {
  return ((r as CallToolResult).content[0] as { text: string }).text;
}

test('the SDK client lists both servers’ tools as SERVER__TOOL, with descriptions and schemas, and calls them', async () => {
  const client = await connect(key);
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  assert.deepEqual(names, [
    'local__crash',
    'local__grow',
    'local__shout',
    'local__whoami',
    'remote__add',
    'remote__secret_admin',
  ]);
  const add = tools.find((t) => t.name === 'remote__add')!;
  assert.equal(add.description, 'Adds two numbers');
  assert.deepEqual(Object.keys(add.inputSchema.properties ?? {}).sort(), ['a', 'b']);
  assert.equal(text(await client.callTool({ name: 'remote__add', arguments: { a: 2, b: 40 } })), '42');
  assert.equal(text(await client.callTool({ name: 'local__shout', arguments: { text: 'hi' } })), 'HI!');
  const unknown = (await client.callTool({ name: 'nowhere__x', arguments: {} })) as CallToolResult;
  assert.equal(unknown.isError, true);
  assert.match(text(unknown), /Unknown tool "nowhere__x"/);
  await client.close();
  assert.ok(
    remote.seenAuth.every((a) => a === `Bearer ${UPSTREAM_TOKEN}`),
    'the gateway sends the upstream its own header',
  );
  assert.ok(!remote.seenAuth.some((a) => a.includes(key)), 'the caller’s key never reaches the upstream');
});

test('a key’s mcp_tools rights: tools it may not call are absent from its list and refused by name', async () => {
  const limited = (await gw.createKey({ name: 'mcp-limited', flags: ['--mcp-tools', 'remote__add,local__s*'] })).key;
  const client = await connect(limited);
  const names = (await client.listTools()).tools.map((t) => t.name).sort();
  assert.deepEqual(names, ['local__shout', 'remote__add']);
  const refused = (await client.callTool({ name: 'remote__secret_admin', arguments: {} })) as CallToolResult;
  assert.equal(refused.isError, true);
  assert.match(text(refused), /may not call the tool "remote__secret_admin"/);
  assert.equal(text(await client.callTool({ name: 'remote__add', arguments: { a: 1, b: 2 } })), '3');
  await client.close();

  const none = (await gw.createKey({ name: 'mcp-none', flags: ['--mcp-tools', ''] })).key;
  const noneClient = await connect(none);
  assert.deepEqual((await noneClient.listTools()).tools, []);
  const r = (await noneClient.callTool({ name: 'remote__add', arguments: { a: 1, b: 2 } })) as CallToolResult;
  assert.equal(r.isError, true);
  await noneClient.close();
});

test('a team’s mcp_tools narrow its keys’ rights: a tool must be allowed by the key and its team', async () => {
  await gw.cli(['teams', 'create', '--name', 'mcp-team', '--mcp-tools', 'remote__*']);
  const member = (
    await gw.createKey({ name: 'mcp-member', flags: ['--team', 'mcp-team', '--mcp-tools', 'remote__add,local__shout'] })
  ).key;
  const client = await connect(member);
  assert.deepEqual(
    (await client.listTools()).tools.map((t) => t.name),
    ['remote__add'],
    'local__shout is the key’s but not its team’s',
  );
  const refused = (await client.callTool({ name: 'local__shout', arguments: { text: 'hi' } })) as CallToolResult;
  assert.equal(refused.isError, true);
  assert.match(text(refused), /may not call the tool "local__shout"/);
  assert.equal(text(await client.callTool({ name: 'remote__add', arguments: { a: 2, b: 2 } })), '4');
  await client.close();
});

test('a wrong or missing key is 401', async () => {
  const init = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
  for (const headers of [{}, { authorization: 'Bearer sk-wrong-key-000000000000' }]) {
    const r = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(init),
    });
    assert.equal(r.status, 401);
  }
  await assert.rejects(connect('sk-wrong-key-000000000000'));
});

test('a stdio server that exits is restarted; a dead remote server costs only its own tools', async () => {
  const client = await connect(key);
  const before = text(await client.callTool({ name: 'local__whoami', arguments: {} }));
  await client.callTool({ name: 'local__crash', arguments: {} }).catch(() => undefined);
  // The restarted process answers under a new pid: a call while the server restarts waits for it.
  const after = text(await client.callTool({ name: 'local__whoami', arguments: {} }));
  assert.notEqual(after, before);
  assert.match(after, /^\d+$/);

  await remote.close();
  const dead = (await client.callTool({ name: 'remote__add', arguments: { a: 1, b: 1 } })) as CallToolResult;
  assert.equal(dead.isError, true);
  assert.match(text(dead), /MCP server "remote"/);
  assert.equal(text(await client.callTool({ name: 'local__shout', arguments: { text: 'still' } })), 'STILL!');
  const health = (await (
    await fetch(`${gw.url}/admin/mcp/servers`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
  ).json()) as { data: { name: string; state: string; connects: number }[] };
  const local = health.data.find((s) => s.name === 'local')!;
  assert.equal(local.state, 'up');
  assert.ok(local.connects >= 2, 'the restart shows as a second connection');
  assert.ok(!JSON.stringify(health).includes(UPSTREAM_TOKEN), 'a server’s headers are never shown');
  await client.close();
  remote = await startMcpHttpServer({ token: UPSTREAM_TOKEN, port: Number(new URL(remote.url).port) });
});

test('a session’s client is told when a server’s tool list changes, and lists the new tool', async () => {
  const client = await connect(key);
  const told = new Promise<void>((resolve) =>
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
  );
  assert.equal(text(await client.callTool({ name: 'local__grow', arguments: {} })), 'grew');
  await told;
  const names = (await client.listTools()).tools.map((t) => t.name);
  assert.ok(names.includes('local__grown'), names.join(','));
  assert.equal(text(await client.callTool({ name: 'local__grown', arguments: {} })), 'grown');
  await client.close();
});

test('after a restart the first tools/list has every server’s tools', async () => {
  await gw.stop();
  await gw.restart();
  const client = await connect(key);
  const { tools } = await client.listTools();
  assert.equal(tools.length, 6);
  await client.close();
});

test('a client without sessions, or with a session this gateway does not hold (a restart, another replica): each POST answered on its own', async () => {
  const post = (body: unknown, session?: string) =>
    fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${key}`,
        ...(session === undefined ? {} : { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' }),
      },
      body: JSON.stringify(body),
    });
  const listed = (await (await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).json()) as {
    result: { tools: unknown[] };
  };
  assert.equal(listed.result.tools.length, 6);
  const called = (await (
    await post({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'local__shout', arguments: { text: 'a' } },
    })
  ).json()) as { result: CallToolResult };
  assert.equal(text(called.result), 'A!');
  const lost = (await (
    await post({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, '0b4c2a6e-0000-4000-8000-000000000000')
  ).json()) as { result: { tools: unknown[] } };
  assert.equal(lost.result.tools.length, 6);
  const get = await fetch(`${gw.url}/mcp`, {
    headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
  });
  assert.equal(get.status, 405);
});

// Claude Code (newest) with the gateway as its HTTP MCP server (`--mcp-config`, the key as a Bearer header)
// calls a tool of a configured stdio server in `claude -p`: its model traffic goes to the gateway too, where
// the scripted upstream asks for the MCP tool by Claude Code's name for it (`mcp__SERVER__TOOL`, here
// `mcp__modelgate__local__shout`) and sees the tool's result come back; the call is a usage row.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startMockUpstream, type MockUpstream, type RecordedRequest } from '../helpers/mock-upstream.ts';
import { startGateway, configYaml, type GatewayProcess } from '../helpers/gateway-process.ts';
import { claudeOrSkip, runClaude } from '../helpers/claude-code.ts';

const ADMIN_TOKEN = 'admin-token-mcp-claude-0123456789';
const STDIO_SERVER = new URL('../helpers/mcp-stdio-server.ts', import.meta.url).pathname;

let up: MockUpstream;
let gw: GatewayProcess;
before(async () => {
  up = await startMockUpstream();
  gw = await startGateway({
    configYaml: configYaml({
      providers: `  - { name: upa, kind: anthropic, base_url: "${up.url}", api_key: "sk-upstream-secret-0123456789abcdefXYZ" }`,
      models: '  - { name: claude-gw, deployments: [ { provider: upa, model: claude-upstream-1 } ] }',
      extra: `admin_token: "${ADMIN_TOKEN}"
mcp_servers:
  - { name: local, command: "${process.execPath}", args: ["${STDIO_SERVER}"], env: { SHOUT_SUFFIX: "!" }, timeout_ms: 5000 }`,
    }),
  });
});
after(async () => {
  await gw?.cleanup();
  await up?.close();
});

function toolResults(req: RecordedRequest): string[] {
  const messages = (req.json as { messages?: { content?: unknown }[] } | undefined)?.messages ?? [];
  const out: string[] = [];
  for (const m of messages) {
    if (!Array.isArray(m.content)) continue;
    for (const b of m.content as { type?: string; content?: unknown }[])
      if (b.type === 'tool_result') out.push(typeof b.content === 'string' ? b.content : JSON.stringify(b.content));
  }
  return out;
}

test('Claude Code calls a tool through /mcp in claude -p', { timeout: 240_000 }, async (t) => {
  if (!(await claudeOrSkip(t))) return;
  const { key, id } = await gw.createKey({ name: 'claude-mcp' });
  const token = randomBytes(6).toString('hex');
  up.configure({
    toolName: 'mcp__modelgate__local__shout',
    toolArguments: { text: `mg-${token}` },
    replyText: `Shouted ${token}.`,
  });
  const mcpConfig = {
    mcpServers: { modelgate: { type: 'http', url: `${gw.url}/mcp`, headers: { Authorization: `Bearer ${key}` } } },
  };
  const run = await runClaude({
    gateway: { url: gw.url, key },
    prompt: 'Shout the token with the MCP tool, then tell me what it returned.',
    allowedTools: 'mcp__modelgate__local__shout',
    model: 'claude-gw',
    extraArgs: ['--mcp-config', JSON.stringify(mcpConfig), '--strict-mcp-config'],
    // MCP tools offered in full rather than behind Claude Code's tool search, so the scripted upstream's call is valid.
    env: { ENABLE_TOOL_SEARCH: 'false' },
  });
  const diagnosis = `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr.slice(0, 2000)}`;
  assert.equal(run.code, 0, diagnosis);
  const tools = up.requests.flatMap((r) => ((r.json as { tools?: { name: string }[] }).tools ?? []).map((x) => x.name));
  assert.ok(tools.includes('mcp__modelgate__local__shout'), `Claude Code offered the gateway's tool\n${diagnosis}`);
  assert.ok(
    up.requests.some((r) => toolResults(r).some((x) => x.includes(`MG-${token.toUpperCase()}!`))),
    `the upstream saw the MCP tool's result\n${diagnosis}`,
  );
  assert.match(run.stdout, new RegExp(`Shouted ${token}`));
  const rows = (await (
    await fetch(`${gw.url}/admin/requests?endpoint=/mcp&key=${id}`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    })
  ).json()) as { data: { model: string; status: number }[] };
  assert.deepEqual(
    rows.data.map((r) => [r.model, r.status]),
    [['local__shout', 200]],
  );
});

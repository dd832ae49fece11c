// Codex CLI (newest) with the gateway as a streamable HTTP MCP server in its config.toml (`url`, the key
// from `bearer_token_env_var`) calls a tool of a configured stdio server in `codex exec`: its model traffic
// goes to the gateway (Responses API, passed through to an OpenAI-style upstream), where Codex offers the
// gateway's tools as one `namespace` tool (`mcp__modelgate`, holding `local__shout`), and the scripted
// upstream calls `local__shout` in that namespace and sees the tool's result come back.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startMockUpstream } from '../helpers/mock-upstream.ts';
import type { MockUpstream } from '../helpers/mock-upstream-types.ts';
import { startGateway, configYaml, type GatewayProcess } from '../helpers/gateway-process.ts';

const CODEX = resolve(
  import.meta.dirname,
  '../../node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex',
);
const ADMIN_TOKEN = 'admin-token-mcp-codex-0123456789';
const STDIO_SERVER = new URL('../helpers/mcp-stdio-server.ts', import.meta.url).pathname;
/** The mock names a namespaced tool `NAMESPACE__NAME` (mock-responses-wire.ts); Codex's namespace is `mcp__SERVER`. */
const CODEX_TOOL = 'mcp__modelgate__local__shout';
let up: MockUpstream;
let gw: GatewayProcess;

before(async () => {
  up = await startMockUpstream();
  gw = await startGateway({
    configYaml: configYaml({
      providers: `  - { name: up, kind: openai, apis: [chat, responses], base_url: "${up.url}/v1", api_key: "sk-upstream-secret-0123456789abcdefXYZ" }`,
      models: '  - { name: gpt-chat, deployments: [ { provider: up, model: upstream-chat } ] }',
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

test('Codex calls a tool through /mcp in codex exec', { timeout: 150_000 }, async () => {
  const { key, id } = await gw.createKey({ name: 'codex-mcp' });
  const home = mkdtempSync(join(tmpdir(), 'codex-mcp-home-'));
  const work = mkdtempSync(join(tmpdir(), 'codex-mcp-work-'));
  writeFileSync(
    join(home, 'config.toml'),
    `model = "gpt-chat"
model_provider = "modelgate"

# MCP tools offered in full rather than deferred behind Codex's tool search, so the scripted upstream's call is valid.
[features]
tool_search_always_defer_mcp_tools = false

[model_providers.modelgate]
name = "modelgate"
base_url = "${gw.url}/v1"
wire_api = "responses"
env_key = "MODELGATE_KEY"

[mcp_servers.modelgate]
url = "${gw.url}/mcp"
bearer_token_env_var = "MODELGATE_KEY"
`,
  );
  const token = randomBytes(6).toString('hex');
  up.configure({
    toolName: CODEX_TOOL,
    toolArguments: { text: `mg-${token}` },
    replyText: (req) => `Shouted ${/MG-[0-9A-F]+!/.exec(JSON.stringify(req.json))?.[0] ?? 'nothing'}`,
  });
  try {
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
      const p = spawn(
        CODEX,
        ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', '-C', work, 'Shout the token'],
        { env: { ...process.env, CODEX_HOME: home, MODELGATE_KEY: key }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stdout = '';
      let stderr = '';
      p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      p.on('close', (code) => done({ code, stdout, stderr }));
    });
    const offered = up.requests.flatMap((r) =>
      ((r.json as { tools?: { name?: string }[] }).tools ?? []).map((t) => t.name),
    );
    const diagnosis = `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr.slice(-2000)}\noffered: ${[...new Set(offered)].join(',')}`;
    assert.equal(run.code, 0, diagnosis);
    assert.match(run.stdout, new RegExp(`Shouted MG-${token.toUpperCase()}!`), diagnosis);
    const rows = (await (
      await fetch(`${gw.url}/admin/requests?endpoint=/mcp&key=${id}`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      })
    ).json()) as { data: { model: string; status: number }[] };
    assert.deepEqual(
      rows.data.map((r) => [r.model, r.status]),
      [['local__shout', 200]],
    );
  } finally {
    rmSync(home, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  }
});

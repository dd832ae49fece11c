// Gemini CLI (newest) with the gateway as an HTTP MCP server in its settings (`httpUrl`, the key as a
// Bearer header) calls a tool of a configured stdio server in `gemini -p --yolo`: its model traffic goes to
// the gateway (an OpenAI-style upstream through the translation hub), where the scripted upstream asks
// for the MCP tool by Gemini CLI's name for it (`mcp_modelgate_local__shout`) and sees the result come back.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startMockUpstream } from '../helpers/mock-upstream.ts';
import type { MockUpstream } from '../helpers/mock-upstream-types.ts';
import { startGateway, configYaml, type GatewayProcess } from '../helpers/gateway-process.ts';

const CLI = resolve(import.meta.dirname, '../../node_modules/@google/gemini-cli/bundle/gemini.js');
const ADMIN_TOKEN = 'admin-token-mcp-gemini-0123456789';
const STDIO_SERVER = new URL('../helpers/mcp-stdio-server.ts', import.meta.url).pathname;
let up: MockUpstream;
let gw: GatewayProcess;
let home: string;

before(async () => {
  up = await startMockUpstream();
  gw = await startGateway({
    configYaml: configYaml({
      providers: `  - { name: up, kind: openai, base_url: "${up.url}/v1", api_key: "sk-upstream-secret-0123456789abcdefXYZ" }`,
      models: '  - { name: gemini-2.5-pro, deployments: [ { provider: up, model: gpt-upstream } ] }',
      extra: `admin_token: "${ADMIN_TOKEN}"
mcp_servers:
  - { name: local, command: "${process.execPath}", args: ["${STDIO_SERVER}"], env: { SHOUT_SUFFIX: "!" }, timeout_ms: 5000 }`,
    }),
  });
  home = mkdtempSync(join(tmpdir(), 'modelgate-gemini-mcp-'));
  mkdirSync(join(home, '.gemini'));
  mkdirSync(join(home, 'work'));
});
after(async () => {
  await gw?.cleanup();
  await up?.close();
  rmSync(home, { recursive: true, force: true });
});

test('Gemini CLI calls a tool through /mcp', { timeout: 150_000 }, async () => {
  const { key, id } = await gw.createKey({ name: 'gemini-mcp' });
  writeFileSync(
    join(home, '.gemini', 'settings.json'),
    JSON.stringify({
      security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
      telemetry: { enabled: false },
      privacy: { usageStatisticsEnabled: false },
      mcpServers: {
        modelgate: { httpUrl: `${gw.url}/mcp`, headers: { Authorization: `Bearer ${key}` }, trust: true },
      },
    }),
  );
  const token = randomBytes(6).toString('hex');
  up.configure({
    toolName: 'mcp_modelgate_local__shout',
    toolArguments: { text: `mg-${token}` },
    replyText: (req) => `Shouted ${/MG-[0-9A-F]+!/.exec(JSON.stringify(req.json))?.[0] ?? 'nothing'}`,
  });
  const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
    execFile(
      process.execPath,
      [CLI, '-m', 'gemini-2.5-pro', '-p', 'Shout the token with the MCP tool.', '--yolo'],
      {
        cwd: join(home, 'work'),
        env: {
          PATH: process.env.PATH ?? '',
          HOME: home,
          GOOGLE_GEMINI_BASE_URL: gw.url,
          GEMINI_API_KEY: key,
          NO_COLOR: '1',
          CI: '1',
        },
        timeout: 120_000,
      },
      (err, stdout, stderr) =>
        done({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : null, stdout, stderr }),
    );
  });
  const offered = up.requests.flatMap((r) =>
    ((r.json as { tools?: { function?: { name: string } }[] }).tools ?? []).map((t) => t.function?.name),
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
});

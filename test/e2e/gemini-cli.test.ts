// Issue 40: Gemini CLI (newest @google/gemini-cli) at the gateway with GOOGLE_GEMINI_BASE_URL and a
// gateway key as GEMINI_API_KEY, non-interactive (`gemini -p … --yolo`), HOME isolated: a prompt
// answered with a tool round trip (the model asks for a shell command, the CLI runs it, its output goes
// back to the model), on a model served by a Gemini-style upstream.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startMockUpstream } from '../helpers/mock-upstream.ts';
import type { MockUpstream, RecordedRequest } from '../helpers/mock-upstream-types.ts';
import { startGateway, configYaml, type GatewayProcess } from '../helpers/gateway-process.ts';

const CLI = resolve(import.meta.dirname, '../../node_modules/@google/gemini-cli/bundle/gemini.js');
const GEMINI_SECRET = 'AIzaSyUpstreamGeminiKey0123456789abcdef';
let up: MockUpstream;
let gw: GatewayProcess;
let key: string;
let home: string;

before(async () => {
  up = await startMockUpstream();
  gw = await startGateway({
    configYaml: configYaml({
      providers: `  - { name: gem, kind: gemini, base_url: "${up.url}", api_key: "${GEMINI_SECRET}" }`,
      models: `  - { name: gemini-2.5-flash, deployments: [ { provider: gem, model: gemini-2.5-flash-upstream } ] }`,
    }),
  });
  ({ key } = await gw.createKey({ name: 'cli', flags: ['--models', 'gemini-*'] }));
  home = mkdtempSync(join(tmpdir(), 'modelgate-gemini-cli-'));
  mkdirSync(join(home, '.gemini'));
  mkdirSync(join(home, 'work'));
  // The API-key auth type, no folder-trust prompt (it would turn --yolo back to asking), no telemetry.
  writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify({
    security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
    telemetry: { enabled: false },
    privacy: { usageStatisticsEnabled: false },
  }));
});
after(async () => {
  await gw.cleanup();
  await up.close();
  rmSync(home, { recursive: true, force: true });
});

function runCli(model: string, prompt: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: home, GOOGLE_GEMINI_BASE_URL: gw.url, GEMINI_API_KEY: key, NO_COLOR: '1', CI: '1' };
  return new Promise((done) => {
    execFile(process.execPath, [CLI, '-m', model, '-p', prompt, '--yolo'], { cwd: join(home, 'work'), env, timeout: 120_000 }, (err, stdout, stderr) => {
      done({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : null, stdout, stderr });
    });
  });
}

type Json = Record<string, unknown>;

/** The function responses of a recorded Gemini request (the CLI's tool results). */
function functionResponses(req: RecordedRequest): Json[] {
  const contents = ((req.json as Json | undefined)?.contents ?? []) as Array<{ parts?: Json[] }>;
  return contents.flatMap((c) => c.parts ?? []).filter((p) => p.functionResponse !== undefined).map((p) => p.functionResponse as Json);
}

/** The model asks for a shell command first; once its output is back, it answers with it. */
function shellRoundTrip(upstream: MockUpstream): void {
  upstream.setBehaviour((req) => {
    if (!req.path.includes(':streamGenerateContent') || functionResponses(req).length > 0) return undefined;
    return {
      kind: 'custom',
      handle: ({ res }) => {
        const chunk = {
          candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'run_shell_command', args: { command: 'seq 42 42 | sed s/^/modelgate-/', description: 'Print a marker' } }, thoughtSignature: 'c2lnLXNoZWxs' }] }, finishReason: 'STOP', index: 0 }],
          usageMetadata: { promptTokenCount: 50, candidatesTokenCount: 10, totalTokenCount: 60 },
          modelVersion: 'gemini-2.5-flash-upstream',
        };
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
      },
    };
  });
  upstream.configure({
    // The planner sees the request chat-shaped: the tool's output is in its messages.
    replyText: (req) => `The shell said ${/modelgate-\d+/.exec(JSON.stringify(req.json))?.[0] ?? 'nothing'}`,
  });
}

test('Gemini CLI on a Gemini-style upstream: a prompt answered after a shell tool round trip', { timeout: 150_000 }, async () => {
  up.reset();
  shellRoundTrip(up);
  const run = await runCli('gemini-2.5-flash', 'Run a shell command that prints the marker, then tell me what it printed.');
  assert.equal(run.code, 0, run.stderr.slice(-2000));
  assert.match(run.stdout, /The shell said modelgate-42/);
  const calls = up.requests.filter((r) => r.path.includes(':streamGenerateContent'));
  assert.ok(calls.every((r) => r.path === '/v1beta/models/gemini-2.5-flash-upstream:streamGenerateContent' && r.url.endsWith('?alt=sse')));
  assert.ok(calls.every((r) => r.headers['x-goog-api-key'] === GEMINI_SECRET), 'the upstream gets the provider key, never the caller key');
  // The shell's output went back to the model, with the call's thought signature in the history.
  const answered = calls.find((r) => functionResponses(r).some((f) => f.name === 'run_shell_command'));
  assert.ok(answered !== undefined, 'the tool result reached the upstream');
  assert.match(JSON.stringify(functionResponses(answered)), /modelgate-42/);
  assert.ok(answered.body.toString('utf8').includes('"thoughtSignature":"c2lnLXNoZWxs"'));
  assert.ok(!gw.logs().includes(key));
});

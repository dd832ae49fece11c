// Issue 40: Gemini CLI (newest @google/gemini-cli) at the gateway with GOOGLE_GEMINI_BASE_URL and a
// gateway key as GEMINI_API_KEY, non-interactive (`gemini -p … --yolo`), HOME isolated: a prompt
// answered with a tool round trip (the model asks for a shell command, the CLI runs it, its output goes
// back to the model), on a model served by a Gemini-style upstream (passed through) and on one served by
// an OpenAI-style upstream (through the translation hub).
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
const OPENAI_SECRET = 'sk-upstream-secret-0123456789abcdefXYZ';
let up: MockUpstream;
let gw: GatewayProcess;
let key: string;
let home: string;

before(async () => {
  up = await startMockUpstream();
  gw = await startGateway({
    configYaml: configYaml({
      providers: `  - { name: gem, kind: gemini, base_url: "${up.url}", api_key: "${GEMINI_SECRET}" }
  - { name: up, kind: openai, base_url: "${up.url}/v1", api_key: "${OPENAI_SECRET}" }`,
      models: `  - { name: gemini-2.5-flash, deployments: [ { provider: gem, model: gemini-2.5-flash-upstream } ] }
  - { name: gemini-2.5-pro, deployments: [ { provider: up, model: gpt-upstream } ] }`,
    }),
  });
  ({ key } = await gw.createKey({ name: 'cli', flags: ['--models', 'gemini-*'] }));
  home = mkdtempSync(join(tmpdir(), 'modelgate-gemini-cli-'));
  mkdirSync(join(home, '.gemini'));
  mkdirSync(join(home, 'work'));
  // The API-key auth type, no folder-trust prompt (it would turn --yolo back to asking), no telemetry.
  writeFileSync(
    join(home, '.gemini', 'settings.json'),
    JSON.stringify({
      security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
      telemetry: { enabled: false },
      privacy: { usageStatisticsEnabled: false },
    }),
  );
});
after(async () => {
  await gw.cleanup();
  await up.close();
  rmSync(home, { recursive: true, force: true });
});

function runCli(model: string, prompt: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    GOOGLE_GEMINI_BASE_URL: gw.url,
    GEMINI_API_KEY: key,
    NO_COLOR: '1',
    CI: '1',
  };
  return new Promise((done) => {
    execFile(
      process.execPath,
      [CLI, '-m', model, '-p', prompt, '--yolo'],
      { cwd: join(home, 'work'), env, timeout: 120_000 },
      (err, stdout, stderr) => {
        done({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : null, stdout, stderr });
      },
    );
  });
}

type Json = Record<string, unknown>;

/** The function responses of a recorded Gemini request (the CLI's tool results). */
function functionResponses(req: RecordedRequest): Json[] {
  const contents = ((req.json as Json | undefined)?.contents ?? []) as Array<{ parts?: Json[] }>;
  return contents
    .flatMap((c) => c.parts ?? [])
    .filter((p) => p.functionResponse !== undefined)
    .map((p) => p.functionResponse as Json);
}

/** The model asks for a shell command first; once its output is back, it answers with it. */
function shellRoundTrip(upstream: MockUpstream): void {
  upstream.setBehaviour((req) => {
    if (!req.path.includes(':streamGenerateContent') || functionResponses(req).length > 0) return undefined;
    return {
      kind: 'custom',
      handle: ({ res }) => {
        const chunk = {
          candidates: [
            {
              content: {
                role: 'model',
                parts: [
                  {
                    functionCall: {
                      name: 'run_shell_command',
                      args: { command: 'seq 42 42 | sed s/^/modelgate-/', description: 'Print a marker' },
                    },
                    thoughtSignature: 'c2lnLXNoZWxs',
                  },
                ],
              },
              finishReason: 'STOP',
              index: 0,
            },
          ],
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

test('Gemini CLI on a Gemini-style upstream: a prompt answered after a shell tool round trip', {
  timeout: 150_000,
}, async () => {
  up.reset();
  shellRoundTrip(up);
  const run = await runCli(
    'gemini-2.5-flash',
    'Run a shell command that prints the marker, then tell me what it printed.',
  );
  assert.equal(run.code, 0, run.stderr.slice(-2000));
  assert.match(run.stdout, /The shell said modelgate-42/);
  const calls = up.requests.filter((r) => r.path.includes(':streamGenerateContent'));
  assert.ok(
    calls.every(
      (r) => r.path === '/v1beta/models/gemini-2.5-flash-upstream:streamGenerateContent' && r.url.endsWith('?alt=sse'),
    ),
  );
  assert.ok(
    calls.every((r) => r.headers['x-goog-api-key'] === GEMINI_SECRET),
    'the upstream gets the provider key, never the caller key',
  );
  // The shell's output went back to the model, with the call's thought signature in the history.
  const answered = calls.find((r) => functionResponses(r).some((f) => f.name === 'run_shell_command'));
  assert.ok(answered !== undefined, 'the tool result reached the upstream');
  assert.match(JSON.stringify(functionResponses(answered)), /modelgate-42/);
  assert.ok(answered.body.toString('utf8').includes('"thoughtSignature":"c2lnLXNoZWxs"'));
  assert.ok(!gw.logs().includes(key));
});

/** The same on an OpenAI-style upstream: the first chat completion streams a run_shell_command call. */
function shellRoundTripChat(upstream: MockUpstream): void {
  upstream.setBehaviour((req) => {
    const messages = ((req.json as Json | undefined)?.messages ?? []) as Json[];
    if (req.path !== '/v1/chat/completions' || messages.some((m) => m.role === 'tool')) return undefined;
    return {
      kind: 'custom',
      handle: ({ res }) => {
        const chunk = (delta: Json, finish: string | null): string =>
          `data: ${JSON.stringify({ id: 'chatcmpl-cli', object: 'chat.completion.chunk', created: 1, model: 'gpt-upstream', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
        const args = JSON.stringify({ command: 'seq 42 42 | sed s/^/modelgate-/', description: 'Print a marker' });
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(
          chunk(
            {
              role: 'assistant',
              content: null,
              tool_calls: [
                {
                  index: 0,
                  id: 'call_cli_1',
                  type: 'function',
                  function: { name: 'run_shell_command', arguments: '' },
                },
              ],
            },
            null,
          ) +
            chunk({ tool_calls: [{ index: 0, function: { arguments: args } }] }, null) +
            chunk({}, 'tool_calls') +
            `data: ${JSON.stringify({ id: 'chatcmpl-cli', object: 'chat.completion.chunk', created: 1, model: 'gpt-upstream', choices: [], usage: { prompt_tokens: 50, completion_tokens: 10, total_tokens: 60 } })}\n\ndata: [DONE]\n\n`,
        );
      },
    };
  });
  upstream.configure({
    replyText: (req) => `The shell said ${/modelgate-\d+/.exec(JSON.stringify(req.json))?.[0] ?? 'nothing'}`,
  });
}

test('Gemini CLI on an OpenAI-style upstream: the same round trip through the translation hub', {
  timeout: 150_000,
}, async () => {
  up.reset();
  shellRoundTripChat(up);
  const run = await runCli(
    'gemini-2.5-pro',
    'Run a shell command that prints the marker, then tell me what it printed.',
  );
  assert.equal(run.code, 0, run.stderr.slice(-2000));
  assert.match(run.stdout, /The shell said modelgate-42/);
  const calls = up.requests.filter((r) => r.path === '/v1/chat/completions');
  assert.ok(calls.length >= 2);
  assert.ok(calls.every((r) => r.headers.authorization === `Bearer ${OPENAI_SECRET}`));
  const answered = calls.find((r) =>
    (((r.json as Json).messages ?? []) as Json[]).some((m) => m.role === 'tool' && m.tool_call_id === 'call_cli_1'),
  );
  assert.ok(answered !== undefined, 'the tool result reached the upstream paired with its call');
  assert.match(JSON.stringify(answered.json), /modelgate-42/);
});

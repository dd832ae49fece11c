// Responses over WebSocket through the real gateway: the key checked at the upgrade (401 before any frame),
// response.create frames answered with the stream's events as frames on a translated route, a
// connection-local previous_response_id with store: false, the generate: false warm-up, and error frames;
// Codex itself over the socket to a chat and to a Claude upstream, and its `exec resume --last`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';
import { startGateway, configYaml, type GatewayProcess } from '../helpers/gateway-process.ts';

let up: MockUpstream;
let gw: GatewayProcess;
let key: string;
before(async () => {
  up = await startMockUpstream();
  gw = await startGateway({
    configYaml: configYaml({
      providers: [
        `  - { name: chat, kind: openai, base_url: "${up.url}/v1", api_key: "sk-upstream-secret-0123456789abcdefXYZ" }`,
        `  - { name: claude, kind: anthropic, base_url: "${up.url}", api_key: "sk-ant-upstream-secret-0123456789abcdef" }`,
      ].join('\n'),
      models: [
        `  - { name: gpt-chat, deployments: [ { provider: chat, model: gpt-up-chat } ] }`,
        `  - { name: claude-ws, deployments: [ { provider: claude, model: claude-up } ] }`,
      ].join('\n'),
    }),
  });
  ({ key } = await gw.createKey({ name: 'ws' }));
});
after(async () => {
  await gw.cleanup();
  await up.close();
});

function open(auth: string): WebSocket {
  return new WebSocket(`${gw.url.replace('http', 'ws')}/v1/responses`, {
    headers: { authorization: `Bearer ${auth}`, 'openai-beta': 'responses_websockets=2026-02-06' },
  });
}

/** The frames of one response, through its last (`response.completed`, `.failed`, or an error frame). */
async function turn(
  ws: WebSocket,
  frame: object,
): Promise<{ type: string; response?: { id: string; output: unknown[] } }[]> {
  const events: { type: string; response?: { id: string; output: unknown[] } }[] = [];
  const done = new Promise<void>((resolve) => {
    const onMessage = (data: WebSocket.RawData): void => {
      const ev = JSON.parse(data.toString()) as { type: string };
      events.push(ev);
      if (ev.type === 'response.completed' || ev.type === 'response.failed' || ev.type === 'error') {
        ws.off('message', onMessage);
        resolve();
      }
    };
    ws.on('message', onMessage);
  });
  ws.send(JSON.stringify(frame));
  await done;
  return events;
}

test('a wrong key is refused at the upgrade with 401', async () => {
  const ws = open('sk-wrong-0123456789');
  ws.on('error', () => undefined);
  const [, res] = (await once(ws, 'unexpected-response')) as [unknown, { statusCode: number }];
  assert.equal(res.statusCode, 401);
  ws.terminate();
});

test('response.create frames on a translated route; previous_response_id within the connection; warm-up', async () => {
  up.reset();
  const ws = open(key);
  await once(ws, 'open');
  const warm = await turn(ws, { type: 'response.create', model: 'gpt-chat', input: [], generate: false });
  assert.equal(warm.at(-1)?.type, 'response.completed');
  assert.equal(up.requests.length, 0, 'a warm-up calls no upstream');

  up.configure({ replyText: 'First answer.' });
  const first = await turn(ws, { type: 'response.create', model: 'gpt-chat', input: 'Remember 42.', store: false });
  assert.equal(first[0].type, 'response.created');
  assert.ok(first.some((e) => e.type === 'response.output_text.delta'));
  const firstId = first.at(-1)?.response?.id;
  assert.ok(firstId);

  up.configure({ replyText: 'It was 42.' });
  const second = await turn(ws, {
    type: 'response.create',
    model: 'gpt-chat',
    previous_response_id: firstId,
    input: 'What was it?',
    store: false,
  });
  assert.equal(second.at(-1)?.type, 'response.completed');
  const sent = JSON.stringify((up.requests.at(-1)?.json as { messages: unknown[] }).messages);
  assert.match(sent, /Remember 42\..*First answer\..*What was it\?/s, 'the connection carried the chain');

  const unknown = await turn(ws, {
    type: 'response.create',
    model: 'gpt-chat',
    previous_response_id: 'resp_unknown',
    input: 'x',
  });
  assert.equal(unknown.at(-1)?.type, 'error');
  assert.match(JSON.stringify(unknown.at(-1)), /previous_response_not_found/);
  ws.close();
});

const CODEX = new URL(
  '../../node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex',
  import.meta.url,
).pathname;

/** Codex (the installed binary) with its built-in OpenAI provider pointed at the gateway, in a home of its own. */
async function withCodex(
  t: { skip: (why: string) => void },
  model: string,
  body: (
    run: (args: string[]) => Promise<{ status: number | null; stdout: string; out: string }>,
    work: string,
  ) => Promise<void>,
): Promise<void> {
  if (!existsSync(CODEX)) {
    if (process.env.CI === 'true') throw new Error(`Codex must run in CI: ${CODEX} is missing`);
    t.skip('the Codex binary is not installed here');
    return;
  }
  const home = mkdtempSync(join(tmpdir(), 'codex-ws-'));
  const work = mkdtempSync(join(tmpdir(), 'codex-ws-work-'));
  try {
    writeFileSync(join(home, 'config.toml'), `model = "${model}"\nopenai_base_url = "${gw.url}/v1"\n`);
    const env = { ...process.env, CODEX_HOME: home };
    // Asynchronously: the mock upstream answers from this very process.
    const runCodex = (args: string[], input: string) =>
      new Promise<{ status: number | null; stdout: string; out: string }>((done) => {
        const child = execFile(CODEX, args, { env, timeout: 100_000 }, (err, stdout, stderr) =>
          done({
            status: err === null ? 0 : typeof err.code === 'number' ? err.code : null,
            stdout,
            out: `${stdout}\n${stderr}`,
          }),
        );
        child.stdin?.end(input);
      });
    const login = await runCodex(['login', '--with-api-key'], key);
    assert.equal(login.status, 0, login.out);
    await body((args) => runCodex(args, ''), work);
  } finally {
    rmSync(home, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  }
}

const EXEC = ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox'];
const NO_FALLBACK = /Falling back from WebSockets|failed to connect to Responses WebSocket/;

test("Codex's built-in OpenAI provider (openai_base_url) answers over the WebSocket, no HTTP fallback", {
  timeout: 120_000,
}, async (t) => {
  await withCodex(t, 'gpt-chat', async (run, work) => {
    up.reset();
    up.configure({ replyText: 'Hello over the socket.', toolName: 'no-such-tool' });
    const first = await run([...EXEC, '-C', work, 'Say hi']);
    assert.equal(first.status, 0, first.out.slice(-2000));
    assert.match(first.stdout, /Hello over the socket\./);
    assert.doesNotMatch(first.out, NO_FALLBACK);
    assert.ok(
      up.requests.some((r) => r.path === '/v1/chat/completions'),
      'the translated route answered',
    );
  });
});

test('Codex over the WebSocket to a Claude upstream; `codex exec resume --last` continues the session', {
  timeout: 180_000,
}, async (t) => {
  await withCodex(t, 'claude-ws', async (run, work) => {
    up.reset();
    up.configure({ replyText: 'First answer from Claude.', toolName: 'no-such-tool' });
    const first = await run([...EXEC, '-C', work, 'Say hi']);
    assert.equal(first.status, 0, first.out.slice(-2000));
    assert.match(first.stdout, /First answer from Claude\./);
    assert.doesNotMatch(first.out, NO_FALLBACK);
    const turns = (): unknown[] => up.requests.filter((r) => r.path === '/v1/messages').map((r) => r.json);
    assert.ok(turns().length >= 1, 'the Messages upstream answered');
    up.configure({ replyText: 'Second answer, same session.', toolName: 'no-such-tool' });
    const resumed = await run([...EXEC, '-C', work, 'resume', '--last', 'And again']);
    assert.equal(resumed.status, 0, resumed.out.slice(-2000));
    assert.match(resumed.stdout, /Second answer, same session\./);
    assert.doesNotMatch(resumed.out, NO_FALLBACK);
    // The resumed turn carries the first one: Codex sends its history, translated into Messages turns.
    const last = JSON.stringify(turns().at(-1));
    assert.match(last, /Say hi/);
    assert.match(last, /First answer from Claude\./);
    assert.match(last, /And again/);
  });
});

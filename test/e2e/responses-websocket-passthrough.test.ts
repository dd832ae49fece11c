// Responses over WebSocket passed through to an upstream that serves it: the official SDK's WebSocket
// client through the real gateway to a mock upstream socket. The upstream sees the provider's key (never
// the caller's) and the deployment's model; its connection-scoped state (a warm-up, previous_response_id
// with store: false) works across the caller's frames; events come back with the caller's model name;
// each frame writes a usage row with the upstream's tokens; a budget refuses a frame once spent; a caller
// that leaves closes the upstream socket and pays for what was delivered; an upstream that refuses the
// upgrade is asked once (`auto`) and its frames go over the HTTP bridge.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import OpenAI from 'openai';
import { ResponsesWS } from 'openai/resources/responses/ws';
import { startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';
import { startMockSocketUpstream, type MockSocketUpstream } from '../helpers/mock-responses-socket.ts';
import { startGateway, configYaml, waitUntil, type GatewayProcess } from '../helpers/gateway-process.ts';
import { usageRows } from '../admission/usage-db.ts';

const WS_KEY = 'sk-upstream-ws-0123456789abcdefXYZ';
const HTTP_KEY = 'sk-upstream-http-0123456789abcdefXYZ';

let sock: MockSocketUpstream;
let up: MockUpstream;
let gw: GatewayProcess;
before(async () => {
  sock = await startMockSocketUpstream();
  up = await startMockUpstream();
  gw = await startGateway({
    configYaml: configYaml({
      providers: [
        `  - { name: wsup, kind: openai, base_url: "${sock.url}/v1", apis: [responses], responses_websocket: true, api_key: "${WS_KEY}" }`,
        `  - { name: wsup2, kind: openai, base_url: "${sock.url}/v1", apis: [responses], responses_websocket: true, api_key: "${WS_KEY}-2" }`,
        `  - { name: httpup, kind: openai, base_url: "${up.url}/v1", apis: [responses], responses_websocket: auto, api_key: "${HTTP_KEY}" }`,
      ].join('\n'),
      models: [
        `  - { name: gpt-ws, price: { input: 10, output: 40 }, deployments: [ { provider: wsup, model: gpt-up-ws } ] }`,
        `  - { name: gpt-ws2, deployments: [ { provider: wsup2, model: gpt-up-ws2 } ] }`,
        `  - { name: gpt-http, deployments: [ { provider: httpup, model: gpt-up-http } ] }`,
      ].join('\n'),
    }),
  });
});
after(async () => {
  await gw.cleanup();
  await sock.close();
  await up.close();
});

interface Ev {
  type: string;
  response?: { id: string; model: string; usage: unknown };
  status?: number;
  error?: { code?: string; message?: string };
}

/** The SDK's events of one response, through its last (`response.completed` or an error). */
function sdkTurn(rws: ResponsesWS, frame: Parameters<ResponsesWS['send']>[0]): Promise<Ev[]> {
  const events: Ev[] = [];
  return new Promise((resolve) => {
    const onEvent = (event: unknown): void => {
      const ev = event as Ev;
      events.push(ev);
      if (ev.type === 'response.completed' || ev.type === 'error') {
        rws.off('event', onEvent);
        resolve(events);
      }
    };
    rws.on('event', onEvent);
    rws.send(frame);
  });
}

function sdkSocket(key: string): ResponsesWS {
  const rws = new ResponsesWS(new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 }));
  rws.on('error', () => undefined);
  return rws;
}

test('frames pass through to the upstream socket: its key, its model, its connection state, usage billed', async () => {
  const { key, id } = await gw.createKey({ name: 'ws-pass' });
  const upgradesBefore = sock.upgrades.length;
  const framesBefore = sock.frames.length;
  const rws = sdkSocket(key);

  const warm = await sdkTurn(rws, { type: 'response.create', model: 'gpt-ws', input: [], generate: false } as never);
  assert.equal(warm.at(-1)?.type, 'response.completed');
  const warmId = warm.at(-1)?.response?.id;
  assert.ok(warmId);

  sock.usage = { input_tokens: 1234, output_tokens: 56 };
  const first = await sdkTurn(rws, {
    type: 'response.create',
    model: 'gpt-ws',
    previous_response_id: warmId,
    input: 'Say hello.',
    store: false,
  });
  assert.deepEqual(
    first.map((e) => e.type),
    [
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      ...Array(4).fill('response.output_text.delta'),
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ],
    'every upstream event relayed, one frame each, the warm-up continued on the upstream',
  );
  const completed = first.at(-1)!;
  assert.equal(completed.response?.model, 'gpt-ws', 'the caller reads the model it named');

  sock.usage = { input_tokens: 2000, output_tokens: 7 };
  const second = await sdkTurn(rws, {
    type: 'response.create',
    model: 'gpt-ws',
    previous_response_id: completed.response!.id,
    input: 'Again.',
    store: false,
  });
  assert.equal(second.at(-1)?.type, 'response.completed', JSON.stringify(second.at(-1)));
  rws.close();

  assert.equal(sock.upgrades.length - upgradesBefore, 1, 'one upstream socket for the whole connection');
  const upgrade = sock.upgrades.at(-1)!;
  assert.equal(upgrade.authorization, `Bearer ${WS_KEY}`, "the provider's key, not the caller's");
  assert.ok(!JSON.stringify(upgrade).includes(key), "the caller's key is not forwarded");
  const sent = sock.frames.slice(framesBefore);
  assert.equal(sent.length, 3);
  for (const f of sent) {
    assert.equal(f.type, 'response.create');
    assert.equal(f.model, 'gpt-up-ws', "the deployment's model");
  }
  assert.equal(sent[0].generate, false, 'the warm-up reached the upstream');

  await waitUntil(() => usageRows(gw.dbPath, id).length === 3, 'a usage row per frame');
  const rows = usageRows(gw.dbPath, id);
  assert.deepEqual(
    rows.map((r) => [r.status, r.input_tokens, r.output_tokens, r.streamed]),
    [
      [200, 0, 0, 1],
      [200, 1234, 56, 1],
      [200, 2000, 7, 1],
    ],
  );
  // $10 and $40 a million tokens.
  assert.equal(rows[1].cost_nanos, 1234 * 10_000 + 56 * 40_000);
});

test('a frame for a model served elsewhere moves the connection to a socket there', async () => {
  const { key } = await gw.createKey({ name: 'ws-move' });
  const before = sock.upgrades.length;
  const framesBefore = sock.frames.length;
  const rws = sdkSocket(key);
  const models = ['gpt-ws', 'gpt-ws2', 'gpt-ws'];
  for (const model of models) {
    const events = await sdkTurn(rws, { type: 'response.create', model, input: 'Hi.' });
    assert.equal(events.at(-1)?.type, 'response.completed', `${model}: ${JSON.stringify(events.at(-1))}`);
    assert.equal(events.at(-1)?.response?.model, model);
  }
  rws.close();
  assert.deepEqual(
    sock.upgrades.slice(before).map((h) => h.authorization),
    [`Bearer ${WS_KEY}`, `Bearer ${WS_KEY}-2`, `Bearer ${WS_KEY}`],
    "each socket opened with its own provider's key",
  );
  assert.deepEqual(
    sock.frames.slice(framesBefore).map((f) => f.model),
    ['gpt-up-ws', 'gpt-up-ws2', 'gpt-up-ws'],
  );
});

test("an upstream's error frame reaches the caller as it came", async () => {
  const { key, id } = await gw.createKey({ name: 'ws-error' });
  const rws = sdkSocket(key);
  const events = await sdkTurn(rws, {
    type: 'response.create',
    model: 'gpt-ws',
    previous_response_id: 'resp_not_on_this_connection',
    input: 'x',
  });
  rws.close();
  const last = events.at(-1)!;
  assert.equal(last.type, 'error');
  assert.equal(last.status, 400);
  assert.equal(last.error?.code, 'previous_response_not_found');
  assert.match(JSON.stringify(last), /Previous response with id/, "the upstream's own words");
  assert.equal(sock.frames.at(-1)?.previous_response_id, 'resp_not_on_this_connection');
  await waitUntil(() => usageRows(gw.dbPath, id).length === 1, 'the usage row');
  assert.equal(usageRows(gw.dbPath, id)[0].status, 400);
});

test('a budgeted key is refused per frame once its budget is spent', async () => {
  // $10 a million input tokens: 200,000 tokens are $2, past a $1 budget.
  const { key, id } = await gw.createKey({ name: 'ws-budget', flags: ['--budget-usd', '1'] });
  const framesBefore = sock.frames.length;
  sock.usage = { input_tokens: 200_000, output_tokens: 10 };
  const rws = sdkSocket(key);
  const first = await sdkTurn(rws, {
    type: 'response.create',
    model: 'gpt-ws',
    input: 'Spend it.',
    max_output_tokens: 16,
  });
  assert.equal(first.at(-1)?.type, 'response.completed');
  await waitUntil(() => usageRows(gw.dbPath, id).length === 1, 'the first row');
  const second = await sdkTurn(rws, {
    type: 'response.create',
    model: 'gpt-ws',
    input: 'More.',
    max_output_tokens: 16,
  });
  rws.close();
  const refusal = second.at(-1)!;
  assert.equal(refusal.type, 'error');
  assert.equal(refusal.status, 403);
  assert.equal(refusal.error?.code, 'budget_exhausted');
  assert.equal(sock.frames.length - framesBefore, 1, 'the refused frame never reached the upstream');
  await waitUntil(() => usageRows(gw.dbPath, id).length === 2, 'the refusal row');
  assert.deepEqual(
    usageRows(gw.dbPath, id).map((r) => [r.status, r.input_tokens]),
    [
      [200, 200_000],
      [403, 0],
    ],
  );
});

test('a caller that leaves mid-response closes the upstream socket and pays for what it got', {
  timeout: 30_000,
}, async () => {
  const { key, id } = await gw.createKey({ name: 'ws-cut' });
  sock.holdAfter(2);
  const ws = new WebSocket(`${gw.url.replace('http', 'ws')}/v1/responses`, {
    headers: { authorization: `Bearer ${key}` },
  });
  await once(ws, 'open');
  const closed = sock.nextClose();
  let deltas = 0;
  const twoDeltas = new Promise<void>((resolve) => {
    ws.on('message', (data) => {
      if ((JSON.parse(data.toString()) as Ev).type === 'response.output_text.delta' && ++deltas === 2) resolve();
    });
  });
  ws.send(JSON.stringify({ type: 'response.create', model: 'gpt-ws', input: 'Tell me a long story.' }));
  await twoDeltas;
  ws.terminate();
  await closed;
  sock.holdAfter(null);
  await waitUntil(() => usageRows(gw.dbPath, id).length === 1, 'the usage row');
  const row = usageRows(gw.dbPath, id)[0];
  assert.equal(row.status, 499);
  assert.equal(row.error_code, 'client_disconnected');
  assert.ok(row.input_tokens > 0, 'the prompt is billed by its estimate');
  assert.ok(row.output_tokens >= 2, `the delivered deltas are billed: ${row.output_tokens}`);
});

test('an upstream socket lost mid-response is an error frame; the next frame opens another', async () => {
  const { key, id } = await gw.createKey({ name: 'ws-lost' });
  const before = sock.upgrades.length;
  const rws = sdkSocket(key);
  sock.dropAfter(1);
  const lost = await sdkTurn(rws, { type: 'response.create', model: 'gpt-ws', input: 'Hi.' });
  assert.deepEqual(
    lost.map((e) => e.type),
    [
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'error',
    ],
  );
  assert.equal(lost.at(-1)?.status, 502);
  assert.equal(lost.at(-1)?.error?.code, 'upstream_error');
  const next = await sdkTurn(rws, { type: 'response.create', model: 'gpt-ws', input: 'Hi again.' });
  rws.close();
  assert.equal(next.at(-1)?.type, 'response.completed');
  assert.equal(sock.upgrades.length - before, 2);
  await waitUntil(() => usageRows(gw.dbPath, id).length === 2, 'both rows');
  const [cut, whole] = usageRows(gw.dbPath, id);
  assert.deepEqual([cut.status, cut.error_code], [502, 'upstream_error']);
  assert.ok(cut.output_tokens >= 1 && cut.input_tokens > 0, 'what was delivered is billed');
  assert.equal(whole.status, 200);
});

test('an upstream that refuses the upgrade (auto) is asked once; its frames go over the HTTP bridge', async () => {
  const { key } = await gw.createKey({ name: 'ws-fallback' });
  up.reset();
  up.configure({ replyText: 'Bridged answer.' });
  const rws = sdkSocket(key);
  const first = await sdkTurn(rws, { type: 'response.create', model: 'gpt-http', input: 'Hi.' });
  const second = await sdkTurn(rws, { type: 'response.create', model: 'gpt-http', input: 'Hi again.' });
  rws.close();
  for (const events of [first, second]) {
    assert.equal(events.at(-1)?.type, 'response.completed', JSON.stringify(events.at(-1)));
    assert.equal(events.at(-1)?.response?.model, 'gpt-http');
  }
  const upgrades = up.requests.filter((r) => r.method === 'GET' && r.path === '/v1/responses');
  assert.equal(upgrades.length, 1, 'the refusal is remembered for the provider');
  const posts = up.requests.filter((r) => r.method === 'POST' && r.path === '/v1/responses');
  assert.equal(posts.length, 2, 'both frames went over HTTP');
  assert.equal((posts[0].json as { model: string }).model, 'gpt-up-http');
  assert.equal(posts[0].headers.authorization, `Bearer ${HTTP_KEY}`);
});

test('a refused upgrade of a provider said to serve it (true) sends that frame over HTTP, and asks again', async () => {
  const { key } = await gw.createKey({ name: 'ws-refused' });
  const before = sock.upgrades.length;
  sock.refuseWith(503);
  const rws = sdkSocket(key);
  // The bridge's HTTP call goes to the same upstream, which has no HTTP Responses endpoint: an error frame.
  const first = await sdkTurn(rws, { type: 'response.create', model: 'gpt-ws', input: 'Hi.' });
  sock.refuseWith(null);
  const second = await sdkTurn(rws, { type: 'response.create', model: 'gpt-ws', input: 'Hi.' });
  rws.close();
  assert.equal(first.at(-1)?.type, 'error');
  assert.equal(second.at(-1)?.type, 'response.completed', 'the next frame asked again and was passed through');
  assert.equal(sock.upgrades.length - before, 2);
});

test('a clean stop closes an idle socket (1001) and the gateway exits', { timeout: 60_000 }, async () => {
  const own = await startGateway({
    configYaml: configYaml({
      providers: `  - { name: wsup, kind: openai, base_url: "${sock.url}/v1", apis: [responses], responses_websocket: true, api_key: "${WS_KEY}" }`,
      models: `  - { name: gpt-ws, deployments: [ { provider: wsup, model: gpt-up-ws } ] }`,
    }),
  });
  try {
    const { key } = await own.createKey({ name: 'ws-stop' });
    const ws = new WebSocket(`${own.url.replace('http', 'ws')}/v1/responses`, {
      headers: { authorization: `Bearer ${key}` },
    });
    await once(ws, 'open');
    const closing = sock.nextClose();
    const answered = new Promise<Ev>((resolve) => ws.once('message', (d) => resolve(JSON.parse(d.toString()) as Ev)));
    ws.send(JSON.stringify({ type: 'response.create', model: 'gpt-ws', input: [], generate: false }));
    assert.equal((await answered).type, 'response.created');
    const closed = once(ws, 'close') as Promise<[number, Buffer]>;
    own.signal('SIGTERM');
    const [code] = await closed;
    assert.equal(code, 1001);
    await closing;
    await own.exited();
  } finally {
    await own.cleanup().catch(() => undefined);
  }
});

const CODEX = new URL(
  '../../node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex',
  import.meta.url,
).pathname;

test("Codex's built-in OpenAI provider through a passed-through route: its frames reach the upstream socket", {
  timeout: 120_000,
}, async (t) => {
  if (!existsSync(CODEX)) {
    if (process.env.CI === 'true') throw new Error(`Codex must run in CI: ${CODEX} is missing`);
    t.skip('the Codex binary is not installed here');
    return;
  }
  const { key, id } = await gw.createKey({ name: 'ws-codex' });
  const home = mkdtempSync(join(tmpdir(), 'codex-wspass-'));
  const work = mkdtempSync(join(tmpdir(), 'codex-wspass-work-'));
  try {
    writeFileSync(join(home, 'config.toml'), `model = "gpt-ws"\nopenai_base_url = "${gw.url}/v1"\n`);
    const env = { ...process.env, CODEX_HOME: home };
    const runCodex = (args: string[], input: string) =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((done) => {
        const child = execFile(CODEX, args, { env, timeout: 100_000 }, (err, stdout, stderr) =>
          done({ status: err === null ? 0 : typeof err.code === 'number' ? err.code : null, stdout, stderr }),
        );
        child.stdin?.end(input);
      });
    const login = await runCodex(['login', '--with-api-key'], key);
    assert.equal(login.status, 0, login.stderr);
    const framesBefore = sock.frames.length;
    const run = await runCodex(
      ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', '-C', work, 'Say hi'],
      '',
    );
    const out = `${run.stdout}\n${run.stderr}`;
    assert.equal(run.status, 0, out.slice(-2000));
    assert.match(run.stdout, /Hello over the socket\./);
    assert.doesNotMatch(out, /Falling back from WebSockets|failed to connect to Responses WebSocket/);
    const sent = sock.frames.slice(framesBefore).filter((f) => f.generate !== false);
    assert.ok(sent.length >= 1, 'the turn reached the upstream socket');
    assert.ok(sent.every((f) => f.model === 'gpt-up-ws'));
    await waitUntil(() => usageRows(gw.dbPath, id).some((r) => r.input_tokens > 0), 'the turn billed');
  } finally {
    rmSync(home, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  }
});

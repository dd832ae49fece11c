// Body logging as an operator turns it on for one team while an incident is investigated: that team's
// requests keep their request and reply (masked by every redaction detector whatever the model's settings,
// cut to max_bytes); another key's keep nothing; old bodies go after the retention period.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { startMockUpstream } from '../helpers/mock-upstream.ts';
import type { MockUpstream } from '../helpers/mock-upstream-types.ts';
import { startGateway, waitUntil, type GatewayProcess } from '../helpers/gateway-process.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';

let up: MockUpstream;
let gw: GatewayProcess;
const CARD = '4111 1111 1111 1111';
const SECRET = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789';
const ADMIN = 'admin-token-for-body-log-0123456789abcdef';

before(async () => {
  up = await startMockUpstream();
  up.configure({ replyText: `Mail me at jane.doe@example.com about ${CARD}. ${'long reply '.repeat(40)}` });
  gw = await startGateway({
    configYaml: `database: "{{DB}}"
usage_flush_ms: 20
admin_token: "${ADMIN}"
body_log: { teams: [incident], retention_days: 3, max_bytes: 300 }
providers:
  - { name: up, kind: openai, base_url: "${up.url}/v1", api_key: "sk-upstream-0123456789" }
models:
  - { name: gpt-logged, deployments: [ { provider: up, model: upstream-gpt } ] }
`,
  });
});

after(async () => {
  await gw?.cleanup();
  await up?.close();
});

async function chat(key: string, stream: boolean): Promise<string> {
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'gpt-logged',
      stream,
      messages: [{ role: 'user', content: `My card is ${CARD} and my key ${SECRET}; write to bob@example.org` }],
    }),
  });
  assert.equal(res.status, 200);
  await res.text();
  return res.headers.get('x-request-id')!;
}

function bodiesOf(requestId: string): { request: string | null; response: string | null } | undefined {
  const db = new DatabaseSync(gw.dbPath, { readOnly: true });
  try {
    return db.prepare('SELECT request, response FROM request_bodies WHERE request_id = ?').get(requestId) as
      | { request: string | null; response: string | null }
      | undefined;
  } finally {
    db.close();
  }
}

test('a logged team’s request and reply are kept masked and cut; another key’s are not kept', async () => {
  const logged = (await gw.createKey({ name: 'on-call', flags: ['--team', 'incident'] })).key;
  const other = (await gw.createKey({ name: 'quiet' })).key;
  const whole = await chat(logged, false);
  const streamed = await chat(logged, true);
  const unlogged = await chat(other, false);
  await waitUntil(async () => bodiesOf(streamed) !== undefined, 'the logged bodies written with their rows');
  for (const id of [whole, streamed]) {
    const kept = bodiesOf(id)!;
    for (const text of [kept.request!, kept.response!]) {
      assert.doesNotMatch(text, /4111 1111|jane\.doe@|bob@example|sk-proj-abc/, text);
      assert.ok(Buffer.byteLength(text) <= 300 + 40, `cut to max_bytes (${Buffer.byteLength(text)})`);
    }
    assert.match(kept.request!, /\[REDACTED:card\]/);
    assert.match(kept.request!, /\[REDACTED:secret_key\]/);
    assert.match(kept.response!, /…\[cut by body_log\.max_bytes\]$/);
  }
  assert.match(bodiesOf(whole)!.response!, /\[REDACTED:email\]/);
  assert.match(bodiesOf(streamed)!.response!, /^data: /, 'a stream is kept as the caller got its events');
  const detail = await fetch(`${gw.url}/admin/requests/${whole}`, { headers: { authorization: `Bearer ${ADMIN}` } });
  assert.equal(detail.status, 200);
  const shown = (await detail.json()) as { request_body: string; response_body: string };
  assert.deepEqual([shown.request_body, shown.response_body], [bodiesOf(whole)!.request, bodiesOf(whole)!.response]);
  await waitUntil(async () => {
    const db = new DatabaseSync(gw.dbPath, { readOnly: true });
    const n = (db.prepare('SELECT COUNT(*) AS n FROM usage WHERE request_id = ?').get(unlogged) as { n: number }).n;
    db.close();
    return n === 1;
  }, 'the unlogged request’s usage row');
  assert.equal(bodiesOf(unlogged), undefined, 'a key outside body_log keeps no body');
});

test('logged bodies older than the retention are purged; newer ones stay', async () => {
  const store = new SqliteStore(':memory:');
  const row = (requestId: string, ts: number) => ({
    ts,
    requestId,
    keyId: 'key_1',
    endpoint: '/v1/chat/completions',
    model: 'm',
    deployment: null,
    status: 200,
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    costNanos: 0,
    latencyMs: 1,
    ttfbMs: null,
    streamed: false,
    attempts: 1,
    periodStart: 0,
    errorCode: null,
    routing: null,
    requestBody: '{"q":1}',
    responseBody: '{"a":1}',
  });
  await store.writeUsage([row('old', 1_000), row('new', 5_000)]);
  assert.equal(await store.purgeBodies(2_000), 1);
  assert.equal(await store.requestBodies('old'), null);
  assert.deepEqual(await store.requestBodies('new'), { request: '{"q":1}', response: '{"a":1}' });
  await store.close();
});

// Issue 4: streams cut by the upstream or abandoned by the client are billed for what was produced;
// /v1/models lists exactly the key's models; /api/usage/token shows the real figures and live limits.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFixture, call, type Fixture } from './fixture.ts';
import { waitUntil } from '../helpers/gateway-process.ts';
import { validateModelList } from '../helpers/schemas.ts';
import { keySpent, usageRows, type UsageDbRow } from '../admission/usage-db.ts';

let fx: Fixture;
before(async () => {
  fx = await startFixture();
});
after(async () => fx.close());

const LONG_REPLY = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');

async function rowOf(keyId: string, count: number): Promise<UsageDbRow> {
  await waitUntil(() => usageRows(fx.gw.dbPath, keyId).length >= count, 'the usage row');
  return usageRows(fx.gw.dbPath, keyId)[count - 1];
}

interface UsageTokenData {
  total_used: number;
  spent_usd: number;
  reserved_usd: number;
  tokens_used: number;
  window: { in_flight: number; requests: number };
  limits: { rpm: number | null };
}

async function selfCheck(key: string): Promise<UsageTokenData> {
  const r = await call(fx, { path: '/api/usage/token', auth: key });
  assert.equal(r.status, 200);
  return (r.json as { data: UsageTokenData }).data;
}

for (const endpoint of ['chat', 'messages'] as const) {
  const path = endpoint === 'chat' ? '/v1/chat/completions' : '/v1/messages';
  const model = endpoint === 'chat' ? 'gpt-up' : 'claude-up';
  const headers = { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' };
  const body = JSON.stringify({
    model,
    max_tokens: 100,
    stream: true,
    messages: [{ role: 'user', content: 'Tell me a story' }],
  });

  test(`${endpoint}: a stream cut by the upstream is billed for what was delivered`, async () => {
    const { key, id } = await fx.gw.createKey({ name: `cut-${endpoint}`, flags: ['--budget-usd', '1'] });
    fx.up.reset();
    fx.up.configure({ replyText: LONG_REPLY, chunkCount: 10 });
    fx.up.enqueue({ kind: 'cut-stream', afterEvents: 4 });
    const r = await call(fx, { path, auth: key, body, headers });
    assert.equal(r.status, 200);
    assert.match(
      r.text,
      endpoint === 'chat' ? /data: \{"error"/ : /event: error/,
      'the stream ends with an in-stream error',
    );
    const row = await rowOf(id, 1);
    assert.ok(row.output_tokens >= 1, `output billed: ${row.output_tokens}`);
    assert.ok(row.input_tokens >= 1, `prompt billed: ${row.input_tokens}`);
    assert.ok(row.cost_nanos > 0);
    assert.equal(keySpent(fx.gw.dbPath, id).nanos, row.cost_nanos);
    const data = await selfCheck(key);
    assert.equal(Math.round(data.spent_usd * 1e9), row.cost_nanos, 'the admission store settled the same amount');
    assert.equal(data.reserved_usd, 0);
    assert.equal(data.window.in_flight, 0);
  });

  test(`${endpoint}: a stream abandoned by the client is billed for what was produced`, async () => {
    const { key, id } = await fx.gw.createKey({ name: `gone-${endpoint}`, flags: ['--budget-usd', '1'] });
    fx.up.reset();
    fx.up.configure({ replyText: LONG_REPLY, chunkCount: 30, chunkDelayMs: 30 });
    const abort = new AbortController();
    const res = await fetch(fx.gw.url + path, {
      method: 'POST',
      signal: abort.signal,
      headers: { ...headers, authorization: `Bearer ${key}` },
      body,
    });
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    let seen = '';
    while (!seen.includes('delta')) seen += new TextDecoder().decode((await reader.read()).value);
    abort.abort();
    await reader.cancel().catch(() => undefined);
    const row = await rowOf(id, 1);
    assert.equal(row.status, 499);
    assert.equal(row.error_code, 'client_disconnected');
    assert.ok(row.output_tokens >= 1, `output billed: ${row.output_tokens}`);
    assert.ok(row.output_tokens < 40, 'only what was produced, not the whole reply');
    assert.ok(row.cost_nanos > 0);
    assert.equal(keySpent(fx.gw.dbPath, id).nanos, row.cost_nanos);
    const data = await selfCheck(key);
    assert.equal(Math.round(data.spent_usd * 1e9), row.cost_nanos);
    assert.equal(data.window.in_flight, 0, 'the slot is free again');
    fx.up.configure({ chunkDelayMs: 0 });
  });
}

test('/v1/models lists exactly the models a pattern allows', async () => {
  const { key } = await fx.gw.createKey({ name: 'claude-only', flags: ['--models', 'claude-*'] });
  const r = await call(fx, { path: '/v1/models', auth: key });
  validateModelList(r.json);
  const ids = (r.json as { data: { id: string }[] }).data.map((m) => m.id).sort();
  assert.deepEqual(ids, ['claude-mock', 'claude-up']);
  const chat = await call(fx, {
    path: '/v1/chat/completions',
    auth: key,
    body: { model: 'gpt-up', messages: [{ role: 'user', content: 'x' }] },
  });
  assert.equal(chat.status, 403);
});

test('/api/usage/token: real spend in quota units, limits and window usage', async () => {
  const { key, id } = await fx.gw.createKey({
    name: 'selfcheck',
    flags: ['--budget-usd', '2', '--rpm', '100', '--tpm', '100000', '--concurrency', '5', '--models', 'gpt-up'],
  });
  fx.up.reset();
  // Windows are wall-clock minutes: the request is counted in the one it was admitted in.
  const minuteBefore = Math.floor(Date.now() / 60_000);
  const r = await call(fx, {
    path: '/v1/chat/completions',
    auth: key,
    body: { model: 'gpt-up', max_tokens: 20, messages: [{ role: 'user', content: 'Hello' }] },
  });
  assert.equal(r.status, 200);
  const row = await rowOf(id, 1);
  const res = await call(fx, { path: '/api/usage/token', auth: key });
  const sameMinute = Math.floor(Date.now() / 60_000) === minuteBefore;
  const body = res.json as { code: boolean; data: Record<string, unknown> & UsageTokenData };
  assert.equal(body.code, true);
  const d = body.data;
  assert.equal(d.total_granted, 1_000_000);
  assert.equal(d.total_used, Math.round((row.cost_nanos * 500_000) / 1e9));
  assert.equal(d.total_available, 1_000_000 - d.total_used);
  assert.equal(d.unlimited_quota, false);
  assert.deepEqual(d.model_limits, { 'gpt-up': true });
  assert.equal(d.model_limits_enabled, true);
  assert.equal(d.expires_at, 0);
  assert.equal(d.tokens_used, row.input_tokens + row.output_tokens);
  assert.deepEqual(d.limits, { rpm: 100, tpm: 100000, max_concurrency: 5 });
  // Across a minute's turn the request is in the window just ended or in this one.
  if (sameMinute) assert.equal(d.window.requests, 1);
  else assert.ok(d.window.requests === 0 || d.window.requests === 1, `${d.window.requests}`);
  assert.equal(d.window.in_flight, 0);
});

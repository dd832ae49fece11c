// A clean stop (SIGTERM) finishes the stream in flight and flushes every usage row: nothing is lost,
// even with a long flush interval (docs/budgets.md, "Durability").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startMockUpstream } from '../helpers/mock-upstream.ts';
import { startGateway, configYaml } from '../helpers/gateway-process.ts';
import { keySpent, usageRows } from '../admission/usage-db.ts';

/** A gateway on one OpenAI-style upstream streaming `chunkCount` chunks `chunkDelayMs` apart. */
async function startStopping(upstream: { chunkCount: number; chunkDelayMs: number }) {
  const up = await startMockUpstream(upstream);
  const gw = await startGateway({
    configYaml: configYaml({
      providers: `  - { name: up, kind: openai, base_url: "${up.url}/v1", api_key: "sk-upstream-stop-0123456789" }`,
      models: `  - { name: gpt-up, price: { input: 1, output: 2 }, deployments: [ { provider: up, model: upstream-gpt } ] }`,
      // A flush interval far longer than the test: only the shutdown flush can write these rows.
    }).replace('usage_flush_ms: 20', 'usage_flush_ms: 60000'),
  });
  return { up, gw };
}

test('SIGTERM: the stream in flight ends normally and every served request has its usage row', async () => {
  const { up, gw } = await startStopping({ chunkCount: 10, chunkDelayMs: 30 });
  try {
    const { key, id } = await gw.createKey({ name: 'stop', flags: ['--budget-usd', '5'] });
    const post = (stream: boolean): Promise<Response> =>
      fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-up', stream, messages: [{ role: 'user', content: 'Hello' }] }),
      });
    for (let i = 0; i < 5; i++) assert.equal((await (await post(false)).text()).length > 0, true);
    const streaming = await post(true);
    assert.equal(streaming.status, 200);
    const reader = streaming.body!.getReader();
    await reader.read();
    await gw.stop();
    let text = '';
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      text += new TextDecoder().decode(r.value);
    }
    assert.ok(text.trimEnd().endsWith('data: [DONE]'), 'the stream in flight was finished, not cut');
    const rows = usageRows(gw.dbPath, id);
    assert.equal(rows.length, 6, 'five plain requests and the stream');
    assert.ok(rows.every((r) => r.status === 200));
    const total = rows.reduce((a, r) => a + r.cost_nanos, 0);
    assert.equal(keySpent(gw.dbPath, id).nanos, total);
  } finally {
    await gw.cleanup();
    await up.close();
  }
});

test('SIGTERM: a stream longer than the grace is cut, and its row is still written; SIGHUP does not stop the process', {
  timeout: 60_000,
}, async () => {
  // 40 chunks 300 ms apart: 12 s, far past the 5 s grace.
  const { up, gw } = await startStopping({ chunkCount: 40, chunkDelayMs: 300 });
  try {
    const { key, id } = await gw.createKey({ name: 'long', flags: ['--budget-usd', '5'] });
    gw.signal('SIGHUP');
    const streaming = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-up', stream: true, messages: [{ role: 'user', content: 'Hello' }] }),
    });
    assert.equal(streaming.status, 200, 'still serving after SIGHUP');
    const reader = streaming.body!.getReader();
    await reader.read();
    const stopped = gw.stop();
    let text = '';
    for (;;) {
      const r = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (r.done) break;
      text += new TextDecoder().decode(r.value);
    }
    await stopped;
    // Cut at the end of the grace, but well-formed: the caller's SDK reads an error it can retry.
    const last = text.trimEnd().split('\n\n').at(-1) ?? '';
    assert.match(last, /^data: \{"error":\{"message":"The gateway is shutting down/, text.slice(-300));
    const rows = usageRows(gw.dbPath, id);
    assert.equal(rows.length, 1, 'the cut stream has its row');
    assert.ok(rows[0].output_tokens > 0, 'billed for what was delivered');
    assert.equal(rows[0].status, 503);
    assert.match(gw.logs(), /SIGHUP ignored/);
  } finally {
    await gw.cleanup();
    await up.close();
  }
});

// A clean stop (SIGTERM) finishes the stream in flight and flushes every usage row: nothing is lost,
// even with a long flush interval (docs/budgets.md, "Durability"). During the drain delay /readyz fails
// while new connections are still served; the process exits as soon as the last stream is done.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { once } from 'node:events';
import { startMockUpstream } from '../helpers/mock-upstream.ts';
import { startGateway, configYaml, waitUntil } from '../helpers/gateway-process.ts';
import { keySpent, usageRows } from '../admission/usage-db.ts';

/** A gateway on one OpenAI-style upstream streaming `chunkCount` chunks `chunkDelayMs` apart. */
async function startStopping(
  upstream: { chunkCount: number; chunkDelayMs: number },
  stop: { graceS?: number; drainS?: number } = {},
) {
  const up = await startMockUpstream(upstream);
  const gw = await startGateway({
    configYaml: configYaml({
      providers: `  - { name: up, kind: openai, base_url: "${up.url}/v1", api_key: "sk-upstream-stop-0123456789" }`,
      models: `  - { name: gpt-up, price: { input: 1, output: 2 }, deployments: [ { provider: up, model: upstream-gpt } ] }`,
      extra: stop.graceS === undefined ? '' : `shutdown_grace_s: ${stop.graceS}`,
      // A flush interval far longer than the test: only the shutdown flush can write these rows.
    }).replace('usage_flush_ms: 20', 'usage_flush_ms: 60000'),
    env: { MODELGATE_DRAIN_DELAY_S: String(stop.drainS ?? 0) },
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
  // 40 chunks 300 ms apart: 12 s, far past a 2 s grace.
  const { up, gw } = await startStopping({ chunkCount: 40, chunkDelayMs: 300 }, { graceS: 2 });
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
    assert.match(gw.logs(), /config file reloaded \(SIGHUP\)/, 'SIGHUP reloads the file');
  } finally {
    await gw.cleanup();
    await up.close();
  }
});

/** GET on a connection of its own (no pool): what a client new to the gateway would get. */
function freshGet(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('SIGTERM with a grace longer than the streams: /readyz fails at once, new connections are served during the drain delay, every stream completes, and the process exits right after the last', {
  timeout: 90_000,
}, async () => {
  // 6 streams of 40 chunks 200 ms apart (8 s each); a 60 s grace and a 4 s drain delay: the streams
  // outlast the drain delay, so the process waits for them after the listener closed.
  const { up, gw } = await startStopping({ chunkCount: 40, chunkDelayMs: 200 }, { graceS: 60, drainS: 4 });
  try {
    const { key, id } = await gw.createKey({ name: 'rollout', flags: ['--budget-usd', '5'] });
    const post = (stream: boolean): Promise<Response> =>
      fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-up', stream, messages: [{ role: 'user', content: 'Hello' }] }),
      });
    assert.equal((await freshGet(`${gw.url}/readyz`)).status, 200, 'ready before the signal');
    const streams = await Promise.all(Array.from({ length: 6 }, () => post(true)));
    const readers = streams.map((r) => {
      assert.equal(r.status, 200);
      return r.body!.getReader();
    });
    // Each stream has begun (its first chunk is here) before the signal.
    await Promise.all(readers.map((r) => r.read()));
    let lastStreamEnd = 0;
    const texts = readers.map(async (reader) => {
      let text = '';
      for (;;) {
        const r = await reader.read();
        if (r.done) break;
        text += new TextDecoder().decode(r.value);
      }
      lastStreamEnd = Math.max(lastStreamEnd, performance.now());
      return text;
    });
    const exited = gw.exited().then(() => performance.now());
    gw.signal('SIGTERM');
    await waitUntil(() => gw.logs().includes('/readyz answers 503'), 'the stop to begin');
    const ready = await freshGet(`${gw.url}/readyz`);
    assert.equal(ready.status, 503, 'not ready from the signal on');
    assert.deepEqual(JSON.parse(ready.body).reasons, ['draining']);
    assert.equal((await freshGet(`${gw.url}/livez`)).status, 200, 'alive while draining');
    // A new connection during the drain delay is served in full.
    const during = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        `${gw.url}/v1/chat/completions`,
        {
          method: 'POST',
          agent: false,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ model: 'gpt-up', messages: [{ role: 'user', content: 'Hi' }] }));
    });
    assert.equal(during.status, 200, during.body);
    assert.ok(!gw.logs().includes('no new connections'), 'the request above was served within the drain delay');
    // After the drain delay the listener is closed: a connection is refused.
    await waitUntil(() => gw.logs().includes('no new connections'), 'the listener to close', 20_000);
    const refused = connect(gw.port, '127.0.0.1');
    const [err] = (await once(refused, 'error')) as [NodeJS.ErrnoException];
    assert.equal(err.code, 'ECONNREFUSED');
    const all = await Promise.all(texts);
    for (const text of all) assert.ok(text.trimEnd().endsWith('data: [DONE]'), text.slice(-300));
    const exitAt = await exited;
    assert.ok(exitAt > lastStreamEnd - 1_000, 'the process waited for the streams');
    // Exit follows the last stream, not the end of the 60 s grace: a generous bound for a loaded machine.
    assert.ok(exitAt - lastStreamEnd < 10_000, `exited ${Math.round(exitAt - lastStreamEnd)} ms after the last stream`);
    assert.doesNotMatch(gw.logs(), /grace over/);
    const rows = usageRows(gw.dbPath, id);
    assert.equal(rows.length, 7, 'six streams and the request made during the drain delay');
    assert.ok(rows.every((r) => r.status === 200));
  } finally {
    await gw.cleanup();
    await up.close();
  }
});

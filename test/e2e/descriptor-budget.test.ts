// The descriptor budget: a file limit too low for max_connections stops the start with the numbers (or
// lowers the default max_connections, said in the log); past the upstream connections the limit leaves
// room for, new streams are refused fast with 503 and `retry-after`, while small requests are answered
// and nothing gets a 500.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startGateway, configYaml } from '../helpers/gateway-process.ts';
import { startH2Mock } from '../helpers/mock-h2-upstream.ts';

const MOCK_MODEL = '  - { name: gpt-mock, deployments: [ { provider: mock, model: gpt-mock } ] }';

test('a file limit below what an explicit max_connections needs stops the start with a clear message', async () => {
  const start = startGateway({
    configYaml: configYaml({ models: MOCK_MODEL, extra: 'max_connections: 1000' }),
    fileLimit: 256,
  });
  await assert.rejects(start, (err: Error) => {
    assert.match(err.message, /max_connections 1000 needs about \d+ file descriptors/);
    assert.match(err.message, /the process's file limit is 256/);
    assert.match(err.message, /set max_connections to at most \d+/);
    return true;
  });
});

test('the default max_connections is lowered to fit the file limit, said once in the log', async () => {
  const gw = await startGateway({ configYaml: configYaml({ models: MOCK_MODEL }), fileLimit: 256 });
  try {
    assert.match(gw.logs(), /max_connections lowered from its default 10000 to \d+: the process's file limit is 256/);
    const r = await fetch(`${gw.url}/healthz`);
    assert.equal(r.status, 200);
    await r.arrayBuffer();
    // Descriptors in use, and the limit they are counted against.
    const metrics = await (await fetch(`${gw.url}/metrics`)).text();
    assert.match(metrics, /^process_open_fds \d+$/m);
    assert.match(metrics, /^process_max_fds 256$/m);
  } finally {
    await gw.cleanup();
  }
});

test('streams past the upstream connections the limit allows get a fast 503 with retry-after; small requests are answered', async () => {
  // One stream a connection: every stream needs a descriptor of its own upstream.
  const up = await startH2Mock({ tls: false, maxConcurrentStreams: 1 });
  const gw = await startGateway({
    configYaml: configYaml({
      providers: `  - { name: h2c, kind: openai, base_url: "${up.baseUrl}", api_key: "sk-upstream-fd-0123456789", http2: true }`,
      models: `${MOCK_MODEL}\n  - { name: gpt-h2c, deployments: [ { provider: h2c, model: upstream-h2 } ] }`,
      extra: 'max_connections: 150\nmax_connections_per_address: 150',
    }),
    fileLimit: 256,
  });
  try {
    const { key } = await gw.createKey();
    const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const streams = await Promise.all(
      Array.from({ length: 100 }, () =>
        fetch(`${gw.url}/v1/chat/completions`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({ model: 'gpt-h2c', messages: [{ role: 'user', content: 'hi' }], stream: true }),
        }),
      ),
    );
    // Every answer has begun while the admitted streams are still held upstream: the refusals were fast.
    const statuses = streams.map((r) => r.status);
    assert.ok(
      statuses.every((s) => s === 200 || s === 503),
      `statuses: ${[...new Set(statuses)].join(', ')}`,
    );
    const refused = streams.filter((r) => r.status === 503);
    assert.ok(refused.length > 0, 'some streams were refused');
    assert.equal(statuses.filter((s) => s === 200).length, up.streamsOpen);
    for (const r of refused) {
      assert.ok(Number(r.headers.get('retry-after')) >= 1);
      const body = (await r.json()) as { error: { code: string } };
      assert.equal(body.error.code, 'descriptors_exhausted');
    }
    // Other callers' small requests meanwhile: a model list and an in-process answer.
    const list = await fetch(`${gw.url}/v1/models`, { headers: auth });
    assert.equal(list.status, 200);
    await list.arrayBuffer();
    const small = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ model: 'gpt-mock', messages: [{ role: 'user', content: 'hi' }] }),
    });
    assert.equal(small.status, 200);
    await small.arrayBuffer();
    up.release();
    for (const r of streams.filter((s) => s.status === 200)) assert.match(await r.text(), /data: \[DONE\]/);
    assert.doesNotMatch(gw.logs(), /"status":500/);
  } finally {
    await gw.cleanup();
    await up.close();
  }
});

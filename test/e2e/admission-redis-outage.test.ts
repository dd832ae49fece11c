// Issue 4: when the shared admission store (Redis) goes away, a key with limits is refused with a clear
// 503 in the caller's dialect — never served unchecked, never left hanging — and service resumes when
// Redis is back. A gateway whose configured Redis is unreachable does not start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { once } from 'node:events';
import { startFixture, call } from './fixture.ts';
import { startGateway, configYaml } from '../helpers/gateway-process.ts';
import { redisOrSkip, dropPrefix } from '../helpers/redis.ts';
import { tcpRelay, type TcpRelay } from '../helpers/tcp-relay.ts';

/** A relay to the real Redis that the test can cut and restore. */
async function cuttableRedis(): Promise<TcpRelay & { url: string }> {
  const relay = await tcpRelay({ host: '127.0.0.1', port: 6379 });
  return Object.assign(relay, { url: `redis://127.0.0.1:${relay.port}` });
}

test('Redis outage: limited keys get 503 at once in their dialect; service resumes when Redis is back', async (t) => {
  const redis = await redisOrSkip(t);
  if (redis === null) return;
  const relay = await cuttableRedis();
  const prefix = `mgtest:${randomUUID()}:`;
  const fx = await startFixture({ extraConfig: `redis: ${relay.url}`, env: { MODELGATE_REDIS_PREFIX: prefix } });
  try {
    const { key } = await fx.gw.createKey({ name: 'limited', flags: ['--budget-usd', '5', '--rpm', '1000'] });
    const chat = { model: 'gpt-up', messages: [{ role: 'user', content: 'hi' }] };
    assert.equal((await call(fx, { path: '/v1/chat/completions', auth: key, body: chat })).status, 200);

    relay.cut();
    const started = Date.now();
    const down = await call(fx, { path: '/v1/chat/completions', auth: key, body: chat });
    assert.equal(down.status, 503);
    assert.equal((down.json as { error: { code: string } }).error.code, 'admission_unavailable');
    assert.equal(down.headers.get('retry-after'), '1');
    assert.ok(Date.now() - started < 3000, 'refused promptly, not after a reconnection wait');
    const msg = await call(fx, {
      path: '/v1/messages',
      auth: key,
      headers: { 'anthropic-version': '2023-06-01' },
      body: { model: 'claude-up', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] },
    });
    assert.equal(msg.status, 503);
    assert.equal((msg.json as { type: string; error: { type: string } }).error.type, 'overloaded_error');
    // A key without limits never touches the store and is still served.
    assert.equal((await call(fx, { path: '/v1/chat/completions', body: { ...chat, model: 'gpt-mock' } })).status, 200);

    relay.restore();
    const deadline = Date.now() + 10_000;
    let status = 0;
    while (status !== 200 && Date.now() < deadline)
      status = (await call(fx, { path: '/v1/chat/completions', auth: key, body: chat })).status;
    assert.equal(status, 200, 'served again once Redis is reachable');
  } finally {
    await fx.close();
    await relay.close();
    await dropPrefix(redis, prefix);
    redis.disconnect();
  }
});

test('a gateway whose configured Redis is unreachable refuses to start and says why', async () => {
  const closed = net.createServer();
  closed.listen(0, '127.0.0.1');
  await once(closed, 'listening');
  const port = (closed.address() as net.AddressInfo).port;
  closed.close();
  await assert.rejects(
    startGateway({
      configYaml: configYaml({
        models: '  - { name: gpt-mock, deployments: [ { provider: mock, model: gpt-mock } ] }',
        extra: `redis: "redis://user:s3cret-pass@127.0.0.1:${port}"`,
      }),
    }),
    (err: Error) =>
      /cannot reach the admission store at redis:\/\/user:\*\*\*\*@127\.0\.0\.1/.test(err.message) &&
      !err.message.includes('s3cret-pass'),
  );
});

// Issue 39 item 5: a Redis outage is one log line when it starts and one when it ends (as a PostgreSQL
// outage is), however many requests it refuses; the refusals are counted in /metrics.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startFixture, call } from './fixture.ts';
import { waitUntil } from '../helpers/gateway-process.ts';
import { redisOrSkip, dropPrefix } from '../helpers/redis.ts';
import { tcpRelay } from '../helpers/tcp-relay.ts';

test('a Redis outage logs once at its start and once at its end; refusals are counted', async (t) => {
  const redis = await redisOrSkip(t);
  if (redis === null) return;
  const relay = await tcpRelay({ host: '127.0.0.1', port: 6379 });
  const prefix = `mgtest:${randomUUID()}:`;
  const fx = await startFixture({
    extraConfig: `redis: redis://127.0.0.1:${relay.port}`,
    env: { MODELGATE_REDIS_PREFIX: prefix },
  });
  try {
    const { key } = await fx.gw.createKey({ name: 'limited', flags: ['--budget-usd', '5', '--rpm', '10000'] });
    const chat = { model: 'gpt-up', messages: [{ role: 'user', content: 'hi' }] };
    assert.equal((await call(fx, { path: '/v1/chat/completions', auth: key, body: chat })).status, 200);

    relay.cut();
    const refused = await Promise.all(
      Array.from({ length: 30 }, () => call(fx, { path: '/v1/chat/completions', auth: key, body: chat })),
    );
    assert.ok(
      refused.every((r) => r.status === 503),
      refused.map((r) => r.status).join(','),
    );
    for (let i = 0; i < 10; i++)
      assert.equal((await call(fx, { path: '/v1/chat/completions', auth: key, body: chat })).status, 503);
    const metrics = await (await fetch(`${fx.gw.url}/metrics`)).text();
    const counted = Number(/modelgate_admission_unavailable_total (\d+)/.exec(metrics)?.[1]);
    assert.ok(counted >= 40, `refusals counted: ${counted}`);

    relay.restore();
    await waitUntil(
      async () => (await call(fx, { path: '/v1/chat/completions', auth: key, body: chat })).status === 200,
      'service to resume',
    );
    await waitUntil(
      () => fx.gw.logs().includes('admission store answers again'),
      'the log line of the end of the outage',
    );
    const lines = fx.gw.logs().split('\n');
    assert.equal(
      lines.filter((l) => l.includes('admission store')).length,
      2,
      lines.filter((l) => l.includes('admission store')).join('\n'),
    );
    assert.equal(lines.filter((l) => l.includes('admission store unreachable')).length, 1);
    assert.equal(lines.filter((l) => l.includes('admission store answers again')).length, 1);
  } finally {
    await fx.close();
    await relay.close();
    await dropPrefix(redis, prefix);
    redis.disconnect();
  }
});

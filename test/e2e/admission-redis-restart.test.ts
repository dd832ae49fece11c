// Issue 4: a Redis-backed gateway killed with requests in flight leaves no phantom reservation once it
// is back: the restarted replica frees what its predecessor held before serving (docs/budgets.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { redisOrSkip, dropPrefix, REDIS_URL } from '../helpers/redis.ts';
import { startFixture, call } from './fixture.ts';

test('Redis store: SIGKILL with two streams in flight, restart, both concurrency slots are free again', async (t) => {
  const redis = await redisOrSkip(t);
  if (redis === null) return;
  const prefix = `mgtest:${randomUUID()}:`;
  const fx = await startFixture({
    extraConfig: `redis: ${REDIS_URL}\ninstance_id: restart-test`,
    env: { MODELGATE_REDIS_PREFIX: prefix },
  });
  try {
    const { key } = await fx.gw.createKey({ name: 'two-slots', flags: ['--concurrency', '2', '--budget-usd', '10'] });
    const body = { model: 'gpt-up', stream: true, messages: [{ role: 'user', content: 'hi' }] };
    // Two streams that the upstream holds open after their headers, so both slots stay taken.
    fx.up.enqueue({ kind: 'hang-after-headers', afterEvents: 1 }, { kind: 'hang-after-headers', afterEvents: 1 });
    const held = [0, 1].map(() =>
      fetch(`${fx.gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).catch(() => undefined),
    );
    await fx.up.waitForRequests(2, { timeoutMs: 5000 });
    const third = await call(fx, { path: '/v1/chat/completions', auth: key, body: { ...body, stream: false } });
    assert.equal(third.status, 429, 'both slots are held');

    await fx.gw.kill();
    await Promise.all(held);
    const state = await redis.hget(
      `${prefix}{${(await fx.gw.cli(['keys', 'show', 'two-slots', '--json']).then((s) => JSON.parse(s) as { id: string })).id}}:s`,
      'inflight',
    );
    assert.equal(state, '2', 'the killed gateway left two reservations in Redis');

    fx.up.reset();
    await fx.gw.restart();
    const after = await Promise.all(
      [0, 1].map(() => call(fx, { path: '/v1/chat/completions', auth: key, body: { ...body, stream: false } })),
    );
    assert.deepEqual(
      after.map((r) => r.status),
      [200, 200],
      'both slots were freed at boot, not after the 10-minute TTL',
    );
    assert.match(fx.gw.logs(), /freed reservations left by this instance/);
  } finally {
    await fx.close();
    await dropPrefix(redis, prefix);
    redis.disconnect();
  }
});

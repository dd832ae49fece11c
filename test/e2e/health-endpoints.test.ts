// /livez says the process is alive, /readyz whether it should get requests: a Redis the requests need
// that cannot be reached makes it 503 (and only it: the process is not restarted for it), /healthz
// answers as it always did.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startFixture } from './fixture.ts';
import { waitUntil } from '../helpers/gateway-process.ts';
import { redisOrSkip, dropPrefix } from '../helpers/redis.ts';
import { tcpRelay } from '../helpers/tcp-relay.ts';

async function get(url: string): Promise<{ status: number; body: unknown }> {
  const r = await fetch(url);
  return { status: r.status, body: await r.json() };
}

test('Redis unreachable: /readyz 503 naming it, /livez and /healthz 200; ready again when it is back', async (t) => {
  const redis = await redisOrSkip(t);
  if (redis === null) return;
  const relay = await tcpRelay({ host: '127.0.0.1', port: 6379 });
  const prefix = `mgtest:${randomUUID()}:`;
  const fx = await startFixture({
    extraConfig: `redis: redis://127.0.0.1:${relay.port}`,
    env: { MODELGATE_REDIS_PREFIX: prefix },
  });
  try {
    assert.deepEqual(await get(`${fx.gw.url}/readyz`), { status: 200, body: { status: 'ready' } });
    assert.deepEqual(await get(`${fx.gw.url}/livez`), { status: 200, body: { status: 'alive' } });
    relay.cut();
    // No request needs to fail first: the connection's state is what readiness reads.
    await waitUntil(async () => (await get(`${fx.gw.url}/readyz`)).status === 503, '/readyz to fail');
    assert.deepEqual((await get(`${fx.gw.url}/readyz`)).body, { status: 'not ready', reasons: ['redis unreachable'] });
    assert.equal((await get(`${fx.gw.url}/livez`)).status, 200);
    assert.equal((await get(`${fx.gw.url}/healthz`)).status, 200);
    relay.restore();
    await waitUntil(async () => (await get(`${fx.gw.url}/readyz`)).status === 200, '/readyz to pass again');
  } finally {
    await fx.close();
    await relay.close();
    await dropPrefix(redis, prefix);
    redis.disconnect();
  }
});

test('HEAD /readyz and /livez answer without a body (load balancers probe with it); no key needed', async () => {
  const fx = await startFixture({});
  try {
    for (const path of ['/readyz', '/livez']) {
      const r = await fetch(`${fx.gw.url}${path}`, { method: 'HEAD' });
      assert.equal(r.status, 200, path);
      assert.equal(await r.text(), '');
    }
  } finally {
    await fx.close();
  }
});

// Issue 39, item 10: a Redis-backed gateway killed before its last usage rows were written left Redis
// counting spend the database has no rows for, and `/api/usage/token` disagreed with the rows for as long
// as Redis lived. The key's spend is reconciled with the rows when the replica starts again, and when
// another replica finds it gone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { redisOrSkip, dropPrefix, REDIS_URL } from '../helpers/redis.ts';
import { startGateway, configYaml, waitUntil, type GatewayProcess } from '../helpers/gateway-process.ts';
import { usageRows } from '../admission/usage-db.ts';

const MODELS = `  - { name: gpt-mock, price: { input: 1, output: 2 }, deployments: [ { provider: mock, model: gpt-mock } ] }`;

function config(instance: string, extra = '', database = '{{DB}}'): string {
  // Rows wait a minute before they are written: a kill loses every one of them.
  return configYaml({ models: MODELS, extra: `redis: ${REDIS_URL}\ninstance_id: ${instance}\n${extra}` })
    .replace('"{{DB}}"', JSON.stringify(database))
    .replace('usage_flush_ms: 20', 'usage_flush_ms: 60000');
}

async function spend(gw: GatewayProcess, key: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const r = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-mock', max_tokens: 20, messages: [{ role: 'user', content: `hello ${i}` }] }),
    });
    assert.equal(r.status, 200);
    await r.arrayBuffer();
  }
}

async function spentNanos(gw: GatewayProcess, key: string): Promise<number> {
  const r = await fetch(`${gw.url}/api/usage/token`, { headers: { authorization: `Bearer ${key}` } });
  return Math.round(((await r.json()) as { data: { spent_usd: number } }).data.spent_usd * 1e9);
}

const rowsTotal = (gw: GatewayProcess, id: string): number =>
  usageRows(gw.dbPath, id).reduce((n, r) => n + r.cost_nanos, 0);

test('a replica killed before its rows were written: restarted, its spend agrees with the usage rows', async (t) => {
  const redis = await redisOrSkip(t);
  if (redis === null) return;
  const prefix = `mgtest:${randomUUID()}:`;
  const gw = await startGateway({ configYaml: config('reconcile-a'), env: { MODELGATE_REDIS_PREFIX: prefix } });
  try {
    const { key, id } = await gw.createKey({ name: 'lost-rows', flags: ['--budget-usd', '5'] });
    await spend(gw, key, 5);
    assert.ok((await spentNanos(gw, key)) > 0);
    await gw.kill();
    assert.equal(usageRows(gw.dbPath, id).length, 0, 'the kill lost the queued rows');
    await gw.restart();
    assert.equal(await spentNanos(gw, key), rowsTotal(gw, id), '/api/usage/token agrees with the usage rows');
    await spend(gw, key, 2);
    await gw.stop();
    await gw.restart();
    assert.equal(await spentNanos(gw, key), rowsTotal(gw, id), 'and goes on agreeing once new rows are written');
    assert.ok(rowsTotal(gw, id) > 0);
  } finally {
    await gw.cleanup();
    await dropPrefix(redis, prefix);
    redis.disconnect();
  }
});

test('a replica killed for good: another one finds it gone and reconciles the spend with the rows', async (t) => {
  const redis = await redisOrSkip(t);
  if (redis === null) return;
  const prefix = `mgtest:${randomUUID()}:`;
  const env = { MODELGATE_REDIS_PREFIX: prefix };
  const a = await startGateway({ configYaml: config('reconcile-peer-a', 'redis_peer_timeout_ms: 1000'), env });
  let b: GatewayProcess | null = null;
  try {
    b = await startGateway({ configYaml: config('reconcile-peer-b', 'redis_peer_timeout_ms: 1000', a.dbPath), env });
    const { key, id } = await a.createKey({ name: 'peer-lost', flags: ['--budget-usd', '5'] });
    await waitUntil(
      async () => (await fetch(`${b!.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).status === 200,
      'b to know the key',
    );
    await spend(b, key, 2);
    const bCost = await spentNanos(b, key);
    await spend(a, key, 5);
    assert.ok((await spentNanos(b, key)) > bCost, 'both replicas count into one shared total');
    await a.kill();
    assert.equal(usageRows(a.dbPath, id).length, 0, "no row is written yet: a's are lost, b's wait for their flush");
    // b's two requests are still to be written (its rows wait a minute); a's five are lost with it.
    await waitUntil(
      async () => (await spentNanos(b!, key)) === bCost,
      "b to drop the lost replica's unwritten spend",
      15_000,
    );
    // The log line is written by pino's asynchronous destination: wait for it rather than race it.
    await waitUntil(() => /replica .*gone/.test(b!.logs()), 'b to log the lost replica');
    await b.stop();
    assert.equal(rowsTotal(a, id), bCost, "b's rows, written at its stop, are exactly the spend it kept");
  } finally {
    await b?.cleanup();
    await a.cleanup();
    await dropPrefix(redis, prefix);
    redis.disconnect();
  }
});

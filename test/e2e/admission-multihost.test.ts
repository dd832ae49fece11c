// Scale-out: two gateways, as on two hosts, sharing one Redis (admission) and one PostgreSQL database
// (keys, usage, spend). A key whose budget fits 20 requests gets 300 parallel ones spread over both:
// the limit does not double with the replicas, spend never passes the budget, and every replica's rows
// add up to the one total. Required in CI (CI=true); skipped locally without Redis or PostgreSQL.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { redisOrSkip, dropPrefix, REDIS_URL } from '../helpers/redis.ts';
import { startMockUpstream } from '../helpers/mock-upstream.ts';
import type { MockUpstream } from '../helpers/mock-upstream-types.ts';
import { startGateway, waitUntil, type GatewayProcess } from '../helpers/gateway-process.ts';
import { validateOpenAIError } from '../helpers/schemas.ts';
import { estimatePromptTokens } from '../../src/admission/estimate-tokens.ts';
import { reservationNanos } from '../../src/core/budget.ts';
import { dropSchema, freshSchema, pgOrSkip } from '../helpers/postgres.ts';

const PARALLEL = 300;
const FITS = 20;
const MAX_TOKENS = 50;
const PRICE = { input: 1, output: 2, cacheRead: 0.1, cacheWrite: 1.25 };

const body = (stream: boolean): Record<string, unknown> => ({
  model: 'gpt-burst',
  max_tokens: MAX_TOKENS,
  stream,
  messages: [{ role: 'user', content: 'Hello there' }],
});

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

test('two gateways on one Redis and one PostgreSQL: 300 parallel requests on a budget that fits 20', async (t) => {
  const redis = await redisOrSkip(t);
  if (redis === null) return;
  // Without PostgreSQL (a skip, or a failure in CI) the Redis client must not keep the process alive.
  const sql = await pgOrSkip(t).catch((err: unknown) => {
    redis.disconnect();
    throw err;
  });
  if (sql === null) {
    redis.disconnect();
    return;
  }
  const { schema, url: database } = freshSchema('mg_e2e');
  const prefix = `mgtest:${schema}:`;
  cleanups.push(async () => {
    await dropSchema(sql, schema);
    await sql.end();
    await dropPrefix(redis, prefix);
    redis.disconnect();
  });
  const up: MockUpstream = await startMockUpstream();
  cleanups.push(() => up.close());
  up.configure({
    latencyMs: 100,
    chunkDelayMs: 2,
    replyText: Array.from({ length: 200 }, (_, i) => `word${i}`).join(' '),
  });

  const configYaml = `database: "${database}"
redis: ${REDIS_URL}
usage_flush_ms: 20
providers:
  - { name: up, kind: openai, base_url: "${up.url}/v1", api_key: "sk-upstream-0123456789" }
models:
  - { name: gpt-burst, price: { input: ${PRICE.input}, output: ${PRICE.output}, cache_read: ${PRICE.cacheRead}, cache_write: ${PRICE.cacheWrite} }, deployments: [ { provider: up, model: upstream-gpt } ] }
`;
  const gateways: GatewayProcess[] = [];
  for (let i = 0; i < 2; i++) {
    const gw = await startGateway({ configYaml, env: { MODELGATE_REDIS_PREFIX: prefix } });
    gateways.push(gw);
    cleanups.push(() => gw.cleanup());
  }
  const [a, b] = gateways;
  const promptTokens = estimatePromptTokens(body(false), { model: 'upstream-gpt' });
  const budgetNanos = FITS * reservationNanos({ promptTokens, maxTokens: MAX_TOKENS }, PRICE);
  const { key, id } = await a.createKey({
    name: 'burst',
    flags: ['--budget-usd', String(budgetNanos / 1e9), '--models', 'gpt-burst'],
  });
  await waitUntil(async () => {
    const r = await fetch(`${b.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    await r.arrayBuffer();
    return r.status === 200;
  }, 'the second gateway to accept the key');

  const results = await Promise.all(
    Array.from({ length: PARALLEL }, async (_, i) => {
      const gw = gateways[i % 2];
      const res = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body(i % 4 < 2)),
      });
      return { status: res.status, text: await res.text() };
    }),
  );
  const served = results.filter((r) => r.status === 200);
  for (const r of results.filter((x) => x.status !== 200)) {
    assert.equal(r.status, 403, r.text);
    const json = JSON.parse(r.text) as { error: { code: string } };
    validateOpenAIError(json);
    assert.equal(json.error.code, 'budget_exhausted');
  }
  t.diagnostic(`served ${served.length} of ${PARALLEL} across two replicas (the budget fits ${FITS} worst cases)`);
  assert.ok(served.length >= FITS, `at least the ${FITS} requests the budget fits are served (got ${served.length})`);
  assert.ok(served.length < 2 * FITS, `the budget is not granted once per replica (served ${served.length})`);
  assert.equal(up.requests.length, served.length, 'the upstream saw exactly the admitted requests');

  const q = sql.unsafe.bind(sql);
  await waitUntil(
    async () =>
      Number((await q(`SELECT COUNT(*)::int AS n FROM "${schema}".usage WHERE key_id = $1`, [id]))[0].n) === PARALLEL,
    'every usage row of both gateways',
  );
  const [rows] = await q(
    `SELECT COALESCE(SUM(cost_nanos), 0)::text AS nanos, COUNT(*) FILTER (WHERE status = 200)::int AS ok,
      MIN(cost_nanos) FILTER (WHERE status = 200)::text AS cheapest FROM "${schema}".usage WHERE key_id = $1`,
    [id],
  );
  const [spend] = await q(
    `SELECT COALESCE(SUM(spent_nanos), 0)::text AS nanos FROM "${schema}".key_spend WHERE key_id = $1`,
    [id],
  );
  assert.equal(Number(rows.nanos), Number(spend.nanos), "the sum of both replicas' rows equals the key total exactly");
  assert.ok(Number(spend.nanos) <= budgetNanos, `recorded spend ${spend.nanos} ≤ budget ${budgetNanos}`);
  assert.equal(rows.ok, served.length);
  assert.ok(
    served.length <= Math.floor(budgetNanos / Number(rows.cheapest)),
    'no more served than the budget pays for',
  );
  for (const gw of gateways) {
    const self = await fetch(`${gw.url}/api/usage/token`, { headers: { authorization: `Bearer ${key}` } });
    const data = ((await self.json()) as { data: { reserved_usd: number; window: { in_flight: number } } }).data;
    assert.deepEqual([data.reserved_usd, data.window.in_flight], [0, 0], 'nothing is left reserved on either replica');
  }
});

// Issue 4: a key whose budget fits 20 requests gets 300 parallel ones (streamed and not) against a slow
// upstream; only what fits is served, spend never passes the budget, and the rows add up to the total.
// The same test runs on the memory store and on Redis.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { redisOrSkip, dropPrefix, REDIS_URL } from '../helpers/redis.ts';
import { startFixture, call, type Fixture } from './fixture.ts';
import { waitUntil } from '../helpers/gateway-process.ts';
import { validateOpenAIError } from '../helpers/schemas.ts';
import { keySpent, sum, usageRows } from '../admission/usage-db.ts';
import { estimatePromptTokens } from '../../src/admission/estimate-tokens.ts';
import { reservationNanos } from '../../src/core/budget.ts';

const PARALLEL = 300;
const FITS = 20;
const MAX_TOKENS = 50;
/** Explicit on the model below, so the test's reservation arithmetic is the gateway's. */
const PRICE = { input: 1, output: 2, cacheRead: 0.1, cacheWrite: 1.25 };
const BURST_MODEL = `  - { name: gpt-burst, price: { input: ${PRICE.input}, output: ${PRICE.output}, cache_read: ${PRICE.cacheRead}, cache_write: ${PRICE.cacheWrite} }, deployments: [ { provider: up, model: upstream-gpt } ] }`;
const LONG_REPLY = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ');

function requestBody(stream: boolean): Record<string, unknown> {
  return { model: 'gpt-burst', max_tokens: MAX_TOKENS, stream, messages: [{ role: 'user', content: 'Hello there' }] };
}

/** The worst case the gateway reserves for one request, computed with the gateway's own functions. */
function reservationOfOne(): number {
  const promptTokens = estimatePromptTokens(requestBody(false), { model: 'upstream-gpt' });
  // No cache_control in the request: its prompt can cost at most plain input.
  return reservationNanos({ promptTokens, maxTokens: MAX_TOKENS, cacheWrite: 'none' }, PRICE);
}

async function runBurst(fx: Fixture): Promise<void> {
  fx.up.configure({ latencyMs: 100, chunkDelayMs: 2, replyText: LONG_REPLY });
  const budgetNanos = FITS * reservationOfOne();
  const { key, id } = await fx.gw.createKey({
    name: 'burst',
    flags: ['--budget-usd', String(budgetNanos / 1e9), '--models', 'gpt-burst'],
  });

  const results = await Promise.all(
    Array.from({ length: PARALLEL }, (_, i) =>
      call(fx, { path: '/v1/chat/completions', auth: key, body: requestBody(i % 2 === 0) }),
    ),
  );
  const served = results.filter((r) => r.status === 200);
  const refused = results.filter((r) => r.status !== 200);
  for (const r of refused) {
    assert.equal(r.status, 403, r.text);
    validateOpenAIError(r.json);
    assert.equal((r.json as { error: { code: string } }).error.code, 'budget_exhausted');
    assert.match(
      (r.json as { error: { message: string } }).error.message,
      /quota restricted: USD budget, \$[\d.]+ left of \$/,
    );
  }
  for (const r of served.filter((x) => x.headers.get('content-type')?.startsWith('text/event-stream'))) {
    assert.ok(r.text.trimEnd().endsWith('data: [DONE]'), 'every admitted stream is served whole');
  }
  assert.ok(served.length >= FITS, `at least the ${FITS} requests the budget fits are served (got ${served.length})`);
  assert.ok(fx.up.requests.length === served.length, 'the upstream saw exactly the admitted requests');

  await waitUntil(() => usageRows(fx.gw.dbPath, id).length === PARALLEL, 'every usage row to be written');
  const rows = usageRows(fx.gw.dbPath, id);
  const spent = keySpent(fx.gw.dbPath, id);
  const rowsNanos = sum(rows, (r) => r.cost_nanos);
  assert.equal(rowsNanos, spent.nanos, 'the sum of usage rows equals the key total exactly');
  assert.equal(
    sum(rows, (r) => r.input_tokens + r.output_tokens + r.cache_read_tokens + r.cache_write_tokens),
    spent.tokens,
  );
  assert.ok(spent.nanos <= budgetNanos, `recorded spend ${spent.nanos} ≤ budget ${budgetNanos}`);
  const billed = rows.filter((r) => r.status === 200);
  assert.equal(billed.length, served.length);
  const cheapest = Math.min(...billed.map((r) => r.cost_nanos));
  assert.ok(cheapest > 0);
  assert.ok(served.length <= Math.floor(budgetNanos / cheapest), 'no more served than the budget pays for');
  assert.equal(
    sum(
      rows.filter((r) => r.status !== 200),
      (r) => r.cost_nanos,
    ),
    0,
    'refusals cost nothing',
  );

  // Nothing is left reserved once the burst is over.
  const self = await call(fx, { path: '/api/usage/token', auth: key });
  const data = (self.json as { data: { reserved_usd: number; window: { in_flight: number }; spent_usd: number } }).data;
  assert.equal(data.reserved_usd, 0);
  assert.equal(data.window.in_flight, 0);
  assert.equal(Math.round(data.spent_usd * 1e9), spent.nanos);
}

test('memory store: 300 parallel requests on a budget that fits 20', async () => {
  const fx = await startFixture({ extraModels: BURST_MODEL });
  try {
    await runBurst(fx);
  } finally {
    await fx.close();
  }
});

test('Redis store: 300 parallel requests on a budget that fits 20', async (t) => {
  const redis = await redisOrSkip(t);
  if (redis === null) return;
  const prefix = `mgtest:${randomUUID()}:`;
  const fx = await startFixture({
    extraModels: BURST_MODEL,
    extraConfig: `redis: ${REDIS_URL}`,
    env: { MODELGATE_REDIS_PREFIX: prefix },
  });
  try {
    await runBurst(fx);
    assert.ok((await redis.keys(`${prefix}*`)).length > 0, 'the gateway kept its counters in Redis under the prefix');
  } finally {
    await fx.close();
    await dropPrefix(redis, prefix);
    redis.disconnect();
  }
});

// The cost breakdown is stored with each usage row and read back as written, on SQLite and PostgreSQL
// (migrated from an older schema: the column is a migration of its own).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../../src/store/open-store.ts';
import type { Store, UsageRow } from '../../src/store/store.ts';
import { breakdownJson } from '../../src/pricing/breakdown.ts';
import { configuredPrice } from '../../src/pricing/model-price.ts';
import { dropSchema, freshSchema, pgClient, pgUnavailable } from '../helpers/postgres.ts';

const price = configuredPrice({ input: 3, output: 15, units: { web_search: 0.01 } });
const breakdown = breakdownJson(
  { inputTokens: 10, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0, units: { web_search: 2 } },
  price,
)!;

function row(i: number, costBreakdown: string | null): UsageRow {
  return {
    ts: Date.UTC(2026, 10, 1) + i,
    requestId: `req_${i}`,
    keyId: 'key_a',
    endpoint: '/v1/messages',
    model: 'claude-x',
    deployment: 'claude-x#0',
    status: 200,
    inputTokens: 10,
    outputTokens: 20,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    costNanos: 20_330_000,
    latencyMs: 5,
    ttfbMs: 1,
    streamed: false,
    attempts: 1,
    periodStart: 0,
    errorCode: null,
    routing: null,
    costBreakdown,
  };
}

async function roundTrip(store: Store): Promise<void> {
  await store.writeUsage([row(1, breakdown), row(2, null)]);
  const [second, first] = await store.usageRecords({}, { limit: 10 });
  assert.equal(first.costBreakdown, breakdown);
  assert.equal(second.costBreakdown, null);
  assert.deepEqual(
    JSON.parse(first.costBreakdown!).map((l: { class: string; cost_usd: number }) => [l.class, l.cost_usd]),
    [
      ['input', 0.00003],
      ['output', 0.0003],
      ['web_search', 0.02],
    ],
  );
}

test('SQLite keeps each row’s cost breakdown', async () => {
  const store = await openStore(':memory:');
  try {
    await roundTrip(store);
  } finally {
    await store.close();
  }
});

const pg = await pgClient();
if (pg === null) pgUnavailable('PostgreSQL keeps each row’s cost breakdown');
else {
  const { schema, url } = freshSchema('mg_cost');
  after(async () => {
    await dropSchema(pg, schema);
    await pg.end();
  });
  test('PostgreSQL keeps each row’s cost breakdown', async () => {
    const store = await openStore(url);
    try {
      await roundTrip(store);
    } finally {
      await store.close();
    }
  });
}

// An operator moving a key to a budget period that starts earlier (daily → monthly): what the key spent
// stays spent, in the running gateway and after it restarts. The running store keeps billing to the
// period it was in until the new one ends, counting from the database's total of the new period; the
// database must count those rows, and the shorter periods' rows before the change, as the new period's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { Admission } from '../../src/admission/admission.ts';
import { MemoryAdmissionStore } from '../../src/admission/memory-store.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import { GatewayError } from '../../src/core/errors.ts';
import type { UsageRow } from '../../src/store/store.ts';
import type { KeyRecord } from '../../src/core/key-record.ts';
import type { ModelConfig } from '../../src/core/config-types.ts';

const DAY = 86_400_000;
const USD = 1_000_000_000;
const NOV1 = Date.UTC(2026, 10, 1);
const NOV20 = NOV1 + 19 * DAY;
const NOV25 = NOV1 + 24 * DAY;
const NOW = NOV25 + 10 * 3_600_000;

const MODEL: ModelConfig = {
  name: 'gpt-4o',
  family: 'openai',
  mode: 'chat',
  price: null,
  maxRetries: 0,
  deployments: [],
  timeouts: { connectMs: 1000, firstByteMs: 1000, idleMs: 1000, totalMs: 1000 },
};
const BODY = { model: 'gpt-4o', max_tokens: 1, messages: [{ role: 'user', content: 'hi' }] };
const BYTES = Buffer.byteLength(JSON.stringify(BODY));
const ONE_TOKEN = { inputTokens: 1, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

const daily: KeyRecord = {
  id: 'key_p',
  name: 'p',
  hash: 'h',
  masked: 'sk-…',
  models: null,
  expiresAt: null,
  disabled: false,
  budgetUsd: 5,
  tokenBudget: null,
  budgetPeriod: 'daily',
  rpm: null,
  tpm: null,
  maxConcurrency: null,
  createdAt: 0,
};
const monthly: KeyRecord = { ...daily, budgetPeriod: 'monthly' };

function row(ts: number, periodStart: number, costNanos: number): UsageRow {
  return {
    ts,
    requestId: `req_${ts}_${costNanos}`,
    keyId: daily.id,
    endpoint: '/v1/chat/completions',
    model: 'gpt-4o',
    deployment: 'gpt-4o#0',
    status: 200,
    inputTokens: 1,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    costNanos,
    latencyMs: 1,
    ttfbMs: 1,
    streamed: false,
    attempts: 1,
    periodStart,
    errorCode: null,
    routing: null,
  };
}

test('a key moved from a daily to a monthly budget keeps what it spent this month, across a restart', async () => {
  const dir = mkdtempSync(join(os.tmpdir(), 'modelgate-period-'));
  const db = new SqliteStore(join(dir, 'm.db'));
  const gateway = (): Admission =>
    new Admission({
      store: new MemoryAdmissionStore(),
      keySpend: (k, p) => db.keySpend(k, p),
      defaultMaxTokens: 1,
      onError: () => undefined,
    });
  /** One request served and billed as the gateway bills it: to the period its settle reports. */
  async function serve(a: Admission, key: KeyRecord, now: number, costNanos: number): Promise<number> {
    const { ticket } = await a.admit({ key, model: MODEL, body: BODY, bodyBytes: BYTES, now });
    const period = await a.finish(ticket!, ONE_TOKEN, costNanos);
    await db.writeUsage([row(now, period, costNanos)]);
    return period;
  }
  try {
    // Earlier days of the month, under the daily budget.
    await db.writeUsage([row(NOV20 + 3_600_000, NOV20, 3 * USD), row(NOV25 + 3_600_000, NOV25, 1 * USD)]);
    const first = gateway();
    assert.equal(await serve(first, daily, NOW, 1 * USD), NOV25);
    // The operator changes the period; this gateway's store stays in the day it was in until the month ends.
    assert.equal(await serve(first, monthly, NOW + 1_000, 1 * USD), NOV25);
    assert.deepEqual(
      await db.keySpend(daily.id, NOV1),
      { nanos: 6 * USD, tokens: 4 },
      'the month so far: 3 + 1 + 1 + 1 USD',
    );
    assert.deepEqual(
      await db.keySpend(daily.id, NOV25),
      { nanos: 3 * USD, tokens: 3 },
      'a period counts nothing billed before it',
    );

    // A restart: the month's spend is loaded, so the 5 USD budget is used up.
    const restarted = gateway();
    const view = await restarted.view(monthly, NOW + 2_000);
    assert.equal(view.snapshot.spentNanos, 6 * USD);
    await assert.rejects(
      async () => restarted.admit({ key: monthly, model: MODEL, body: BODY, bodyBytes: BYTES, now: NOW + 3_000 }),
      (err: unknown) => err instanceof GatewayError && err.code === 'budget_exhausted',
    );
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a running gateway moved from a daily to a monthly budget counts the month at once, not only the day', async () => {
  const dir = mkdtempSync(join(os.tmpdir(), 'modelgate-period-'));
  const db = new SqliteStore(join(dir, 'm.db'));
  const a = new Admission({
    store: new MemoryAdmissionStore(),
    keySpend: (k, p) => db.keySpend(k, p),
    defaultMaxTokens: 1,
    onError: () => undefined,
  });
  try {
    // 4 USD earlier this month and 0.5 today, all under the daily budget of 5 USD.
    await db.writeUsage([row(NOV20 + 3_600_000, NOV20, 4 * USD), row(NOV25 + 3_600_000, NOV25, USD / 2)]);
    const { ticket } = await a.admit({ key: daily, model: MODEL, body: BODY, bodyBytes: BYTES, now: NOW });
    assert.equal(await a.finish(ticket!, ONE_TOKEN, USD / 2), NOV25);
    assert.equal(
      (await a.view(daily, NOW)).snapshot.spentNanos,
      1 * USD,
      'today: 0.5 from the database and 0.5 served',
    );

    // Moved to monthly (5 USD a month): the month's 4.5 USD in the database count now, and today's 0.5
    // served here (not yet in the database) stays counted.
    const view = await a.view(monthly, NOW + 1_000);
    assert.equal(view.snapshot.spentNanos, 4.5 * USD);
    const second = await a.admit({ key: monthly, model: MODEL, body: BODY, bodyBytes: BYTES, now: NOW + 2_000 });
    assert.equal(
      await a.finish(second.ticket!, ONE_TOKEN, USD),
      NOV25,
      'billed to the day it was in until the month ends',
    );
    await assert.rejects(
      async () => a.admit({ key: monthly, model: MODEL, body: BODY, bodyBytes: BYTES, now: NOW + 3_000 }),
      (err: unknown) => err instanceof GatewayError && err.code === 'budget_exhausted',
      "5.5 USD spent of the month's 5",
    );
    // The next day is still the same month: nothing resets.
    await assert.rejects(
      async () => a.admit({ key: monthly, model: MODEL, body: BODY, bodyBytes: BYTES, now: NOW + DAY }),
      (err: unknown) => err instanceof GatewayError && err.code === 'budget_exhausted',
    );
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a total still loading when the key moves to a later-starting period does not reach the store', async () => {
  const loads: Array<{ period: number; resolve: (t: { nanos: number; tokens: number }) => void }> = [];
  const a = new Admission({
    store: new MemoryAdmissionStore(),
    keySpend: (_k, period) => new Promise((resolve) => loads.push({ period, resolve })),
    defaultMaxTokens: 1,
    onError: () => undefined,
  });
  // Monthly: the month's total starts loading with the first request.
  const first = a.admit({ key: monthly, model: MODEL, body: BODY, bodyBytes: BYTES, now: NOW });
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(
    loads.map((l) => l.period),
    [NOV1],
  );
  // Moved to daily before that load answers: the day loads its own total (nothing spent today).
  const second = a.admit({ key: daily, model: MODEL, body: BODY, bodyBytes: BYTES, now: NOW + 1 });
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(
    loads.map((l) => l.period),
    [NOV1, NOV25],
  );
  loads[1].resolve({ nanos: 0, tokens: 0 });
  await second;
  // The month's 9 USD arrive late: they are not today's spend.
  loads[0].resolve({ nanos: 9 * USD, tokens: 9 });
  await first;
  assert.equal((await a.view(daily, NOW + 2)).snapshot.spentNanos, 0);
});

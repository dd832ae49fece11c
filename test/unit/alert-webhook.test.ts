// Delivering one alert: retried with a doubling pause while the receiver fails with 5xx, not after a 4xx;
// each format's body; the alerter claims an event once and marks lower thresholds passed with it superseded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bodyOf, deliver } from '../../src/admin/alerts/webhook.ts';
import { Alerter } from '../../src/admin/alerts/alerter.ts';
import { openAlertLog } from '../../src/store/alert-log.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';
import type { KeyRecord } from '../../src/core/key-record.ts';
import type { UsageRow } from '../../src/store/store.ts';

const ALERT = {
  id: 'circuit_open:x#0:1',
  event: 'circuit_open',
  at: 0,
  summary: 'x#0 is out',
  data: { deployment: 'x#0' },
};
const FAST = { attempts: 4, firstPauseMs: 1, timeoutMs: 5_000 };

test('a failing receiver is tried again until it takes the alert; a 4xx ends the tries', async () => {
  const hook = await startWebhookReceiver();
  try {
    hook.failNext(2, 503);
    const ok = await deliver({ url: hook.url, events: ['circuit_open'], format: 'json' }, ALERT, FAST);
    assert.deepEqual(ok, { ok: true, attempts: 3, error: null });
    assert.equal(hook.received.length, 1);
    hook.failNext(5, 404);
    const refused = await deliver({ url: hook.url, events: ['circuit_open'], format: 'json' }, ALERT, FAST);
    assert.deepEqual(refused, { ok: false, attempts: 1, error: 'HTTP 404' });
    hook.failNext(10, 500);
    const down = await deliver({ url: hook.url, events: ['circuit_open'], format: 'json' }, ALERT, FAST);
    assert.deepEqual(down, { ok: false, attempts: 4, error: 'HTTP 500' });
  } finally {
    await hook.close();
  }
});

test('the JSON and Slack bodies', () => {
  assert.deepEqual(JSON.parse(bodyOf(ALERT, 'json')), {
    id: ALERT.id,
    event: 'circuit_open',
    at: '1970-01-01T00:00:00.000Z',
    summary: 'x#0 is out',
    data: { deployment: 'x#0' },
  });
  const slack = JSON.parse(bodyOf(ALERT, 'slack')) as { text: string; blocks: unknown[] };
  assert.equal(slack.text, 'x#0 is out');
  assert.equal(slack.blocks.length, 1);
});

const KEY: KeyRecord = {
  id: 'k1',
  name: 'svc',
  hash: 'h',
  masked: 'sk-a…zzzz',
  models: null,
  expiresAt: null,
  disabled: false,
  budgetUsd: 10,
  tokenBudget: null,
  budgetPeriod: null,
  rpm: null,
  tpm: null,
  maxConcurrency: null,
  createdAt: 0,
};
const ROW = { keyId: 'k1', periodStart: 0, costNanos: 1, inputTokens: 1, outputTokens: 1 } as UsageRow;

test('thresholds passed at once send the highest; a second alerter on the same log sends nothing again', async () => {
  const hook = await startWebhookReceiver();
  const log = await openAlertLog(':memory:', false);
  let spentUsd = 8.5;
  const make = () =>
    new Alerter({
      config: {
        webhooks: [{ url: hook.url, events: ['budget_threshold'], format: 'json' }],
        budgetThresholds: [50, 80, 100],
        keyExpiringMs: 1,
      },
      log,
      logger: { warn: () => undefined, info: () => undefined },
      keys: () => [KEY],
      keySpend: async () => ({ nanos: spentUsd * 1e9, tokens: 0 }),
      delivery: FAST,
    });
  try {
    const first = make();
    first.rowsWritten([ROW]);
    first.rowsWritten([ROW]);
    await first.idle();
    assert.deepEqual(
      hook.received.map((r) => (r.body.data as { threshold_pct: number }).threshold_pct),
      [80],
    );
    // As after a restart: a new process, the same database.
    const second = make();
    second.rowsWritten([ROW]);
    await second.idle();
    assert.equal(hook.received.length, 1);
    spentUsd = 10;
    second.rowsWritten([ROW]);
    await second.idle();
    assert.deepEqual(
      hook.received.map((r) => (r.body.data as { threshold_pct: number }).threshold_pct),
      [80, 100],
    );
    const statuses = (await log.list({ limit: 10 })).map((a) => [a.id.split(':').pop(), a.status]).sort();
    assert.deepEqual(statuses, [
      ['100', 'delivered'],
      ['50', 'superseded'],
      ['80', 'delivered'],
    ]);
  } finally {
    await log.close();
    await hook.close();
  }
});

test('a key expiring within the window is told once; one expiring later, or already expired, is not', async () => {
  const hook = await startWebhookReceiver();
  const log = await openAlertLog(':memory:', false);
  const now = 1_800_000_000_000;
  const day = 86_400_000;
  const keys: KeyRecord[] = [
    { ...KEY, id: 'soon', name: 'soon', expiresAt: now + 2 * day },
    { ...KEY, id: 'later', name: 'later', expiresAt: now + 30 * day },
    { ...KEY, id: 'gone', name: 'gone', expiresAt: now - day },
    { ...KEY, id: 'off', name: 'off', expiresAt: now + day, disabled: true },
  ];
  const alerter = new Alerter({
    config: {
      webhooks: [{ url: hook.url, events: ['key_expiring'], format: 'json' }],
      budgetThresholds: [80],
      keyExpiringMs: 7 * day,
    },
    log,
    logger: { warn: () => undefined, info: () => undefined },
    keys: () => keys,
    keySpend: async () => ({ nanos: 0, tokens: 0 }),
    now: () => now,
    delivery: FAST,
  });
  try {
    await alerter.checkExpiring();
    await alerter.checkExpiring();
    await alerter.idle();
    assert.deepEqual(
      hook.received.map((r) => [r.body.event, (r.body.data as { key_id: string }).key_id]),
      [['key_expiring', 'soon']],
    );
    assert.match(String(hook.received[0].body.summary), /"soon" .* expires on .* \(in 2 days\)/);
  } finally {
    await alerter.stop();
    await log.close();
    await hook.close();
  }
});

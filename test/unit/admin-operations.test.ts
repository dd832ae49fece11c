// The operations behind the CLI and the admin API: key changes tell the serving gateway, errors say which
// kind they are (400, 404, 409), report ranges and groupings parse strictly, and CSV cannot smuggle formulas.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import { createKey, deleteKey, findKeyOrFail, updateKey } from '../../src/admin/operations/key-operations.ts';
import {
  latestRequests,
  parseGroupBy,
  toCsv,
  usageFilter,
  usageReport,
} from '../../src/admin/operations/usage-operations.ts';
import { percentile } from '../../src/store/usage-report-sql.ts';
import { createKeyBody, keyPatchFromBody, updateKeyBody } from '../../src/admin/api/key-bodies.ts';
import { hashKey } from '../../src/auth/key-material.ts';

test('key operations: every change calls `changed`; the key is hashed at rest; name clashes are conflicts, unknown keys not found', async () => {
  const store = new SqliteStore(':memory:');
  let changes = 0;
  const ops = { store, changed: async () => void changes++ };
  const { key, record } = await createKey(ops, { name: '  alice ', rpm: 5 });
  assert.equal(record.name, 'alice');
  assert.equal((await store.findKey('alice'))?.hash, hashKey(key));
  assert.equal(changes, 1);
  await assert.rejects(createKey(ops, { name: 'alice' }), { name: 'UsageError', kind: 'conflict' });
  await assert.rejects(createKey(ops, { name: '   ' }), { name: 'UsageError', kind: 'invalid' });
  const bob = await createKey(ops, { name: 'bob' });
  await assert.rejects(updateKey(ops, 'bob', { name: 'alice' }), { kind: 'conflict' });
  assert.equal(
    (await updateKey(ops, bob.record.id, { rpm: null, name: 'bob' })).rpm,
    null,
    'keeping its own name is no clash',
  );
  await assert.rejects(findKeyOrFail(store, 'carol'), { kind: 'not_found' });
  await deleteKey(ops, 'alice');
  assert.equal(changes, 4);
  await assert.rejects(deleteKey(ops, 'alice'), { kind: 'not_found' });
  await store.close();
});

test('key bodies: snake_case to the record, null clears, ["*"] is every model, unknown fields and bad values refused', () => {
  assert.deepEqual(
    keyPatchFromBody(
      createKeyBody.parse({
        name: 'a',
        models: ['*'],
        expires_at: '2027-01-01',
        budget_usd: 1.5,
        budget_period: 'weekly',
        concurrency: 2,
      }),
    ),
    {
      name: 'a',
      models: null,
      expiresAt: Date.UTC(2027, 0, 1),
      budgetUsd: 1.5,
      budgetPeriod: 'weekly',
      maxConcurrency: 2,
    },
  );
  assert.deepEqual(keyPatchFromBody(updateKeyBody.parse({ rpm: null, disabled: true })), { rpm: null, disabled: true });
  assert.equal(createKeyBody.safeParse({}).success, false, 'a name is required');
  assert.equal(createKeyBody.safeParse({ name: 'a', colour: 'red' }).success, false);
  assert.equal(updateKeyBody.safeParse({ rpm: 1.5 }).success, false);
  assert.equal(updateKeyBody.safeParse({ budget_usd: -1 }).success, false);
  assert.equal(updateKeyBody.safeParse({ expires_at: 'tomorrow' }).success, false);
});

test('report queries: group_by names known dimensions once; a date-only `to` includes its day; from must precede to', async () => {
  const store = new SqliteStore(':memory:');
  assert.deepEqual(parseGroupBy('day, model'), ['day', 'model']);
  assert.deepEqual(parseGroupBy(undefined), []);
  assert.throws(() => parseGroupBy('week'), /group_by takes/);
  assert.throws(() => parseGroupBy('key,key'), /twice/);
  const now = Date.UTC(2026, 10, 26, 12);
  assert.deepEqual(await usageFilter(store, { from: '2026-11-01', to: '2026-11-02' }, { now }), {
    fromMs: Date.UTC(2026, 10, 1),
    toMs: Date.UTC(2026, 10, 3),
  });
  assert.deepEqual(await usageFilter(store, { from: String(now - 5), to: '2026-11-26T12:00:00Z' }, { now }), {
    fromMs: now - 5,
    toMs: now,
  });
  assert.equal((await usageFilter(store, {}, { now })).toMs, now + 1, 'up to and including now');
  assert.equal((await usageFilter(store, {}, { now })).fromMs, now + 1 - 30 * 86_400_000);
  await assert.rejects(usageFilter(store, { from: '2026-11-03', to: '2026-11-02' }, { now }), /from must be before to/);
  await assert.rejects(usageFilter(store, { from: 'last week' }, { now }), /ISO-8601/);
  await assert.rejects(latestRequests(store, { limit: 0 }), /limit/);
  const empty = await usageReport(store, { groupBy: ['model'] }, now);
  assert.deepEqual([empty.groups, empty.totals.requests, empty.totals.latency_p50_ms], [[], 0, null]);
  await store.close();
});

test('CSV: RFC 4180 quoting, empty cells for null, and cells a spreadsheet would run as formulas kept as text', () => {
  const csv = toCsv([
    { model: 'a,b', key_name: '=HYPERLINK("x")', n: 3, none: null, neg: -1 },
    { model: 'say "hi"', key_name: '+1', n: 0, none: null, neg: 2 },
  ]);
  assert.equal(csv, 'model,key_name,n,none,neg\r\n"a,b","\'=HYPERLINK(""x"")",3,,-1\r\n"say ""hi""",\'+1,0,,2\r\n');
  assert.equal(toCsv([]), '');
});

test('percentile: nearest rank', () => {
  assert.equal(percentile([], 0.5), null);
  assert.equal(percentile([7], 0.99), 7);
  const hundred = Array.from({ length: 100 }, (_, i) => i + 1);
  assert.deepEqual([percentile(hundred, 0.5), percentile(hundred, 0.95), percentile(hundred, 0.99)], [50, 95, 99]);
});

// The Store contract, run against both implementations: SQLite (in memory) and PostgreSQL (a schema of
// its own per store, dropped after). PostgreSQL is required in CI (CI=true) and skipped locally without it.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import { PostgresStore } from '../../src/store/postgres-store.ts';
import { spendFrom } from '../../src/admin/operations/key-operations.ts';
import { maskDatabaseUrl, parseDatabaseUrl } from '../../src/store/database-url.ts';
import { dropSchema, freshSchema, pgClient, pgUnavailable } from '../helpers/postgres.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store, UsageRow } from '../../src/store/store.ts';
import type { KeyRecord } from '../../src/core/key-record.ts';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 10, 1, 12);

function key(over: Partial<KeyRecord>): KeyRecord {
  return {
    id: 'key_a',
    name: 'alice',
    hash: 'a'.repeat(64),
    masked: 'sk-a…aaaa',
    models: null,
    expiresAt: null,
    disabled: false,
    budgetUsd: null,
    tokenBudget: null,
    budgetPeriod: null,
    rpm: null,
    tpm: null,
    maxConcurrency: null,
    createdAt: T0,
    mcpTools: null,
    team: null,
    ...over,
  };
}

/** Rows as plain data: SQLite gives null-prototype objects, the PostgreSQL client an array subclass. */
const plain = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;

function row(over: Partial<UsageRow>): UsageRow {
  return {
    ts: T0,
    requestId: 'req_1',
    keyId: 'key_a',
    endpoint: '/v1/chat/completions',
    model: 'gpt-4o',
    deployment: 'gpt-4o#0',
    status: 200,
    inputTokens: 10,
    outputTokens: 5,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    costNanos: 100,
    latencyMs: 3,
    ttfbMs: 2,
    streamed: false,
    attempts: 1,
    periodStart: 0,
    errorCode: null,
    routing: null,
    ...over,
  };
}

function contract(name: string, open: () => Promise<Store>): void {
  describe(`store contract: ${name}`, () => {
    test('a rotated key is found by its old digest too; a deleted key leaves its name, masked form and team', async () => {
      const store = await open();
      try {
        await store.insertKey(key({ team: 'platform' }));
        const v0 = await store.keysVersion();
        assert.equal(
          await store.rotateKey('key_a', {
            hash: 'c'.repeat(64),
            masked: 'sk-c…cccc',
            previousHash: 'a'.repeat(64),
            previousUntil: T0 + DAY,
          }),
          true,
        );
        assert.ok((await store.keysVersion()) > v0, 'a rotation moves the version');
        const rotated = await store.findKey('key_a');
        assert.deepEqual(
          [rotated?.hash, rotated?.masked, rotated?.previousHash, rotated?.previousUntil],
          ['c'.repeat(64), 'sk-c…cccc', 'a'.repeat(64), T0 + DAY],
        );
        assert.equal((await store.findKeyByHash('a'.repeat(64)))?.id, 'key_a', 'by the old digest');
        assert.equal((await store.findKeyByHash('c'.repeat(64)))?.id, 'key_a', 'by the new digest');
        await store.writeUsage([row({ requestId: 'gone-1' })]);
        assert.equal(await store.deleteKey('key_a'), true);
        assert.equal(await store.findKey('key_a'), null);
        assert.equal(await store.findKeyByHash('a'.repeat(64)), null);
        assert.deepEqual(plain(await store.listDeletedKeys()), [
          { id: 'key_a', name: 'alice', masked: 'sk-c…cccc', team: 'platform' },
        ]);
        const [r] = await store.usageRecords({}, { limit: 10 });
        assert.deepEqual([r.keyName, r.keyMasked], ['alice', 'sk-c…cccc'], 'the row still names its key');
        assert.equal((await store.usageRecords({ team: 'platform' }, { limit: 10 })).length, 1, 'and its team');
        // The request log's filters, alike on both databases: a substring in any case, a % taken literally.
        assert.equal((await store.usageRecords({ text: 'LIC' }, { limit: 10 })).length, 1, 'the key name, any case');
        assert.equal((await store.usageRecords({ text: 'gone-' }, { limit: 10 })).length, 1, 'the request id');
        assert.equal((await store.usageRecords({ text: '%' }, { limit: 10 })).length, 0);
        assert.equal((await store.usageRecords({ text: '_' }, { limit: 10 })).length, 0);
        assert.equal((await store.usageRecords({ requestId: 'gone-1' }, { limit: 10 })).length, 1);
        assert.equal((await store.usageRecords({ status: { min: 200, max: 299 } }, { limit: 10 })).length, 1);
        assert.equal((await store.usageRecords({ status: { min: 400, max: 499 } }, { limit: 10 })).length, 0);
        await store.insertKey(key({ id: 'key_c', name: 'carol', hash: 'd'.repeat(64) }));
        await store.writeUsage([
          row({ requestId: 'solo-1', keyId: 'key_c' }),
          row({ requestId: 'solo-2', keyId: 'key_c' }),
        ]);
        assert.deepEqual(
          (await store.usageGroups({}, ['team'])).map((g) => [g.dims[0], g.requests]),
          [
            [null, 2],
            ['platform', 1],
          ],
          'grouped by team: a deleted key counts to the team it had',
        );
      } finally {
        await store.close();
      }
    });

    test('keys: insert, find by id or name, list, update, delete; every change moves the version', async () => {
      const store = await open();
      try {
        const v0 = await store.keysVersion();
        await store.insertKey(key({}));
        await store.insertKey(
          key({
            id: 'key_b',
            name: 'alice',
            hash: 'b'.repeat(64),
            createdAt: T0 + 1,
            models: ['gpt-4o', 'claude-*'],
            mcpTools: ['github__*'],
            team: 'platform',
            budgetUsd: 12.5,
            budgetPeriod: 'monthly',
            rpm: 60,
            expiresAt: T0 + DAY,
          }),
        );
        const v1 = await store.keysVersion();
        assert.ok(v1 > v0);
        assert.equal((await store.findKey('key_a'))?.name, 'alice');
        const byName = await store.findKey('alice');
        assert.equal(byName?.id, 'key_b', 'by name, the newest');
        assert.deepEqual(
          byName,
          key({
            id: 'key_b',
            name: 'alice',
            hash: 'b'.repeat(64),
            createdAt: T0 + 1,
            models: ['gpt-4o', 'claude-*'],
            mcpTools: ['github__*'],
            team: 'platform',
            budgetUsd: 12.5,
            budgetPeriod: 'monthly',
            rpm: 60,
            expiresAt: T0 + DAY,
          }),
        );
        assert.equal(await store.findKey('nobody'), null);
        assert.equal(
          (await store.findKeyByHash('b'.repeat(64)))?.id,
          'key_b',
          'by digest (a key the cache does not know yet)',
        );
        assert.equal(await store.findKeyByHash('c'.repeat(64)), null);
        assert.deepEqual(
          (await store.listKeys()).map((k) => k.id),
          ['key_a', 'key_b'],
        );
        assert.equal(
          await store.updateKey('key_a', { disabled: true, models: ['m'], tokenBudget: 1_000, maxConcurrency: 3 }),
          true,
        );
        const updated = await store.findKey('key_a');
        assert.deepEqual(
          [updated?.disabled, updated?.models, updated?.tokenBudget, updated?.maxConcurrency],
          [true, ['m'], 1_000, 3],
        );
        const v2 = await store.keysVersion();
        assert.ok(v2 > v1);
        assert.equal(await store.updateKey('key_a', { models: null, budgetPeriod: null }), true);
        assert.equal((await store.findKey('key_a'))?.models, null);
        assert.equal(await store.updateKey('missing', { disabled: true }), false);
        assert.equal(await store.updateKey('key_a', {}), true, 'an empty patch of a known key');
        const v3 = await store.keysVersion();
        assert.equal(await store.deleteKey('key_b'), true);
        assert.equal(await store.deleteKey('key_b'), false);
        assert.ok((await store.keysVersion()) > v3);
        assert.deepEqual(
          (await store.listKeys()).map((k) => k.id),
          ['key_a'],
        );
      } finally {
        await store.close();
      }
    });

    test('usage: rows and the spend they add; a period counts what was billed to periods starting within it', async () => {
      const store = await open();
      try {
        await store.insertKey(key({}));
        const big = 2 ** 50;
        await store.writeUsage([
          row({ requestId: 'r1', periodStart: T0 - DAY }),
          row({ requestId: 'r2', periodStart: T0, costNanos: big, ts: T0 + 1 }),
          row({
            requestId: 'r3',
            periodStart: T0,
            status: 502,
            costNanos: 0,
            inputTokens: 0,
            outputTokens: 0,
            deployment: null,
            ttfbMs: null,
            errorCode: 'upstream_error',
            ts: T0 + 2,
          }),
          row({
            requestId: 'r4',
            keyId: 'key_gone',
            model: 'claude',
            streamed: true,
            cacheReadTokens: 7,
            ts: T0 + DAY,
          }),
        ]);
        assert.deepEqual(await store.keySpend('key_a', T0), { nanos: big, tokens: 15 });
        assert.deepEqual(await store.keySpend('key_a', T0 - DAY), { nanos: big + 100, tokens: 30 });
        assert.deepEqual(await store.keySpend('key_a', T0 + DAY), { nanos: 0, tokens: 0 });
        assert.deepEqual(await store.keySpend('key_gone', 0), { nanos: 100, tokens: 22 });
        // A listing's one read answers each subject's spend as keySpend does for it alone.
        for (const since of [0, T0 - DAY, T0]) {
          const rows = await store.spendByPeriod(since);
          assert.ok(rows.every((r) => r.periodStart >= since && typeof r.nanos === 'number'));
          for (const subject of ['key_a', 'key_gone'])
            for (const start of [since, T0, T0 + DAY])
              assert.deepEqual(
                spendFrom(
                  rows.filter((r) => r.keyId === subject),
                  start,
                ),
                await store.keySpend(subject, start),
                `${subject} from ${start}, rows since ${since}`,
              );
        }
        const all = plain(await store.usageSummary({ sinceMs: 0 }));
        assert.deepEqual(all, [
          {
            day: '2026-11-01',
            keyId: 'key_a',
            keyName: 'alice',
            model: 'gpt-4o',
            requests: 3,
            errors: 1,
            inputTokens: 20,
            outputTokens: 10,
            costNanos: big + 100,
          },
          {
            day: '2026-11-02',
            keyId: 'key_gone',
            keyName: null,
            model: 'claude',
            requests: 1,
            errors: 0,
            inputTokens: 17,
            outputTokens: 5,
            costNanos: 100,
          },
        ]);
        assert.deepEqual(
          (await store.usageSummary({ sinceMs: T0 + DAY })).map((r) => r.keyId),
          ['key_gone'],
        );
        assert.deepEqual(
          (await store.usageSummary({ keyId: 'key_a' })).map((r) => r.requests),
          [3],
        );
      } finally {
        await store.close();
      }
    });

    test('the request log keeps the error message and the attempts; one row by its id; each key’s last use', async () => {
      const store = await open();
      try {
        await store.insertKey(key({ team: 'platform' }));
        const attempts = JSON.stringify([
          { deployment: 'gpt-4o#0', status: 500, outcome: 'status_500', duration_ms: 12 },
          { deployment: 'gpt-4o#1', status: null, outcome: 'timeout', duration_ms: 30000 },
        ]);
        await store.writeUsage([
          row({ requestId: 'ok-1', ts: T0, attemptLog: '[]' }),
          row({
            requestId: 'failed-1',
            ts: T0 + 5,
            status: 502,
            errorCode: 'upstream_error',
            errorMessage: 'Upstream said: quota "exceeded" for sk-u…XYZa',
            attemptLog: attempts,
          }),
          row({ requestId: 'other-key', keyId: 'key_b', ts: T0 - DAY }),
        ]);
        await store.writeUsage([row({ requestId: 'older', ts: T0 - 1 })]);
        const [failed] = await store.usageRecords({ requestId: 'failed-1' }, { limit: 1 });
        assert.equal(failed.errorMessage, 'Upstream said: quota "exceeded" for sk-u…XYZa');
        assert.equal(failed.attemptLog, attempts);
        assert.equal(failed.keyTeam, 'platform');
        const [byId] = await store.usageRecords({ rowId: failed.id }, { limit: 1 });
        assert.equal(byId.requestId, 'failed-1');
        assert.equal((await store.usageRecords({ text: 'EXCEEDED' }, { limit: 10 })).length, 1, 'q finds the message');
        const [ok] = await store.usageRecords({ requestId: 'ok-1' }, { limit: 1 });
        assert.equal(ok.errorMessage, null);
        const lastUsed = await store.keysLastUsed!();
        assert.equal(lastUsed.get('key_a'), T0 + 5, 'the newest row of the key, not the last written');
        assert.equal(lastUsed.get('key_b'), T0 - DAY, 'a key the store no longer has keeps its time');
        assert.equal(lastUsed.has('key_never'), false);
      } finally {
        await store.close();
      }
    });

    test('usage text survives as written: quotes, backslashes, commas, braces, NULL as a word, non-ASCII', async () => {
      const store = await open();
      try {
        const odd = ['we"ird\\mo,del{}', 'NULL', '', '模型 🚀 ünïcode', 'a\nb'];
        await store.writeUsage(
          odd.map((model, i) =>
            row({ requestId: `r${i}`, model, errorCode: model || null, deployment: i === 0 ? null : model }),
          ),
        );
        const models = plain(await store.usageSummary({}))
          .map((r) => r.model)
          .sort();
        assert.deepEqual(models, [...odd].sort());
      } finally {
        await store.close();
      }
    });

    test('admin reports: totals per day, hour, model, key and deployment; latency percentiles; filters', async () => {
      const store = await open();
      try {
        await store.insertKey(key({}));
        const HOUR = 3_600_000;
        await store.writeUsage([
          row({ requestId: 'a1', latencyMs: 10, cacheReadTokens: 4 }),
          row({ requestId: 'a2', latencyMs: 30, ts: T0 + HOUR, costNanos: 300 }),
          row({
            requestId: 'a3',
            latencyMs: 20,
            ts: T0 + HOUR + 5,
            status: 502,
            errorCode: 'upstream_error',
            deployment: null,
            inputTokens: 0,
            outputTokens: 0,
            costNanos: 0,
          }),
          row({
            requestId: 'b1',
            keyId: 'key_gone',
            model: 'claude',
            deployment: 'claude#1',
            latencyMs: 7,
            ts: T0 + DAY,
            cacheWriteTokens: 2,
            routing: 'panic',
          }),
        ]);
        const range = { fromMs: T0 - DAY, toMs: T0 + 2 * DAY };
        const byModel = plain(await store.usageGroups(range, ['model']));
        assert.deepEqual(byModel, [
          {
            dims: ['claude'],
            requests: 1,
            errors: 0,
            inputTokens: 10,
            outputTokens: 5,
            cacheReadTokens: 0,
            cacheWriteTokens: 2,
            costNanos: 100,
            latencyP50Ms: 7,
            latencyP95Ms: 7,
            latencyP99Ms: 7,
          },
          {
            dims: ['gpt-4o'],
            requests: 3,
            errors: 1,
            inputTokens: 20,
            outputTokens: 10,
            cacheReadTokens: 4,
            cacheWriteTokens: 0,
            costNanos: 400,
            latencyP50Ms: 20,
            latencyP95Ms: 30,
            latencyP99Ms: 30,
          },
        ]);
        const byDay = plain(await store.usageGroups(range, ['day']));
        assert.deepEqual(
          byDay.map((g) => [g.dims[0], g.requests]),
          [
            [Date.UTC(2026, 10, 1), 3],
            [Date.UTC(2026, 10, 2), 1],
          ],
        );
        const byHourKey = plain(await store.usageGroups({ ...range, keyId: 'key_a' }, ['hour', 'key']));
        assert.deepEqual(
          byHourKey.map((g) => [g.dims, g.requests, g.errors]),
          [
            [[T0, 'key_a'], 1, 0],
            [[T0 + HOUR, 'key_a'], 2, 1],
          ],
        );
        const byDeployment = plain(await store.usageGroups(range, ['deployment']));
        assert.deepEqual(
          byDeployment.map((g) => g.dims[0]),
          [null, 'claude#1', 'gpt-4o#0'],
          'no deployment (nothing reached) sorts first on both',
        );
        const all = plain(await store.usageGroups(range, []));
        assert.equal(all.length, 1);
        assert.equal(all[0].requests, 4);
        assert.deepEqual(
          plain(await store.usageGroups({ fromMs: T0 + 2 * DAY, toMs: T0 + 3 * DAY }, ['model'])),
          [],
          'an empty range has no groups',
        );
        assert.deepEqual(
          plain(await store.usageGroups({ ...range, model: 'claude' }, ['key'])).map((g) => g.dims),
          [['key_gone']],
        );
        assert.equal((await store.usageGroups({ ...range, errorsOnly: true }, []))[0].requests, 1);

        const newest = await store.usageRecords(range, { limit: 2 });
        assert.deepEqual(
          newest.map((r) => r.requestId),
          ['b1', 'a3'],
        );
        assert.equal(newest[0].keyMasked, null, 'a deleted key has no masked form to show');
        assert.deepEqual(
          newest.map((r) => r.routing),
          ['panic', null],
          'a panic-routed request says so in its row',
        );
        assert.deepEqual(
          [
            newest[1].keyName,
            newest[1].keyMasked,
            newest[1].status,
            newest[1].errorCode,
            newest[1].deployment,
            newest[1].ttfbMs,
            newest[1].streamed,
          ],
          ['alice', 'sk-a…aaaa', 502, 'upstream_error', null, 2, false],
        );
        const next = await store.usageRecords(range, { limit: 2, beforeId: newest[1].id });
        assert.deepEqual(
          next.map((r) => r.requestId),
          ['a2', 'a1'],
        );
        assert.deepEqual(
          (await store.usageRecords(range, { limit: 2, beforeId: next[1].id })).map((r) => r.requestId),
          [],
        );
        assert.deepEqual(
          (await store.usageRecords({ ...range, deployment: 'claude#1' }, { limit: 10 })).map((r) => r.requestId),
          ['b1'],
        );
        assert.deepEqual(
          (await store.usageRecords({ ...range, errorsOnly: true, keyId: 'key_a' }, { limit: 10 })).map(
            (r) => r.requestId,
          ),
          ['a3'],
        );
      } finally {
        await store.close();
      }
    });

    test('a usage batch is all or nothing', async () => {
      const store = await open();
      try {
        const rows = Array.from({ length: 30 }, (_, i) => row({ requestId: `r${i}` }));
        (rows[20] as { requestId: string | null }).requestId = null;
        await assert.rejects(store.writeUsage(rows));
        assert.deepEqual(plain(await store.usageSummary({})), []);
        assert.deepEqual(await store.keySpend('key_a', 0), { nanos: 0, tokens: 0 });
        await store.writeUsage([row({ requestId: 'after' })]);
        assert.deepEqual(await store.keySpend('key_a', 0), { nanos: 100, tokens: 15 });
      } finally {
        await store.close();
      }
    });
  });
}

contract('sqlite', async () => new SqliteStore(':memory:'));

const pg = await pgClient();
if (pg === null) {
  pgUnavailable('store contract: postgres');
} else {
  const schemas: string[] = [];
  after(async () => {
    for (const s of schemas) await dropSchema(pg, s);
    await pg.end();
  });
  /** A fresh schema per store: each contract test starts from an empty database. */
  const freshUrl = (): string => {
    const { schema, url } = freshSchema('mg_test');
    schemas.push(schema);
    return url;
  };
  contract('postgres', async () => openStore(freshUrl()));

  test('postgres: replicas starting at once migrate one after the other; a second open finds the tables made', async () => {
    const url = freshUrl();
    const stores = await Promise.all([PostgresStore.open(url), PostgresStore.open(url), PostgresStore.open(url)]);
    try {
      await stores[0].insertKey(key({}));
      assert.equal((await stores[2].findKey('key_a'))?.name, 'alice', 'one database, seen by every replica');
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
    const again = await PostgresStore.open(url);
    assert.equal((await again.listKeys()).length, 1);
    await again.close();
  });

  test('postgres: an unreachable server is an error that names it with the password masked', async () => {
    await assert.rejects(PostgresStore.open('postgres://mg:s3cret-pass@127.0.0.1:1/test'), (err: Error) => {
      assert.match(err.message, /PostgreSQL at postgres:\/\/mg:\*\*\*\*@127\.0\.0\.1:1\/test/);
      assert.ok(!err.message.includes('s3cret-pass'));
      return true;
    });
  });
}

test('database URLs: ?schema= picks the schema and is not sent to the server; anything but an identifier is refused', () => {
  assert.deepEqual(parseDatabaseUrl('postgres://u@h:5432/db?schema=mg_prod&sslmode=require'), {
    url: 'postgres://u@h:5432/db?sslmode=require',
    schema: 'mg_prod',
  });
  assert.deepEqual(parseDatabaseUrl('postgresql://u@h/db'), { url: 'postgresql://u@h/db', schema: null });
  assert.throws(() => parseDatabaseUrl('postgres://u@h/db?schema=a;drop'), /plain identifier/);
  assert.equal(maskDatabaseUrl('postgres://u:pw@h/db'), 'postgres://u:****@h/db');
});

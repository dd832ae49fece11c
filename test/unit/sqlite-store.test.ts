// The SQLite store's usage table: writes that leave the event loop free and commit once, an index that serves the
// reports' time range, and older databases that migrate.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { SqliteStore, USAGE_SUMMARY_SQL } from '../../src/store/sqlite-store.ts';
import { SqliteEntryStore } from '../../src/store/sqlite-entry-store.ts';
import { WRITER_THREAD_NAME } from '../../src/store/usage-thread.ts';
import type { UsageRow } from '../../src/store/store.ts';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 10, 1);

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

function withDir(fn: (dir: string) => Promise<void>): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(os.tmpdir(), 'modelgate-store-'));
    try {
      await fn(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

function usageIndexes(path: string): string[] {
  const db = new DatabaseSync(path);
  try {
    return (
      db
        .prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'usage' ORDER BY name`)
        .all() as Array<{ name: string }>
    ).map((r) => r.name);
  } finally {
    db.close();
  }
}

test(
  'the report searches the ts index for its time range instead of scanning every row',
  withDir(async (dir) => {
    const path = join(dir, 'm.db');
    const store = new SqliteStore(path);
    await store.close();
    assert.deepEqual(usageIndexes(path), ['usage_ts']);
    const db = new DatabaseSync(path);
    try {
      for (const key of [null, 'key_a']) {
        const plan = (
          db.prepare(`EXPLAIN QUERY PLAN ${USAGE_SUMMARY_SQL}`).all(T0, key, key) as Array<{ detail: string }>
        ).map((r) => r.detail);
        assert.ok(
          plan.some((d) => /SEARCH u USING INDEX usage_ts \(ts>\?\)/.test(d)),
          plan.join('; '),
        );
      }
    } finally {
      db.close();
    }
  }),
);

test(
  'the serving gateway beat, the bodies purge and an admin change leave the WAL checkpoint to the writer thread, off the event loop',
  withDir(async (dir) => {
    const path = join(dir, 'm.db');
    const store = new SqliteStore(path, { sliceRows: 64 });
    try {
      // Enough rows for a WAL past a lone event-loop connection's 100 pages and short of the writer
      // thread's 1,000: a commit of the loop's own would find a checkpoint due, the thread's does not.
      const rows = Array.from({ length: 6_000 }, (_, i) => row({ requestId: `r${i}`, ts: T0 + i }));
      await store.writeUsage(rows);
      const walPages = statSync(`${path}-wal`).size / 4096;
      assert.ok(walPages > 150 && walPages < 900, `a WAL of ${walPages} pages`);
      const before = statSync(path).size;
      const beat = { id: 'gw1', host: 'h', pid: process.pid, startedAt: T0, shared: false };
      // A purge sent while a batch is on its way runs on the thread after that batch's commit, not inside it.
      const [, purged] = await Promise.all([
        store.writeUsage(rows.slice(0, 200).map((r) => ({ ...r, requestId: `again-${r.requestId}` }))),
        store.purgeBodies(T0),
        store.putGateway({ ...beat, beatAt: T0 }),
      ]);
      assert.equal(purged, 0);
      await store.putGateway({ ...beat, beatAt: T0 + 5_000 });
      // An admin's change to providers or models commits on the event loop, on the same file.
      const entries = new SqliteEntryStore(path);
      try {
        assert.equal(await entries.put({ kind: 'model', name: 'm1', body: '{}' }, 'create'), true);
      } finally {
        await entries.close();
      }
      // A checkpoint copies the WAL's pages into the database file, which grows by them.
      assert.equal(statSync(path).size, before, 'the database file grew: a checkpoint ran on the event loop');
      assert.deepEqual(
        (await store.listGateways()).map((g) => [g.id, g.beatAt]),
        [['gw1', T0 + 5_000]],
      );
      assert.equal((await store.usageSummary({ sinceMs: 0 }))[0]?.requests, 6_200);
    } finally {
      await store.close();
    }
  }),
);

test(
  'the report counts only rows since the given time, for every key or for one',
  withDir(async (dir) => {
    const store = new SqliteStore(join(dir, 'm.db'));
    try {
      await store.writeUsage([
        row({ ts: T0 - 2 * DAY, requestId: 'old' }),
        row({ ts: T0 + 1000, requestId: 'a1' }),
        row({ ts: T0 + 2000, requestId: 'a2', status: 502, inputTokens: 0, outputTokens: 0, costNanos: 0 }),
        row({ ts: T0 + 3000, requestId: 'b1', keyId: 'key_b', costNanos: 40 }),
      ]);
      const all = await store.usageSummary({ sinceMs: T0 });
      assert.deepEqual(
        all.map((r) => [r.keyId, r.requests, r.errors, r.costNanos]),
        [
          ['key_a', 2, 1, 100],
          ['key_b', 1, 0, 40],
        ],
      );
      const one = await store.usageSummary({ sinceMs: T0 - 3 * DAY, keyId: 'key_a' });
      assert.deepEqual(
        one.map((r) => [r.day, r.requests]),
        [
          ['2026-10-30', 1],
          ['2026-11-01', 2],
        ],
      );
    } finally {
      await store.close();
    }
  }),
);

test(
  'a database made before the ts index migrates: the key index goes, the rows stay',
  withDir(async (dir) => {
    const path = join(dir, 'm.db');
    // The schema as the first six migrations left it.
    const old = new DatabaseSync(path);
    old.exec(`CREATE TABLE schema_version (v INTEGER NOT NULL); INSERT INTO schema_version (v) VALUES (6);
    CREATE TABLE usage (id INTEGER PRIMARY KEY, ts INTEGER NOT NULL, request_id TEXT NOT NULL, key_id TEXT NOT NULL,
      endpoint TEXT NOT NULL, model TEXT NOT NULL, deployment TEXT, status INTEGER NOT NULL, input_tokens INTEGER NOT NULL,
      output_tokens INTEGER NOT NULL, cache_read_tokens INTEGER NOT NULL, cache_write_tokens INTEGER NOT NULL,
      cost_nanos INTEGER NOT NULL, latency_ms INTEGER NOT NULL, ttfb_ms INTEGER, streamed INTEGER NOT NULL,
      attempts INTEGER NOT NULL, period_start INTEGER NOT NULL, error_code TEXT);
    CREATE INDEX usage_key_ts ON usage (key_id, ts);
    CREATE TABLE keys (id TEXT PRIMARY KEY, name TEXT NOT NULL, hash TEXT NOT NULL UNIQUE, masked TEXT NOT NULL,
      models TEXT, expires_at INTEGER, disabled INTEGER NOT NULL DEFAULT 0, budget_usd REAL, token_budget INTEGER,
      budget_period TEXT, rpm INTEGER, tpm INTEGER, max_concurrency INTEGER, created_at INTEGER NOT NULL);
    CREATE TABLE meta (k TEXT PRIMARY KEY, v INTEGER NOT NULL); INSERT INTO meta (k, v) VALUES ('keys_version', 0);
    CREATE TABLE key_spend (key_id TEXT NOT NULL, period_start INTEGER NOT NULL, spent_nanos INTEGER NOT NULL,
      spent_tokens INTEGER NOT NULL, PRIMARY KEY (key_id, period_start));
    INSERT INTO usage (ts, request_id, key_id, endpoint, model, status, input_tokens, output_tokens, cache_read_tokens,
      cache_write_tokens, cost_nanos, latency_ms, streamed, attempts, period_start)
      VALUES (${T0 + 5}, 'kept', 'key_a', '/v1/messages', 'claude', 200, 1, 2, 0, 0, 7, 1, 0, 1, 0);`);
    old.close();
    const store = new SqliteStore(path);
    try {
      const rows = await store.usageSummary({ sinceMs: T0 });
      assert.deepEqual(
        rows.map((r) => [r.keyId, r.model, r.requests, r.costNanos]),
        [['key_a', 'claude', 1, 7]],
      );
    } finally {
      await store.close();
    }
    assert.deepEqual(usageIndexes(path), ['usage_ts']);
  }),
);

for (const usageThread of [true, false]) {
  const where = usageThread ? 'on the writer thread' : 'in-thread';

  test(
    `a large usage write (${where}) lets I/O run between slices and commits once: no other connection sees part of it`,
    withDir(async (dir) => {
      const path = join(dir, 'm.db');
      const store = new SqliteStore(path, { sliceRows: 64, usageThread });
      const reader = new DatabaseSync(path);
      const count = (): number => (reader.prepare('SELECT COUNT(*) AS n FROM usage').get() as { n: number }).n;
      try {
        await store.writeUsage([row({ requestId: 'before' })]);
        const rows = Array.from({ length: 300 }, (_, i) =>
          row({ requestId: `r${i}`, costNanos: 1, periodStart: i % 2 === 0 ? 0 : T0 }),
        );
        const seenMidway: number[] = [];
        const written = store.writeUsage(rows);
        // Runs only if the write yields to the event loop before it is over.
        setImmediate(() => seenMidway.push(count()));
        await written;
        assert.deepEqual(seenMidway, [1], 'mid-write, another connection still sees only the earlier row');
        assert.equal(count(), 301);
        const spend = reader
          .prepare('SELECT period_start AS p, spent_nanos AS n, spent_tokens AS t FROM key_spend ORDER BY period_start')
          .all() as Array<{ p: number; n: number; t: number }>;
        assert.deepEqual(
          spend.map((r) => [r.p, r.n, r.t]),
          [
            [0, 100 + 150, 15 + 150 * 15],
            [T0, 150, 150 * 15],
          ],
        );
      } finally {
        reader.close();
        await store.close();
      }
    }),
  );

  test(
    `a usage write that fails midway (${where}) leaves none of its rows and no spend, and the next one lands`,
    withDir(async (dir) => {
      const store = new SqliteStore(join(dir, 'm.db'), { sliceRows: 64, usageThread });
      try {
        const rows = Array.from({ length: 200 }, (_, i) => row({ requestId: `r${i}` }));
        // NOT NULL violation in the third statement, after a yield.
        (rows[150] as { requestId: string | null }).requestId = null;
        await assert.rejects(store.writeUsage(rows), /NOT NULL/);
        assert.deepEqual(await store.usageSummary({ sinceMs: 0 }), []);
        assert.deepEqual(await store.keySpend('key_a', 0), { nanos: 0, tokens: 0 });
        await store.writeUsage([row({ requestId: 'after' })]);
        assert.deepEqual(await store.keySpend('key_a', 0), { nanos: 100, tokens: 15 });
      } finally {
        await store.close();
      }
    }),
  );
}

test(
  'usage rows of a file database are committed by a thread of their own while the event loop is busy',
  withDir(async (dir) => {
    const path = join(dir, 'm.db');
    const store = new SqliteStore(path);
    const reader = new DatabaseSync(path);
    const count = (): number => (reader.prepare('SELECT COUNT(*) AS n FROM usage').get() as { n: number }).n;
    try {
      await store.writeUsage([row({ requestId: 'first' })]); // the thread is up
      const written = store.writeUsage(Array.from({ length: 10 }, (_, i) => row({ requestId: `r${i}` })));
      // This loop never yields: only another thread can commit the rows while it spins.
      const until = performance.now() + 10_000;
      let seen = count();
      while (seen < 11 && performance.now() < until) seen = count();
      assert.equal(seen, 11, 'the rows were committed while the event loop was held');
      await written;
      // Named for `top -H` and the benchmark, which counts its CPU apart.
      const names = readdirSync('/proc/self/task').map((tid) =>
        readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim(),
      );
      assert.ok(names.includes(WRITER_THREAD_NAME), `a thread named ${WRITER_THREAD_NAME} among ${names.join(', ')}`);
    } finally {
      reader.close();
      await store.close();
    }
  }),
);

test(
  'a writer thread that cannot open the database fails its batch, and the next write tries a new thread',
  withDir(async (dir) => {
    const path = join(dir, 'm.db');
    const store = new SqliteStore(path);
    try {
      // The store's own connection keeps its file; a thread started now finds a directory at the path.
      rmSync(path);
      rmSync(`${path}-wal`, { force: true });
      rmSync(`${path}-shm`, { force: true });
      mkdirSync(path);
      await assert.rejects(store.writeUsage([row({})]), /unable to open|exited/);
      await assert.rejects(store.writeUsage([row({})]), /unable to open|exited/);
    } finally {
      await store.close();
    }
  }),
);

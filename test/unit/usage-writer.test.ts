// The usage writer: batches off the request path, one store call per flush, never two at once.
import { mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { UsageWriter } from '../../src/accounting/usage-writer.ts';
import type { Store, UsageRow } from '../../src/store/store.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { SqliteStore } from '../../src/store/sqlite-store.ts';

/**
 * close() of a writer whose store keeps failing, on mocked timers: close tries again after 250, 500, 1,000
 * and 2,000 ms before it sets the rows aside, and the clock jumps over each wait instead of sleeping it.
 */
async function closeOnMockedTimers(writer: UsageWriter): Promise<void> {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    let done = false;
    const closing = writer.close().then(() => {
      done = true;
    });
    while (!done) {
      await new Promise((resolve) => setImmediate(resolve));
      mock.timers.tick(2_000);
    }
    await closing;
  } finally {
    mock.timers.reset();
  }
}

/** A SQLite store in a file of its own (its writer thread included), and a second connection to that file. */
function fileStore(): { store: SqliteStore; other: DatabaseSync; cleanup: () => Promise<void> } {
  const dir = mkdtempSync(join(tmpdir(), 'usage-lock-'));
  const store = new SqliteStore(join(dir, 'db.sqlite'));
  const other = new DatabaseSync(join(dir, 'db.sqlite'));
  other.exec('PRAGMA busy_timeout = 0');
  return {
    store,
    other,
    cleanup: async () => {
      if (other.isTransaction) other.exec('ROLLBACK');
      other.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function row(i: number): UsageRow {
  return {
    ts: 1_700_000_000_000 + i,
    requestId: `req_${i}`,
    keyId: 'k1',
    endpoint: '/v1/chat/completions',
    model: 'm',
    deployment: 'm#0',
    status: 200,
    inputTokens: 1,
    outputTokens: 1,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    costNanos: 10,
    latencyMs: 1,
    ttfbMs: 1,
    streamed: false,
    attempts: 1,
    periodStart: 0,
    errorCode: null,
    routing: null,
  };
}

/** A store that records each writeUsage call; `fail` picks calls (by index) that throw. */
function recordingStore(
  events: string[],
  fail: (call: number) => boolean = () => false,
): { store: Store; batches: UsageRow[][]; nextWrite: () => Promise<void> } {
  const batches: UsageRow[][] = [];
  let active = 0;
  let wake: (() => void) | null = null;
  const store = {
    async writeUsage(rows: UsageRow[]): Promise<void> {
      assert.equal(active, 0, 'writes never overlap');
      active++;
      const call = batches.length;
      batches.push(rows);
      events.push(`write ${rows.length}`);
      wake?.();
      wake = null;
      await Promise.resolve();
      active--;
      if (fail(call)) throw new Error(`disk full on call ${call}`);
    },
  } as unknown as Store;
  return { store, batches, nextWrite: () => new Promise<void>((resolve) => (wake = resolve)) };
}

test('a flush is one store call with every queued row, in order', async () => {
  const { store, batches } = recordingStore([]);
  const writer = new UsageWriter({ store, flushMs: 60_000, onError: () => assert.fail('no error expected') });
  for (let i = 0; i < 10; i++) writer.add(row(i));
  assert.equal(writer.pending(), 10);
  await writer.flush();
  assert.deepEqual(
    batches.map((b) => b.length),
    [10],
  );
  assert.deepEqual(
    batches.flat().map((r) => r.requestId),
    Array.from({ length: 10 }, (_, i) => `req_${i}`),
  );
  assert.equal(writer.pending(), 0);
  await writer.close();
});

test('a failing flush loses nothing: reported once, its rows kept ahead of newer ones and written by the next flush', async () => {
  const errors: Array<[string, number]> = [];
  const recovered: number[] = [];
  const { store, batches } = recordingStore([], (call) => call === 0 || call === 1);
  const writer = new UsageWriter({
    store,
    flushMs: 60_000,
    onError: (err, rows) => errors.push([(err as Error).message, rows]),
    onRecovered: (rows) => recovered.push(rows),
  });
  for (let i = 0; i < 8; i++) writer.add(row(i));
  await writer.flush();
  assert.equal(writer.pending(), 8, 'the rows wait for the next try');
  writer.add(row(8));
  await writer.flush();
  assert.deepEqual(errors, [['disk full on call 0', 8]], 'one report per failing streak');
  await writer.flush();
  assert.deepEqual(
    batches.map((b) => b.length),
    [8, 9, 9],
  );
  assert.deepEqual(
    batches[2].map((r) => r.requestId),
    Array.from({ length: 9 }, (_, i) => `req_${i}`),
    'in order',
  );
  assert.deepEqual(recovered, [9]);
  assert.equal(writer.pending(), 0);
  assert.equal(writer.failedWrites, 2);
  assert.equal(writer.droppedRows, 0);
  await writer.close();
});

test('past the memory bound the oldest rows are dropped and counted; a last flush that cannot write reports the rest lost', async () => {
  // The bound is usage_pending_rows (MAX_PENDING_ROWS by default); a small one behaves the same.
  const bound = 1_000;
  const dropped: number[] = [];
  const { store } = recordingStore([], () => true);
  const writer = new UsageWriter({
    store,
    flushMs: 60_000,
    maxPending: bound,
    onError: () => undefined,
    onDropped: (rows) => dropped.push(rows),
  });
  for (let i = 0; i < bound + 5; i++) writer.add(row(i));
  await writer.flush();
  assert.equal(writer.pending(), bound);
  assert.deepEqual(dropped, [5]);
  await closeOnMockedTimers(writer);
  assert.equal(writer.pending(), 0);
  assert.deepEqual(dropped, [5, bound]);
  assert.equal(writer.droppedRows, bound + 5);
});

test('flushes queued meanwhile wait for the write in progress; close() writes what is pending', async () => {
  const events: string[] = [];
  const { store, batches } = recordingStore(events);
  const writer = new UsageWriter({ store, flushMs: 60_000, onError: () => assert.fail('no error expected') });
  for (let i = 0; i < 5; i++) writer.add(row(i));
  const first = writer.flush();
  for (let i = 5; i < 7; i++) writer.add(row(i));
  const second = writer.flush();
  writer.add(row(7));
  await Promise.all([first, second]);
  assert.deepEqual(
    batches.flat().map((r) => r.requestId),
    Array.from({ length: 7 }, (_, i) => `req_${i}`),
  );
  assert.equal(writer.pending(), 1, 'the row added after the last flush waits for its timer');
  await writer.close();
  assert.equal(batches.flat().length, 8);
  assert.equal(writer.pending(), 0);
});

test('rows are written by the flush timer, and at once when flushMs is 0', async () => {
  const { store, batches, nextWrite } = recordingStore([]);
  const timed = new UsageWriter({ store, flushMs: 5, onError: () => assert.fail('no error expected') });
  const written = nextWrite();
  timed.add(row(1));
  assert.equal(batches.length, 0, 'nothing is written on the request path');
  await written;
  assert.equal(batches[0][0].requestId, 'req_1');

  const direct = recordingStore([]);
  const immediate = new UsageWriter({
    store: direct.store,
    flushMs: 0,
    onError: () => assert.fail('no error expected'),
  });
  immediate.add(row(2));
  await immediate.close();
  assert.deepEqual(
    direct.batches.map((b) => b.map((r) => r.requestId)),
    [['req_2']],
  );
});

test("another process holding SQLite's write lock: the flush fails fast, nothing is lost, and the rows land once the lock is gone", async () => {
  const { store, other, cleanup } = fileStore();
  store.busyTimeout(10);
  other.exec('BEGIN IMMEDIATE');
  const errors: string[] = [];
  const writer = new UsageWriter({ store, flushMs: 60_000, onError: (err) => errors.push(String(err)) });
  try {
    for (let i = 0; i < 3; i++) writer.add(row(i));
    const started = performance.now();
    await writer.flush();
    assert.ok(performance.now() - started < 2_500, 'the event loop is not held for the 5 s busy timeout');
    assert.match(errors[0] ?? '', /locked/);
    assert.equal(writer.pending(), 3);
    other.exec('COMMIT');
    await writer.flush();
    assert.equal(writer.pending(), 0);
    assert.equal((other.prepare('SELECT COUNT(*) AS n FROM usage').get() as { n: number }).n, 3);
  } finally {
    await writer.close();
    await cleanup();
  }
});

test('a lock held for a moment is waited out on the writer thread: no error, no retry, and the event loop runs meanwhile', async () => {
  const { store, other, cleanup } = fileStore();
  // As the serving gateway sets them: short on the event loop's connection, long on the writer thread's.
  store.busyTimeout(10, 5_000);
  const errors: string[] = [];
  const writer = new UsageWriter({ store, flushMs: 60_000, onError: (err) => errors.push(String(err)) });
  try {
    // A first batch starts the thread, so the next one meets the lock at once, not after the thread's start.
    writer.add(row(0));
    await writer.flush();
    other.exec('BEGIN IMMEDIATE');
    for (let i = 1; i < 4; i++) writer.add(row(i));
    const flushed = writer.flush();
    // The lock goes only after the loop has turned 20 times, 5 ms apart (well past the loop connection's
    // 10 ms), while the thread waits for it.
    await new Promise<void>((resolve) => {
      let turns = 0;
      const release = setInterval(() => {
        if (++turns < 20) return;
        clearInterval(release);
        other.exec('COMMIT');
        resolve();
      }, 5);
    });
    await flushed;
    assert.deepEqual(errors, [], 'the batch waited for the lock instead of failing');
    assert.equal(writer.pending(), 0);
    assert.equal((other.prepare('SELECT COUNT(*) AS n FROM usage').get() as { n: number }).n, 4);
  } finally {
    await writer.close();
    await cleanup();
  }
});

test('under load a batch goes as soon as flushRows are queued, without waiting for its interval', async () => {
  const { store, batches, nextWrite } = recordingStore([]);
  const writer = new UsageWriter({
    store,
    flushMs: 60_000,
    flushRows: 4,
    onError: () => assert.fail('no error expected'),
  });
  const written = nextWrite();
  for (let i = 0; i < 3; i++) writer.add(row(i));
  assert.equal(batches.length, 0, 'three rows wait for the interval');
  writer.add(row(3));
  await written;
  assert.deepEqual(
    batches.map((b) => b.length),
    [4],
    'the fourth row started the write',
  );
  for (let i = 4; i < 10; i++) writer.add(row(i));
  await writer.close();
  assert.deepEqual(
    batches.map((b) => b.length),
    [4, 4, 2],
    'the second batch at eight rows, the rest at close',
  );
  assert.deepEqual(
    batches.flat().map((r) => r.requestId),
    Array.from({ length: 10 }, (_, i) => `req_${i}`),
  );
});

test('rows the store will not take at close go to the spill file, which the next start writes; a spill that fails hands the rows to onDropped', async () => {
  const { UsageSpill } = await import('../../src/accounting/usage-spill.ts');
  const { readFileSync, existsSync, mkdtempSync: tmp } = await import('node:fs');
  const dir = tmp(join(tmpdir(), 'usage-spill-'));
  try {
    const spill = new UsageSpill(join(dir, 'db.usage-spill.jsonl'));
    const spilled: number[] = [];
    const { store } = recordingStore([], () => true);
    const writer = new UsageWriter({
      store,
      flushMs: 60_000,
      spill,
      onError: () => undefined,
      onSpilled: (n) => spilled.push(n),
      onDropped: () => assert.fail('nothing is dropped'),
    });
    for (let i = 0; i < 5; i++) writer.add(row(i));
    await closeOnMockedTimers(writer);
    assert.deepEqual(spilled, [5]);
    assert.equal(writer.droppedRows, 0);
    assert.equal(readFileSync(spill.path, 'utf8').trim().split('\n').length, 5);

    const db = new SqliteStore(':memory:');
    assert.deepEqual(await spill.load(db), { rows: 5, skipped: 0 });
    assert.deepEqual(await db.keySpend('k1', 0), { nanos: 50, tokens: 10 });
    assert.ok(!existsSync(spill.path));
    assert.deepEqual(await spill.load(db), { rows: 0, skipped: 0 }, 'a second start writes nothing twice');
    await db.close();

    const lost: UsageRow[][] = [];
    const nowhere = new UsageWriter({
      store,
      flushMs: 60_000,
      spill: new UsageSpill(join(dir, 'no-such-dir', 'x.jsonl')),
      onError: () => undefined,
      onDropped: (_n, rows) => lost.push([...rows]),
    });
    nowhere.add(row(1));
    await closeOnMockedTimers(nowhere);
    assert.deepEqual(
      lost.map((rows) => rows.map((r) => r.requestId)),
      [['req_1']],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

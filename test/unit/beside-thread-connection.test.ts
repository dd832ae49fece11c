// The alert and audit logs write to the usage store's file on the event loop, beside the usage writer
// thread, which holds the file's write lock while a batch is pending and frees it only once the loop runs
// on: their writes never wait for the lock on the loop, and land once it is free.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { openAlertLog } from '../../src/store/alert-log.ts';
import { openAuditLog } from '../../src/store/audit-log.ts';
import { writeBesideThread } from '../../src/store/beside-thread-connection.ts';

/** What became of a promise so far. */
function watch(p: Promise<unknown>): () => string {
  let state = 'pending';
  p.then(
    () => (state = 'fulfilled'),
    (err: unknown) => (state = `rejected: ${String(err)}`),
  );
  return () => state;
}

const turns = async (n: number): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

test('an alert claimed and an admin change recorded while another connection holds the write lock wait off the loop and land once it is freed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'modelgate-beside-'));
  const file = join(dir, 'gw.db');
  const alerts = await openAlertLog(file, false);
  const audit = await openAuditLog(file, false);
  // Stands for the usage writer thread in the middle of a batch.
  const thread = new DatabaseSync(file);
  try {
    thread.exec('BEGIN IMMEDIATE');
    const claimed = alerts.claim({
      id: 'circuit_open:m#0:1',
      event: 'circuit_open',
      createdAt: 1,
      summary: 's',
      payload: '{}',
      status: 'pending',
    });
    const recorded = audit.record({
      id: 'e1',
      at: 1,
      actorKind: 'token',
      actorName: 'admin_token',
      source: null,
      action: 'key.create',
      targetKind: 'key',
      targetId: 'key_a',
      targetName: 'alice',
      before: null,
      after: null,
    });
    const claimState = watch(claimed);
    const recordState = watch(recorded);
    // The loop turns on (as it must, to finish the batch) while both wait.
    await turns(20);
    assert.equal(claimState(), 'pending');
    assert.equal(recordState(), 'pending');
    thread.exec('COMMIT');
    assert.equal(await claimed, true);
    await recorded;
    assert.deepEqual(
      (await alerts.list({ limit: 5 })).map((a) => a.id),
      ['circuit_open:m#0:1'],
    );
    assert.deepEqual(
      (await audit.list({ limit: 5 })).map((e) => e.id),
      ['e1'],
    );
  } finally {
    thread.close();
    await alerts.close();
    await audit.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a write that finds the lock held past its deadline fails with SQLite’s error; any other error fails at once', async () => {
  let tries = 0;
  const busy = Object.assign(new Error('database is locked'), { errcode: 5 });
  await assert.rejects(
    writeBesideThread(() => {
      tries++;
      throw busy;
    }, 3),
    /database is locked/,
  );
  assert.equal(tries, 3, 'tried at once, after 1 ms and after 2 ms more');
  tries = 0;
  await assert.rejects(
    writeBesideThread(() => {
      tries++;
      throw Object.assign(new Error('constraint failed'), { errcode: 19 });
    }),
    /constraint failed/,
  );
  assert.equal(tries, 1);
});

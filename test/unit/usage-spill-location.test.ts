// Where usage rows go when the database will not take them: by default on another volume than the
// database (when one exists), found again by the same deployment's next start, with the file beside the
// database as the fallback; a file that cannot be written passes its rows to the next.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultSpill, UsageSpill } from '../../src/accounting/usage-spill.ts';
import type { Store, UsageRow } from '../../src/store/store.ts';

const row = (requestId: string): UsageRow =>
  ({
    requestId,
    keyId: 'k1',
    endpoint: 'chat',
    model: 'm',
    ts: 1,
    status: 200,
    inputTokens: 1,
    outputTokens: 1,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    costNanos: 5,
    latencyMs: 1,
    attempts: 1,
    periodStart: 0,
  }) as UsageRow;

const otherVolume = '/dev/shm';
const haveOtherVolume = existsSync(otherVolume) && statSync(otherVolume).dev !== statSync(tmpdir()).dev;

test('the default spill file is on another volume than the database, the same for every start of it', {
  skip: !haveOtherVolume,
}, () => {
  const dir = mkdtempSync(join(tmpdir(), 'spill-'));
  try {
    const db = join(dir, 'gw.db');
    const spill = defaultSpill(db, otherVolume);
    assert.ok(spill.path.startsWith(`${otherVolume}/`), spill.path);
    assert.deepEqual(spill.fallbacks, [`${db}.usage-spill.jsonl`]);
    assert.equal(defaultSpill(db, otherVolume).path, spill.path, 'a restart finds it');
    assert.notEqual(defaultSpill(join(dir, 'other.db'), otherVolume).path, spill.path, 'another database has its own');
    assert.equal(defaultSpill(db, dir).path, `${db}.usage-spill.jsonl`, 'the same volume: beside the database');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('rows the first file will not take go to the next, and a start loads every file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'spill-'));
  try {
    const spill = new UsageSpill(join(dir, 'missing-volume', 'spill.jsonl'), [join(dir, 'beside.jsonl')]);
    spill.save([row('a'), row('b')]);
    assert.ok(existsSync(join(dir, 'beside.jsonl')));
    const written: UsageRow[] = [];
    const store = { writeUsage: async (rows: UsageRow[]) => void written.push(...rows) } as unknown as Store;
    assert.deepEqual(await spill.load(store), { rows: 2, skipped: 0 });
    assert.deepEqual(
      written.map((r) => r.requestId),
      ['a', 'b'],
    );
    const nowhere = new UsageSpill(join(dir, 'no', 'a.jsonl'), [join(dir, 'no', 'b.jsonl')]);
    assert.throws(() => nowhere.save([row('c')]), 'no file takes the rows: the caller is told');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

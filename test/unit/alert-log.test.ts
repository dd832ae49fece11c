// The alert log on both stores: an event is claimed once (the insert only one caller wins, which is what
// keeps a restart or a second replica from sending it again), settled with its delivery, listed newest first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openAlertLog, type AlertLog } from '../../src/store/alert-log.ts';
import { dropSchema, freshSchema, pgOrSkip } from '../helpers/postgres.ts';

async function contract(open: () => Promise<AlertLog>): Promise<void> {
  const a = await open();
  const b = await open();
  try {
    const event = {
      id: 'budget_threshold:key:k1:0:80',
      event: 'budget_threshold',
      createdAt: 1_000,
      summary: 's',
      payload: '{"x":1}',
      status: 'pending' as const,
    };
    assert.equal(await a.claim(event), true);
    assert.equal(await b.claim(event), false, 'another process (or a later start) does not claim it again');
    assert.equal(
      await b.claim({ ...event, id: 'circuit_open:m#0:2000', event: 'circuit_open', createdAt: 2_000 }),
      true,
    );
    await a.settle(event.id, { status: 'delivered', attempts: 2, lastError: null, deliveredAt: 1_500 });
    const listed = await b.list({ limit: 10 });
    assert.deepEqual(
      listed.map((r) => [r.id, r.status, r.attempts, r.deliveredAt]),
      [
        ['circuit_open:m#0:2000', 'pending', 0, null],
        ['budget_threshold:key:k1:0:80', 'delivered', 2, 1_500],
      ],
    );
    assert.equal((await a.list({ limit: 1 })).length, 1);
  } finally {
    await a.close();
    await b.close();
  }
}

test('SQLite: one claim per event across two connections to the file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'modelgate-alerts-'));
  try {
    await contract(() => openAlertLog(join(dir, 'gw.db'), false));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('PostgreSQL: one claim per event across two pools', async (t) => {
  const sql = await pgOrSkip(t);
  if (sql === null) return;
  const { schema, url } = freshSchema('alerts');
  try {
    await contract(() => openAlertLog(url, true));
  } finally {
    await dropSchema(sql, schema);
    await sql.end();
  }
});

// The audit trail on both stores: what one process records another reads, newest first, filtered by time,
// actor, action or kind of target, and by a target's id or name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openAuditLog, type AuditEntry, type AuditLog } from '../../src/store/audit-log.ts';
import { auditCsv } from '../../src/admin/operations/audit-trail.ts';
import { dropSchema, freshSchema, pgOrSkip } from '../helpers/postgres.ts';

const entry = (over: Partial<AuditEntry>): AuditEntry => ({
  id: 'e1',
  at: 1_000,
  actorKind: 'token',
  actorName: 'admin_token',
  source: '127.0.0.1',
  action: 'key.create',
  targetKind: 'key',
  targetId: 'key_a',
  targetName: 'alice',
  before: null,
  after: '{"name":"alice"}',
  ...over,
});

async function contract(open: () => Promise<AuditLog>): Promise<void> {
  const a = await open();
  const b = await open();
  try {
    await a.record(entry({}));
    await b.record(
      entry({ id: 'e2', at: 2_000, action: 'key.delete', actorKind: 'cli', actorName: 'ops', source: null }),
    );
    await a.record(
      entry({ id: 'e3', at: 3_000, action: 'team.create', targetKind: 'team', targetId: 't1', targetName: 'web' }),
    );
    const ids = async (f: Partial<Parameters<AuditLog['list']>[0]>) =>
      (await b.list({ limit: 10, ...f })).map((e) => e.id);
    assert.deepEqual(await ids({}), ['e3', 'e2', 'e1'], 'newest first, across processes');
    assert.deepEqual(await ids({ from: 2_000 }), ['e3', 'e2']);
    assert.deepEqual(await ids({ to: 2_000 }), ['e1'], 'to is exclusive');
    assert.deepEqual(await ids({ actor: 'ops' }), ['e2']);
    assert.deepEqual(await ids({ action: 'key.delete' }), ['e2']);
    assert.deepEqual(await ids({ action: 'key' }), ['e2', 'e1'], 'a kind of target matches its every action');
    assert.deepEqual(await ids({ targetKind: 'team' }), ['e3']);
    assert.deepEqual(await ids({ target: 'alice' }), ['e2', 'e1'], 'by name');
    assert.deepEqual(await ids({ target: 'key_a' }), ['e2', 'e1'], 'by id');
    assert.deepEqual(await ids({ limit: 1 }), ['e3']);
    const [deleted] = await b.list({ limit: 1, action: 'key.delete' });
    assert.deepEqual(
      deleted,
      entry({ id: 'e2', at: 2_000, action: 'key.delete', actorKind: 'cli', actorName: 'ops', source: null }),
    );
  } finally {
    await a.close();
    await b.close();
  }
}

test('SQLite: one trail across two connections to the file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'modelgate-audit-'));
  try {
    await contract(() => openAuditLog(join(dir, 'gw.db'), false));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('PostgreSQL: one trail across two pools', async (t) => {
  const sql = await pgOrSkip(t);
  if (sql === null) return;
  const { schema, url } = freshSchema('audit');
  try {
    await contract(() => openAuditLog(url, true));
  } finally {
    await dropSchema(sql, schema);
    await sql.end();
  }
});

test('the CSV export quotes what needs it and defuses cells a spreadsheet would run', () => {
  const csv = auditCsv([entry({ targetName: '=HYPERLINK("x")', after: '{"a":1,"b":2}' })]);
  const [, line] = csv.trim().split('\n');
  assert.match(line, /,"'=HYPERLINK\(""x""\)",/);
  assert.match(line, /,"\{""a"":1,""b"":2\}"$/);
});

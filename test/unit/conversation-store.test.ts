// The conversation store's contract on SQLite (its thread, a file) and PostgreSQL: per-key ownership,
// items in order, appends, item deletes, and a conversation's items gone with it; and the thought
// signatures of tool calls kept in the same schema: per key, per model, the latest winning, gone with age.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openConversationStore, type ConversationStore } from '../../src/store/conversation-store.ts';
import { dropSchema, freshSchema, pgOrSkip } from '../helpers/postgres.ts';

async function contract(store: ConversationStore): Promise<void> {
  const item = (id: string, text: string) => ({ id, item: JSON.stringify({ id, type: 'message', content: text }) });
  await store.create({ id: 'conv_1', keyId: 'k1', createdAt: 100, metadata: '{"a":"b"}' }, [item('i1', 'one')]);
  assert.deepEqual(await store.get('conv_1', 'k1'), {
    id: 'conv_1',
    keyId: 'k1',
    createdAt: 100,
    metadata: '{"a":"b"}',
  });
  assert.equal(await store.get('conv_1', 'k2'), null, "another key's conversation is absent");
  assert.equal(await store.append('conv_1', 'k2', [item('x', 'x')]), false);
  assert.equal(await store.append('conv_1', 'k1', [item('i2', 'two'), item('i3', 'three')]), true);
  assert.deepEqual(
    (await store.items('conv_1', 'k1'))?.map((i) => i.id),
    ['i1', 'i2', 'i3'],
  );
  assert.equal(await store.items('conv_1', 'k2'), null);
  assert.equal(await store.deleteItem('conv_1', 'k2', 'i2'), false);
  assert.equal(await store.deleteItem('conv_1', 'k1', 'i2'), true);
  assert.deepEqual(
    (await store.items('conv_1', 'k1'))?.map((i) => i.id),
    ['i1', 'i3'],
  );
  assert.equal(await store.append('conv_1', 'k1', [item('i4', 'four')]), true);
  assert.deepEqual(
    (await store.items('conv_1', 'k1'))?.map((i) => i.id),
    ['i1', 'i3', 'i4'],
    'an append after a delete goes last',
  );
  assert.equal((await store.update('conv_1', 'k1', '{"c":"d"}'))?.metadata, '{"c":"d"}');
  assert.equal(await store.update('conv_1', 'k2', '{}'), null);
  assert.equal(await store.delete('conv_1', 'k2'), false);
  assert.equal(await store.delete('conv_1', 'k1'), true);
  assert.equal(await store.items('conv_1', 'k1'), null);
}

async function signatures(store: ConversationStore): Promise<void> {
  let now = 1_000_000;
  const book = store.callSignatures({ retentionMs: 10_000, now: () => now });
  await book.keep('k1', 'gemini-3-pro', [
    { callId: 'call_a', signature: 'sig-a' },
    { callId: 'call_b', signature: 'sig-b' },
  ]);
  assert.deepEqual([...(await book.find('k1', 'gemini-3-pro', ['call_b', 'call_a', 'call_x']))].sort(), [
    ['call_a', 'sig-a'],
    ['call_b', 'sig-b'],
  ]);
  assert.equal((await book.find('k2', 'gemini-3-pro', ['call_a'])).size, 0, "another key's calls are absent");
  assert.equal((await book.find('k1', 'gemini-2.5-pro', ['call_a'])).size, 0, 'another model would refuse it');
  await book.keep('k1', 'gemini-3-pro', [{ callId: 'call_a', signature: 'sig-a2' }]);
  assert.equal((await book.find('k1', 'gemini-3-pro', ['call_a'])).get('call_a'), 'sig-a2', 'the latest wins');
  // Seventeen ids: the first sixteen are looked up in one statement, the rest not.
  const many = Array.from({ length: 17 }, (_, i) => ({ callId: `c${i}`, signature: `s${i}` }));
  await book.keep('k1', 'gemini-3-pro', many);
  const found = await book.find(
    'k1',
    'gemini-3-pro',
    many.map((m) => m.callId),
  );
  assert.equal(found.size, 16);
  assert.equal(found.get('c16'), undefined);
  now += 10_001;
  assert.equal((await book.find('k1', 'gemini-3-pro', ['call_a'])).size, 0, 'past the retention it is gone');
  // A later write purges what expired (at most once a minute): the row is gone, not only hidden.
  now += 60_000;
  await book.keep('k2', 'gemini-3-pro', [{ callId: 'call_z', signature: 'z' }]);
  const old = store.callSignatures({ retentionMs: 1e12, now: () => now });
  assert.equal((await old.find('k1', 'gemini-3-pro', ['call_a', 'call_b'])).size, 0, 'purged');
  assert.equal((await old.find('k2', 'gemini-3-pro', ['call_z'])).get('call_z'), 'z');
}

test('SQLite (a file, served by its thread)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mg-conv-'));
  const store = await openConversationStore(join(dir, 'db.sqlite'), false);
  try {
    await contract(store);
    await signatures(store);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('SQLite in memory', async () => {
  const store = await openConversationStore(':memory:', false);
  await contract(store);
  await signatures(store);
  await store.close();
});

test('PostgreSQL', async (t: TestContext) => {
  const sql = await pgOrSkip(t);
  if (sql === null) return;
  const { schema, url } = freshSchema('mg_conv');
  const store = await openConversationStore(url, true);
  try {
    await contract(store);
    await signatures(store);
  } finally {
    await store.close();
    await dropSchema(sql, schema);
    await sql.end();
  }
});

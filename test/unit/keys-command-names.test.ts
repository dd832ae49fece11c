// Names pick keys in `keys disable|enable|update|delete`: a name must never quietly pick one of two keys.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keysCommand } from '../../src/admin/keys-command.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import { generateKey, hashKey, newKeyId } from '../../src/auth/key-material.ts';
import { maskKey } from '../../src/core/mask-secrets.ts';
import type { KeyRecord } from '../../src/core/key-record.ts';

async function run(store: SqliteStore, argv: string[]): Promise<string> {
  const lines: string[] = [];
  await keysCommand(store, argv, (s) => lines.push(s));
  return lines.join('\n');
}

test('a second key of the same name is refused at create', async () => {
  const store = new SqliteStore(':memory:');
  await run(store, ['create', '--name', 'alice']);
  await assert.rejects(run(store, ['create', '--name', 'alice']), {
    name: 'UsageError',
    message: /a key named "alice" already exists/,
  });
  assert.equal((await store.listKeys()).length, 1);
});

test('a name two keys share (a database from before names were unique) acts on neither and lists their ids', async () => {
  const store = new SqliteStore(':memory:');
  const rec = (id: string, createdAt: number): KeyRecord => {
    const key = generateKey();
    return {
      id,
      name: 'bob',
      hash: hashKey(key),
      masked: maskKey(key),
      models: null,
      expiresAt: null,
      disabled: false,
      budgetUsd: null,
      tokenBudget: null,
      budgetPeriod: null,
      rpm: null,
      tpm: null,
      maxConcurrency: null,
      createdAt,
    };
  };
  const [a, b] = [rec(newKeyId(), 1), rec(newKeyId(), 2)];
  await store.insertKey(a);
  await store.insertKey(b);
  for (const sub of ['disable', 'delete', 'update']) {
    await assert.rejects(run(store, [sub, 'bob', ...(sub === 'update' ? ['--rpm', '5'] : [])]), {
      name: 'UsageError',
      message: new RegExp(`2 keys are named "bob"; name one by id: .*${a.id}`),
    });
  }
  assert.ok(
    (await store.listKeys()).every((k) => !k.disabled && k.rpm === null),
    'nothing changed',
  );
  assert.match(await run(store, ['disable', a.id]), /Disabled key/);
  assert.equal((await store.findKey(a.id))?.disabled, true);
});

test('renaming a key to a name another key has is refused too', async () => {
  const store = new SqliteStore(':memory:');
  await run(store, ['create', '--name', 'a']);
  await run(store, ['create', '--name', 'b']);
  await assert.rejects(run(store, ['update', 'b', '--name', 'a']), {
    name: 'UsageError',
    message: /a key named "a" already exists/,
  });
  assert.match(await run(store, ['update', 'b', '--name', 'c']), /Updated key/);
});

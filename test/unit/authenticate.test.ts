// The in-memory key view: digest lookup, the per-connection shortcut, and key changes reaching both.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { authenticate } from '../../src/auth/authenticate.ts';
import { KeyCache } from '../../src/auth/key-cache.ts';
import { sameString } from '../../src/auth/key-material.ts';
import { hashKey } from '../../src/auth/key-material.ts';
import type { KeyRecord } from '../../src/core/key-record.ts';
import type { Store } from '../../src/store/store.ts';

const A = 'sk-' + 'a'.repeat(48);
const B = 'sk-' + 'b'.repeat(48);

function record(key: string, over: Partial<KeyRecord> = {}): KeyRecord {
  return {
    id: `id-${key.at(-1)}`,
    name: key.at(-1) ?? '',
    hash: hashKey(key),
    masked: 'sk-…',
    models: null,
    expiresAt: null,
    disabled: false,
    budgetUsd: null,
    tokenBudget: null,
    budgetPeriod: null,
    rpm: null,
    tpm: null,
    maxConcurrency: null,
    createdAt: 0,
    ...over,
  };
}

function fakeStore(keys: { list: KeyRecord[]; version: number }): Store {
  return {
    keysVersion: async () => keys.version,
    listKeys: async () => keys.list,
    listTeams: async () => [],
  } as unknown as Store;
}

test('keys are found by digest, with or without a connection', async () => {
  const cache = new KeyCache({ store: fakeStore({ list: [record(A)], version: 1 }), onError: () => undefined });
  await cache.refresh();
  assert.equal(cache.lookup(A)?.id, 'id-a');
  assert.equal(cache.lookup(B), null);
  const conn = {};
  assert.equal(cache.lookup(A, conn)?.id, 'id-a');
  assert.equal(cache.lookup(A, conn)?.id, 'id-a', 'the second request on the connection is served from the shortcut');
});

test('a connection that switches keys gets the new key judged, not the old one', async () => {
  const cache = new KeyCache({
    store: fakeStore({ list: [record(A), record(B)], version: 1 }),
    onError: () => undefined,
  });
  await cache.refresh();
  const conn = {};
  assert.equal(cache.lookup(A, conn)?.id, 'id-a');
  assert.equal(cache.lookup(B, conn)?.id, 'id-b');
  assert.equal(
    cache.lookup('sk-' + 'a'.repeat(47) + 'x', conn),
    null,
    'a key differing in the last character is refused',
  );
  assert.equal(cache.lookup('sk-short', conn), null);
  assert.equal(cache.lookup(B, conn)?.id, 'id-b');
});

test('a key change reaches connections that had authenticated before it', async () => {
  const keys = { list: [record(A)], version: 1 };
  const cache = new KeyCache({ store: fakeStore(keys), onError: () => undefined });
  await cache.refresh();
  const conn = {};
  assert.equal(cache.lookup(A, conn)?.disabled, false);
  keys.list = [record(A, { disabled: true })];
  keys.version = 2;
  await cache.refresh();
  assert.equal(cache.lookup(A, conn)?.disabled, true, 'the disabled record, not the remembered one');
  keys.list = [];
  keys.version = 3;
  await cache.refresh();
  assert.equal(cache.lookup(A, conn), null, 'a deleted key is gone for the connection too');
});

test('sameString: equal only for the same characters at every position', () => {
  assert.equal(sameString(A, 'sk-' + 'a'.repeat(48)), true);
  assert.equal(sameString(A, 'sk-' + 'a'.repeat(47) + 'b'), false, 'the last character');
  assert.equal(sameString(A, 'Sk-' + 'a'.repeat(48)), false, 'the first character');
  assert.equal(sameString(A, A.slice(0, -1)), false, 'a prefix');
  assert.equal(sameString('', ''), true);
  // Header values are latin1 text: a character is never folded onto another one.
  assert.equal(sameString('sk-\u0161', 'sk-a'), false);
});

test('a poll still waiting on a slow database is not joined by more: the next ticks skip until it answers', async (t) => {
  t.mock.timers.enable({ apis: ['setInterval'] });
  let calls = 0;
  let answer: (v: number) => void = () => undefined;
  const store = {
    keysVersion: () => {
      calls++;
      return calls === 1 ? Promise.resolve(1) : new Promise<number>((resolve) => (answer = resolve));
    },
    listKeys: async () => [record(A)],
    listTeams: async () => [],
  } as unknown as Store;
  const cache = new KeyCache({ store, onError: () => undefined });
  await cache.start(250);
  for (let i = 0; i < 10; i++) t.mock.timers.tick(250);
  assert.equal(calls, 2, 'one poll waiting, nine ticks skipped');
  answer(1);
  await new Promise((resolve) => setImmediate(resolve));
  t.mock.timers.tick(250);
  assert.equal(calls, 3, 'polling resumes once it answered');
  cache.stop();
});

test('a database that stops answering is reported once, and once again when it is back', async (t) => {
  t.mock.timers.enable({ apis: ['setInterval'] });
  let down = false;
  const store = {
    keysVersion: async () => {
      if (down) throw new Error('connection refused');
      return 1;
    },
    listKeys: async () => [record(A)],
    listTeams: async () => [],
  } as unknown as Store;
  const said: string[] = [];
  const cache = new KeyCache({
    store,
    onError: (err) => said.push(`error: ${String(err)}`),
    onRecovered: () => said.push('recovered'),
  });
  await cache.start(250);
  const tick = async (): Promise<void> => {
    t.mock.timers.tick(250);
    for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
  };
  down = true;
  for (let i = 0; i < 8; i++) await tick();
  assert.deepEqual(said, ['error: Error: connection refused']);
  assert.equal(cache.lookup(A)?.id, 'id-a', 'the keys loaded before are still served');
  down = false;
  for (let i = 0; i < 3; i++) await tick();
  assert.deepEqual(said, ['error: Error: connection refused', 'recovered']);
  cache.stop();
});

test('refreshNow: callers at once share one store read that starts after they asked; a later caller gets a new one', async () => {
  const keys = { list: [record(A)], version: 1 };
  let reads = 0;
  let release: () => void = () => undefined;
  let gate = Promise.resolve();
  const store = {
    keysVersion: async () => {
      reads++;
      await gate;
      return keys.version;
    },
    listKeys: async () => keys.list,
    listTeams: async () => [],
  } as unknown as Store;
  const cache = new KeyCache({ store, onError: () => undefined });
  await cache.refresh();
  assert.equal(cache.lookup(B), null);
  reads = 0;
  gate = new Promise((r) => (release = r));
  const first = cache.refreshNow();
  // B is made while the first read is under way: it may have read the version before B existed.
  keys.list = [record(A), record(B)];
  keys.version = 2;
  const waiting = [cache.refreshNow(), cache.refreshNow(), cache.refreshNow()];
  release();
  await first;
  await Promise.all(waiting);
  assert.equal(reads, 2, 'one read in flight and one queued, whatever the number of callers');
  assert.equal(cache.lookup(B)?.id, 'id-b');
  await cache.refreshNow();
  assert.equal(reads, 3);
});

/** A store whose key table can change behind the cache's back, counting lookups by digest. */
function liveStore(list: KeyRecord[]): { store: Store; reads: () => number } {
  let reads = 0;
  const store = {
    keysVersion: async () => 1,
    listKeys: async () => [],
    listTeams: async () => [],
    findKeyByHash: async (hash: string) => {
      reads++;
      return list.find((k) => k.hash === hash) ?? null;
    },
  } as unknown as Store;
  return { store, reads: () => reads };
}

test('a key the cache does not know yet is looked up in the store before it is refused (issue 39)', async () => {
  const keys: KeyRecord[] = [];
  const { store, reads } = liveStore(keys);
  const cache = new KeyCache({ store, onError: () => undefined });
  await cache.refresh();
  assert.equal(cache.lookup(A), null);
  keys.push(record(A));
  assert.equal((await cache.lookupStored(A))?.id, 'id-a', 'made a moment ago (the CLI), served at once');
  assert.equal(cache.lookup(A)?.id, 'id-a', 'and from memory after');
  assert.equal(reads(), 1);
});

test('unknown keys cannot hammer the store: misses are remembered, lookups shared and bounded', async () => {
  const { store, reads } = liveStore([]);
  let now = 1_000_000;
  const cache = new KeyCache({ store, onError: () => undefined, now: () => now });
  await cache.refresh();
  // One unknown key, many requests at once and after: one read.
  const same = await Promise.all(Array.from({ length: 50 }, () => cache.lookupStored(B)));
  assert.ok(same.every((r) => r === null));
  for (let i = 0; i < 50; i++)
    assert.equal(cache.lookupStored(B), null, 'a remembered miss is answered without the store');
  assert.equal(reads(), 1);
  // A flood of distinct unknown keys: at most 16 reads at once and 100 a second.
  const flood = Array.from({ length: 1_000 }, (_, i) => cache.lookupStored(`sk-${String(i).padStart(48, '0')}`));
  assert.ok(flood.filter((p) => p !== null).length <= 16, 'at most 16 store reads in flight');
  await Promise.all(flood);
  for (let i = 0; i < 1_000; i++) await cache.lookupStored(`sk-${String(i + 5_000).padStart(48, '0')}`);
  assert.equal(reads(), 100, 'at most 100 store reads a second (the first one included)');
  // A remembered miss is asked about again once it is 2 s old; the next second has reads of its own.
  now += 2_000;
  assert.notEqual(cache.lookupStored(B), null);
});

test('authenticate: a known key without a store read; a key just made elsewhere after one store read; an unknown one still 401', async () => {
  const keys: KeyRecord[] = [record(A)];
  const { store, reads } = liveStore(keys);
  const cache = new KeyCache({ store, onError: () => undefined });
  await cache.lookupStored(A);
  const now = Date.now();
  const bearer = (k: string) => ({ authorization: `Bearer ${k}` });
  const before = reads();
  assert.equal((await authenticate(bearer(A), cache, now)).id, 'id-a');
  assert.equal(reads(), before, 'no store read for a key the cache has');
  keys.push(record(B));
  assert.equal((await authenticate(bearer(B), cache, now)).id, 'id-b');
  assert.equal(reads(), before + 1, 'one store read for a key made elsewhere');
  await assert.rejects(authenticate(bearer('sk-' + 'c'.repeat(48)), cache, now), { code: 'invalid_api_key' });
});

// Key rotation: round robin per provider, refused keys skipped until reset, masking.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KeyRotation } from '../../src/routing/key-rotation.ts';
import { maskKey } from '../../src/core/mask-secrets.ts';
import { fakeClock, provider } from './fixtures.ts';

test('keys are handed out in turn, per provider', () => {
  const keys = new KeyRotation();
  const a = provider('a', ['k1', 'k2', 'k3']);
  const b = provider('b', ['x1', 'x2']);
  const seen = [keys.next(a), keys.next(b), keys.next(a), keys.next(a), keys.next(b), keys.next(a), keys.next(b)];
  assert.deepEqual(seen, ['k1', 'x1', 'k2', 'k3', 'x2', 'k1', 'x1']);
});

test('a refused key is skipped; when all are refused the provider is unusable until reset', () => {
  const keys = new KeyRotation();
  const a = provider('a', ['k1', 'k2', 'k3']);
  assert.equal(keys.reject(a, 'k2'), 2);
  assert.deepEqual([keys.next(a), keys.next(a), keys.next(a)], ['k1', 'k3', 'k1']);
  assert.equal(keys.reject(a, 'k1'), 1);
  assert.equal(keys.reject(a, 'k3'), 0);
  assert.equal(keys.usable(a), false);
  assert.equal(keys.next(a), null);
  keys.reset('a');
  assert.equal(keys.usable(a), true);
  assert.equal(keys.next(a) !== null, true);
});

test('reset() without a name restores every provider', () => {
  const keys = new KeyRotation();
  const a = provider('a', ['k1']);
  const b = provider('b', ['x1']);
  keys.reject(a, 'k1');
  keys.reject(b, 'x1');
  keys.reset();
  assert.equal(keys.next(a), 'k1');
  assert.equal(keys.next(b), 'x1');
});

test('keyless providers (mock) are always usable and get null', () => {
  const keys = new KeyRotation();
  const mock = provider('mock');
  assert.equal(keys.usable(mock), true);
  assert.equal(keys.next(mock), null);
});

test('a shorter key list after a reload still rotates within bounds', () => {
  const keys = new KeyRotation();
  keys.next(provider('a', ['k1', 'k2', 'k3']));
  keys.next(provider('a', ['k1', 'k2', 'k3']));
  const shorter = provider('a', ['k1']);
  assert.deepEqual([keys.next(shorter), keys.next(shorter)], ['k1', 'k1']);
});

test('a refused provider key is masked to its first 4 and last 4 only', () => {
  assert.equal(maskKey('sk-abcdefghijklmnop9xQz'), 'sk-a…9xQz');
  assert.equal(maskKey('short'), '****');
});

test('a refused key is tried again after 60 s (doubling to 15 min) by one request, and is back once it works (issue 39)', () => {
  const clock = fakeClock();
  const keys = new KeyRotation({ now: clock.now });
  const a = provider('a', ['k1', 'k2']);
  keys.reject(a, 'k1');
  assert.deepEqual([keys.next(a), keys.next(a), keys.next(a)], ['k2', 'k2', 'k2'], 'a good key is always preferred');
  keys.reject(a, 'k2');
  assert.equal(keys.usable(a), false);
  assert.equal(keys.next(a), null);
  clock.advance(60_000);
  assert.equal(keys.usable(a), true);
  assert.equal(keys.next(a), 'k1', 'the key due first');
  assert.equal(keys.next(a), 'k2');
  assert.equal(keys.next(a), null, 'each due key goes to one request until its outcome is known');
  assert.equal(keys.reject(a, 'k1'), 0);
  assert.equal(keys.retryInMs(a), 60_000, 'k2 (still on its first wait) is due first');
  clock.advance(60_000);
  assert.equal(keys.next(a), 'k2');
  assert.equal(keys.accepted('a', 'k2'), true);
  assert.equal(keys.accepted('a', 'k2'), false, 'said once');
  assert.equal(keys.isRejected('a', 'k2'), false);
  assert.deepEqual([keys.next(a), keys.next(a)], ['k2', 'k2']);
  clock.advance(60_000);
  assert.equal(keys.next(a), 'k2', 'k1 waits 120 s after its second refusal');
  clock.advance(60_000);
  assert.equal(keys.next(a), 'k2', 'good keys first even when a refused one is due');
});

// The admin sign-in limit on its own clock: an address over its limit waits until its window ends, then
// starts afresh; the number of addresses remembered stays bounded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SignInLimit } from '../../src/admin/api/sign-in-limit.ts';

test('an address is held back from its limit-th failure until the window ends, then counts from zero', () => {
  const limit = new SignInLimit({ limit: 3, windowMs: 60_000, maxTracked: 100 });
  const t0 = 1_000_000;
  for (let i = 0; i < 2; i++) limit.failed('10.0.0.1', t0 + i);
  assert.equal(limit.waitSeconds('10.0.0.1', t0 + 2), 0);
  limit.failed('10.0.0.1', t0 + 2);
  assert.equal(limit.waitSeconds('10.0.0.1', t0 + 2), 60);
  assert.equal(limit.waitSeconds('10.0.0.1', t0 + 30_500), 30);
  assert.equal(limit.waitSeconds('10.0.0.2', t0 + 2), 0, 'another address is not held back');
  assert.equal(limit.waitSeconds('10.0.0.1', t0 + 60_000), 0, 'the window ended');
  limit.failed('10.0.0.1', t0 + 60_001);
  assert.equal(limit.waitSeconds('10.0.0.1', t0 + 60_001), 0, 'a new window starts at one failure');
});

test('past maxTracked addresses the oldest window is forgotten first', () => {
  const limit = new SignInLimit({ limit: 1, windowMs: 60_000, maxTracked: 2 });
  limit.failed('a', 0);
  limit.failed('b', 1);
  limit.failed('c', 2);
  assert.equal(limit.waitSeconds('a', 3), 0, 'the oldest was forgotten');
  assert.equal(limit.waitSeconds('b', 3), 60);
  assert.equal(limit.waitSeconds('c', 3), 60);
});

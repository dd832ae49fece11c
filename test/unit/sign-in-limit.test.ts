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

test('after 2,500 failures from 100 addresses a further wrong token from a new address waits at least a second', () => {
  const limit = new SignInLimit({ limit: 30, windowMs: 60_000, maxTracked: 10_000, globalLimit: 300 });
  limit.succeeded('192.0.2.200');
  let t = 1_000_000;
  for (let i = 0; i < 2_500; i++) {
    const address = `198.51.100.${i % 100}`;
    // The attacker keeps trying whatever it is told; a held-back try is not a guess.
    if (limit.waitSeconds(address, t) === 0) limit.failed(address, t);
    t += 1;
  }
  assert.ok(limit.waitSeconds('203.0.113.7', t) >= 1, 'a fresh address is held back too');
  assert.equal(limit.waitSeconds('192.0.2.200', t), 0, 'an address that signed in before is not');
});

test('the global hold grows with each window that reaches the limit again', () => {
  const limit = new SignInLimit({ limit: 1_000, windowMs: 60_000, maxTracked: 100, globalLimit: 10 });
  let t = 0;
  const waits: number[] = [];
  for (let round = 0; round < 3; round++) {
    while (limit.waitSeconds(`a${t % 10}`, t) === 0) limit.failed(`a${t % 10}`, t++);
    waits.push(limit.waitSeconds('fresh', t));
    t += waits[round] * 1000;
  }
  assert.ok(waits[1] > waits[0] && waits[2] > waits[1], `waits ${waits.join(', ')}`);
});

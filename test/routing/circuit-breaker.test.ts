// Circuit breaker: trips, cooldown doubling, single half-open probe, credentials state, resets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CircuitBreaker } from '../../src/routing/circuit-breaker.ts';
import type { BreakerTransition } from '../../src/routing/circuit-breaker.ts';
import { fakeClock } from './fixtures.ts';

function setup(options: ConstructorParameters<typeof CircuitBreaker>[0] = {}) {
  const clock = fakeClock();
  const transitions: BreakerTransition[] = [];
  const breaker = new CircuitBreaker({ now: clock.now, onTransition: (t) => transitions.push(t), ...options });
  return { clock, breaker, transitions };
}

function fail(breaker: CircuitBreaker, id: string, times: number): void {
  for (let i = 0; i < times; i++) breaker.onFailure(id);
}

test('opens after 5 consecutive failures, not 4; success in between resets the run', () => {
  const { breaker } = setup();
  fail(breaker, 'a', 4);
  assert.equal(breaker.state('a'), 'closed');
  breaker.onSuccess('a');
  fail(breaker, 'a', 4);
  assert.equal(breaker.state('a'), 'closed');
  breaker.onFailure('a');
  assert.equal(breaker.state('a'), 'open');
  assert.equal(breaker.allows('a'), false);
  assert.equal(breaker.begin('a'), false);
  assert.equal(breaker.state('b'), 'closed', 'other deployments are unaffected');
});

test('opens on ≥50 % failures of ≥10 calls in the window without 5 in a row', () => {
  const { breaker } = setup();
  for (let i = 0; i < 4; i++) {
    breaker.onFailure('a');
    breaker.onSuccess('a');
  }
  assert.equal(breaker.state('a'), 'closed', '4 of 8: too few calls');
  breaker.onSuccess('a');
  assert.equal(breaker.state('a'), 'closed', '4 of 9');
  breaker.onFailure('a');
  assert.equal(breaker.state('a'), 'open', '5 of 10');
});

test('below the rate, or with too few calls, it stays closed', () => {
  const { breaker } = setup();
  for (let i = 0; i < 4; i++) breaker.onFailure('a');
  breaker.onSuccess('a');
  for (let i = 0; i < 4; i++) breaker.onFailure('a');
  assert.equal(breaker.state('a'), 'closed', '8 of 9 calls, never 5 in a row');
  for (let i = 0; i < 9; i++) breaker.onSuccess('a');
  breaker.onFailure('a');
  assert.equal(breaker.state('a'), 'closed', '9 of 19');
});

test('failures older than the window do not count toward the rate', () => {
  const { breaker, clock } = setup();
  for (let i = 0; i < 4; i++) breaker.onFailure('a');
  breaker.onSuccess('a');
  clock.advance(31_000);
  for (let i = 0; i < 5; i++) breaker.onSuccess('a');
  for (let i = 0; i < 4; i++) breaker.onFailure('a');
  assert.equal(breaker.state('a'), 'closed', '4 of 9 recent calls; 8 of 14 if the old ones counted');
  breaker.onSuccess('a');
  assert.equal(breaker.state('a'), 'closed');
});

test('cooldown 30 s, then exactly one half-open probe; success closes', () => {
  const { breaker, clock, transitions } = setup();
  fail(breaker, 'a', 5);
  clock.advance(29_999);
  assert.equal(breaker.allows('a'), false);
  clock.advance(1);
  assert.equal(breaker.state('a'), 'half-open');
  assert.equal(breaker.begin('a'), true);
  assert.equal(breaker.allows('a'), false, 'the probe slot is taken');
  assert.equal(breaker.begin('a'), false);
  breaker.onSuccess('a');
  assert.equal(breaker.state('a'), 'closed');
  assert.equal(breaker.begin('a'), true);
  assert.equal(breaker.begin('a'), true, 'closed lets everything through');
  assert.deepEqual(
    transitions.map((t) => `${t.from}->${t.to}`),
    ['closed->open', 'open->half-open', 'half-open->closed'],
  );
  assert.equal(transitions[0].cooldownMs, 30_000);
});

test('a failed probe reopens with a doubled cooldown, capped; a close resets the doubling', () => {
  const { breaker, clock, transitions } = setup({ maxCooldownMs: 100_000 });
  fail(breaker, 'a', 5);
  const cooldowns: number[] = [];
  for (let i = 0; i < 4; i++) {
    clock.advance(transitions.at(-1)?.cooldownMs ?? 0);
    assert.equal(breaker.begin('a'), true);
    breaker.onFailure('a');
  }
  for (const t of transitions) if (t.to === 'open') cooldowns.push(t.cooldownMs ?? -1);
  assert.deepEqual(cooldowns, [30_000, 60_000, 100_000, 100_000, 100_000]);
  clock.advance(100_000);
  breaker.begin('a');
  breaker.onSuccess('a');
  fail(breaker, 'a', 5);
  assert.equal(transitions.at(-1)?.cooldownMs, 30_000);
});

test('after closing, old failures are forgotten', () => {
  const { breaker, clock } = setup();
  fail(breaker, 'a', 5);
  clock.advance(30_000);
  breaker.begin('a');
  breaker.onSuccess('a');
  fail(breaker, 'a', 4);
  assert.equal(breaker.state('a'), 'closed');
});

test('a probe that never reports frees its slot after probeTimeoutMs; release frees it at once', () => {
  const { breaker, clock } = setup({ probeTimeoutMs: 10_000 });
  fail(breaker, 'a', 5);
  clock.advance(30_000);
  assert.equal(breaker.begin('a'), true);
  clock.advance(9_999);
  assert.equal(breaker.begin('a'), false);
  clock.advance(1);
  assert.equal(breaker.begin('a'), true, 'stale probe');
  breaker.release('a');
  assert.equal(breaker.state('a'), 'half-open');
  assert.equal(breaker.begin('a'), true, 'released');
});

test('late answers from before the breaker opened change nothing', () => {
  const { breaker } = setup();
  fail(breaker, 'a', 5);
  breaker.onSuccess('a');
  assert.equal(breaker.state('a'), 'open');
  breaker.onFailure('a');
  assert.deepEqual(breaker.snapshot(), [
    { deploymentId: 'a', state: 'open', consecutiveFailures: 0, retryInMs: 30_000 },
  ]);
});

test('credentials rejected: out until a re-probe (60 s doubling to 15 min) or reset, reported once (issue 39)', () => {
  const { breaker, clock, transitions } = setup();
  assert.equal(breaker.onCredentialsRejected('a'), true);
  assert.equal(breaker.onCredentialsRejected('a'), false);
  clock.advance(59_999);
  assert.equal(breaker.state('a'), 'credentials');
  assert.equal(breaker.allows('a'), false);
  breaker.onSuccess('a');
  breaker.onFailure('a');
  assert.equal(breaker.state('a'), 'credentials', 'late answers do not lift it');
  clock.advance(1);
  assert.equal(breaker.allows('a'), true, 'due for a re-probe');
  assert.equal(breaker.begin('a'), true);
  assert.equal(breaker.begin('a'), false, 'one re-probe at a time');
  assert.equal(breaker.onCredentialsRejected('a'), false, 'a failed re-probe is no new incident');
  // The waits double: 120 s, 240 s, …, capped at 15 min.
  const waits: number[] = [];
  for (let i = 0; i < 6; i++) {
    let waited = 0;
    while (!breaker.allows('a')) {
      clock.advance(1_000);
      waited += 1_000;
    }
    waits.push(waited);
    breaker.begin('a');
    breaker.onCredentialsRejected('a');
  }
  assert.deepEqual(waits, [120_000, 240_000, 480_000, 900_000, 900_000, 900_000]);
  while (!breaker.allows('a')) clock.advance(1_000);
  breaker.begin('a');
  breaker.onSuccess('a');
  assert.equal(breaker.state('a'), 'closed', 'a working key closes it');
  const loud = transitions.filter((t) => t.reprobe !== true).map((t) => `${t.from}->${t.to}`);
  assert.deepEqual(loud, ['closed->credentials', 'half-open->closed'], 'each change reported once');
  breaker.onCredentialsRejected('a');
  breaker.reset('a');
  assert.equal(breaker.state('a'), 'closed');
  assert.equal(breaker.allows('a'), true);
});

test('reset() without an id clears every deployment', () => {
  const { breaker } = setup();
  fail(breaker, 'a', 5);
  breaker.onCredentialsRejected('b');
  breaker.reset();
  assert.equal(breaker.state('a'), 'closed');
  assert.equal(breaker.state('b'), 'closed');
  assert.deepEqual(breaker.snapshot(), []);
});

test('bad options fail at construction', () => {
  assert.throws(() => new CircuitBreaker({ consecutiveFailures: 0 }), RangeError);
  assert.throws(() => new CircuitBreaker({ failureRate: 1.5 }), RangeError);
  assert.throws(() => new CircuitBreaker({ cooldownMs: Number.NaN }), RangeError);
});

test('availableInMs: 0 when it may be tried, the rest of the cooldown when open, a second while a probe is out, null for credentials', () => {
  const { breaker, clock } = setup({ cooldownMs: 30_000 });
  assert.equal(breaker.availableInMs('a'), 0);
  fail(breaker, 'a', 5);
  assert.equal(breaker.availableInMs('a'), 30_000);
  clock.advance(10_000);
  assert.equal(breaker.availableInMs('a'), 20_000);
  clock.advance(20_000);
  assert.equal(breaker.availableInMs('a'), 0, 'due for its probe');
  assert.equal(breaker.begin('a'), true);
  assert.equal(breaker.availableInMs('a'), 1_000, 'another request waits for the probe to settle it');
  breaker.onCredentialsRejected('b');
  assert.equal(breaker.availableInMs('b'), null);
});

test('health(): recent calls and failures in the window, the last failure and how long ago, the cooldown left', () => {
  const { clock, breaker } = setup();
  assert.deepEqual(breaker.health('a'), {
    state: 'closed',
    consecutiveFailures: 0,
    retryInMs: 0,
    recentCalls: 0,
    recentFailures: 0,
    lastFailure: null,
  });
  breaker.onFailure('a', 'HTTP 503');
  breaker.onSuccess('a');
  breaker.onSuccess('a');
  clock.advance(1_000);
  let h = breaker.health('a');
  assert.deepEqual(
    [h.state, h.recentCalls, h.recentFailures, h.lastFailure],
    ['closed', 3, 1, { reason: 'HTTP 503', agoMs: 1_000 }],
  );
  clock.advance(60_000);
  h = breaker.health('a');
  assert.deepEqual([h.recentCalls, h.recentFailures], [0, 0], 'outside the window');
  assert.equal(h.lastFailure?.reason, 'HTTP 503', 'the last failure is kept');
  fail(breaker, 'a', 5);
  clock.advance(10_000);
  h = breaker.health('a');
  assert.deepEqual([h.state, h.retryInMs, h.lastFailure?.reason], ['open', 20_000, 'failed']);
  breaker.onCredentialsRejected('b');
  assert.match(breaker.health('b').lastFailure?.reason ?? '', /credentials/);
});

// AttemptPlan: ordering, failover, backoff, retry-after, deadline, breaker and credential interplay.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CircuitBreaker } from '../../src/routing/circuit-breaker.ts';
import { KeyRotation } from '../../src/routing/key-rotation.ts';
import { AttemptPlan } from '../../src/routing/plan.ts';
import type { AttemptPlanOptions } from '../../src/routing/plan.ts';
import type { AttemptOutcome, PlanEndReason } from '../../src/routing/outcome.ts';
import type { DeploymentConfig, ModelConfig } from '../../src/core/config-types.ts';
import { fakeClock, model, provider } from './fixtures.ts';
import { seededRandom } from '../helpers/seeded-random.ts';
import type { FakeClock } from './fixtures.ts';

interface Rig {
  clock: FakeClock;
  breaker: CircuitBreaker;
  keys: KeyRotation;
  plan: (m: ModelConfig, extra?: Partial<AttemptPlanOptions>) => AttemptPlan;
}

function rig(breakerOptions: ConstructorParameters<typeof CircuitBreaker>[0] = {}): Rig {
  const clock = fakeClock();
  const breaker = new CircuitBreaker({ now: clock.now, ...breakerOptions });
  const keys = new KeyRotation();
  return {
    clock,
    breaker,
    keys,
    plan: (m, extra = {}) =>
      new AttemptPlan({ model: m, breaker, keys, now: clock.now, random: seededRandom(1), ...extra }),
  };
}

interface Step {
  id: string;
  delayMs: number;
  apiKey: string | null;
}

/** Runs a plan to its end against a scripted upstream; each attempt takes `attemptMs`. */
function drive(
  plan: AttemptPlan,
  run: { clock: FakeClock; respond: (d: DeploymentConfig, attempt: number) => AttemptOutcome; attemptMs?: number },
): { steps: Step[]; reason: PlanEndReason } {
  const steps: Step[] = [];
  for (;;) {
    const next = plan.next();
    if (next.done === true) return { steps, reason: next.reason };
    steps.push({ id: next.deployment.id, delayMs: next.delayMs, apiKey: next.apiKey });
    run.clock.advance(next.delayMs + (run.attemptMs ?? 100));
    plan.record(next.deployment.id, run.respond(next.deployment, next.attempt));
  }
}

const ok: AttemptOutcome = { kind: 'success' };
const s503: AttemptOutcome = { kind: 'retryable', status: 503 };
const always = (outcome: AttemptOutcome) => () => outcome;

test('first success ends the plan', () => {
  const r = rig();
  const plan = r.plan(model([{}]));
  const { steps, reason } = drive(plan, { clock: r.clock, respond: always(ok) });
  assert.deepEqual(
    steps.map((s) => [s.id, s.delayMs]),
    [['m#0', 0]],
  );
  assert.equal(reason, 'succeeded');
});

test('lower priority tier first, whatever the weights', () => {
  for (let seed = 0; seed < 20; seed++) {
    const r = rig();
    const plan = r.plan(model([{ priority: 2, weight: 100 }, { priority: 1, weight: 1 }, { priority: 3 }]), {
      random: seededRandom(seed),
    });
    const next = plan.next();
    assert.equal(next.done !== true && next.deployment.id, 'm#1');
  }
});

test('weighted random within a tier follows the weights (seeded)', () => {
  const r = rig();
  const m = model([{ weight: 3 }, { weight: 1 }, { weight: 0 }, { priority: 1, weight: 50 }]);
  const random = seededRandom(42);
  const counts = new Map<string, number>();
  for (let i = 0; i < 4000; i++) {
    const next = r.plan(m, { random }).next();
    assert.ok(next.done !== true);
    counts.set(next.deployment.id, (counts.get(next.deployment.id) ?? 0) + 1);
  }
  const share = (counts.get('m#0') ?? 0) / 4000;
  assert.ok(share > 0.72 && share < 0.78, `m#0 share ${share}`);
  assert.equal(counts.get('m#2'), undefined, 'weight 0 is never picked while others have weight');
  assert.equal(counts.get('m#3'), undefined);
});

test('all weights 0 in a tier: picked evenly', () => {
  const r = rig();
  const m = model([{ weight: 0 }, { weight: 0 }]);
  const random = seededRandom(7);
  let first = 0;
  for (let i = 0; i < 2000; i++) {
    const next = r.plan(m, { random }).next();
    if (next.done !== true && next.deployment.id === 'm#0') first++;
  }
  assert.ok(first > 900 && first < 1100, `m#0 picked ${first} times`);
});

test('failover: every deployment once without waiting, then the failed ones again with backoff', () => {
  const r = rig();
  const plan = r.plan(model([{ priority: 0 }, { priority: 1 }, { priority: 2 }]));
  const { steps, reason } = drive(plan, { clock: r.clock, respond: always(s503) });
  // m#0 failed at t=100; by t=300 it has waited 200 ms of its 1 s; m#1 failed at 200, m#2 at 300.
  assert.deepEqual(
    steps.map((s) => [s.id, s.delayMs]),
    [
      ['m#0', 0],
      ['m#1', 0],
      ['m#2', 0],
      ['m#0', 800],
      ['m#1', 0],
      ['m#2', 0],
    ],
  );
  assert.equal(reason, 'retries-exhausted');
  assert.equal(steps.length, 6, 'maxRetries 5 → 6 attempts');
  assert.equal(plan.finalError().status, 502);
  assert.match(plan.finalError().message, /6 attempts on 3 deployments/);
});

test('a failed deployment is not retried while a fresh one remains, even a worse tier', () => {
  const r = rig();
  const plan = r.plan(model([{ priority: 0 }, { priority: 9 }]));
  const { steps } = drive(plan, { clock: r.clock, respond: (d) => (d.id === 'm#1' ? ok : s503) });
  assert.deepEqual(
    steps.map((s) => s.id),
    ['m#0', 'm#1'],
  );
});

test('one deployment: backoff 1 s doubling, 5 retries at most (SPEC §8)', () => {
  const r = rig({ consecutiveFailures: 100, minCalls: 100 });
  const plan = r.plan(model([{}]));
  const { steps, reason } = drive(plan, { clock: r.clock, respond: always(s503), attemptMs: 0 });
  assert.deepEqual(
    steps.map((s) => s.delayMs),
    [0, 1000, 2000, 4000, 8000, 16000],
  );
  assert.equal(reason, 'retries-exhausted');
});

test('maxRetries per model: 0 means a single attempt', () => {
  const r = rig();
  const plan = r.plan(model([{}, {}], { maxRetries: 0 }));
  const { steps, reason } = drive(plan, { clock: r.clock, respond: always(s503) });
  assert.equal(steps.length, 1);
  assert.equal(reason, 'retries-exhausted');
});

test('the default breaker cuts a single failing deployment short; the caller still sees 502', () => {
  const r = rig();
  const plan = r.plan(model([{}]));
  const { steps, reason } = drive(plan, { clock: r.clock, respond: always(s503), attemptMs: 0 });
  assert.equal(steps.length, 5);
  assert.equal(reason, 'none-available');
  assert.equal(r.breaker.state('m#0'), 'open');
  assert.equal(plan.finalError().status, 502);
});

test('retry-after longer than the backoff is honoured', () => {
  const r = rig();
  const plan = r.plan(model([{}]));
  const { steps } = drive(plan, {
    clock: r.clock,
    attemptMs: 0,
    respond: (_d, attempt) => (attempt === 1 ? { kind: 'retryable', status: 429, retryAfterMs: 5000 } : ok),
  });
  assert.deepEqual(
    steps.map((s) => s.delayMs),
    [0, 5000],
  );
});

test('retry-after beyond the deadline ends the plan: 429 with that retry-after', () => {
  const r = rig();
  const plan = r.plan(model([{}], { timeouts: { connectMs: 1000, firstByteMs: 5000, idleMs: 5000, totalMs: 10_000 } }));
  const { steps, reason } = drive(plan, {
    clock: r.clock,
    respond: always({ kind: 'retryable', status: 429, retryAfterMs: 60_000 }),
  });
  assert.equal(steps.length, 1);
  assert.equal(reason, 'deadline');
  const error = plan.finalError();
  assert.equal(error.status, 429);
  assert.equal(error.retryAfterMs, 60_000);
});

test('every deployment rate-limited: 429 with the smallest retry-after', () => {
  const r = rig();
  const plan = r.plan(
    model([{}, {}], { timeouts: { connectMs: 1000, firstByteMs: 5000, idleMs: 5000, totalMs: 20_000 } }),
  );
  const { steps, reason } = drive(plan, {
    clock: r.clock,
    respond: (d) => ({ kind: 'retryable', status: 429, retryAfterMs: d.id === 'm#0' ? 40_000 : 30_000 }),
  });
  assert.equal(steps.length, 2);
  assert.equal(reason, 'deadline');
  assert.equal(plan.finalError().retryAfterMs, 30_000);
});

test('our own backoff is shortened to fit the deadline, leaving 1 s for the attempt', () => {
  const r = rig({ consecutiveFailures: 100, minCalls: 100 });
  const plan = r.plan(model([{}], { timeouts: { connectMs: 1000, firstByteMs: 5000, idleMs: 5000, totalMs: 6_000 } }));
  const { steps, reason } = drive(plan, { clock: r.clock, respond: always(s503), attemptMs: 0 });
  // t=0 fail; 1 s → t=1000 fail; 2 s → t=3000 fail; 4 s would end at 7000, past 6000 − 1000: wait 2 s.
  assert.deepEqual(
    steps.map((s) => s.delayMs),
    [0, 1000, 2000, 2000],
  );
  assert.equal(reason, 'deadline');
  assert.equal(plan.finalError().status, 504);
});

test('past the deadline no attempt starts', () => {
  const r = rig();
  const plan = r.plan(
    model([{}, {}], { timeouts: { connectMs: 1000, firstByteMs: 5000, idleMs: 5000, totalMs: 5_000 } }),
  );
  const { steps, reason } = drive(plan, {
    clock: r.clock,
    respond: always({ kind: 'retryable', timeout: true }),
    attemptMs: 4_500,
  });
  assert.equal(steps.length, 1);
  assert.equal(reason, 'deadline');
  assert.equal(plan.finalError().status, 504);
  assert.equal(plan.deadline, 1_000_000 + 5_000);
});

test('open deployments are skipped; when all are open: panic routing tries the one recovering first (issue 39)', () => {
  const r = rig();
  const m = model([{ priority: 0 }, { priority: 1 }]);
  for (let i = 0; i < 5; i++) r.breaker.onFailure('m#0');
  const first = r.plan(m).next();
  assert.equal(first.done !== true && first.deployment.id, 'm#1');
  r.clock.advance(1_000);
  for (let i = 0; i < 5; i++) r.breaker.onFailure('m#1');
  const plan = r.plan(m);
  const step = plan.next();
  assert.ok(step.done !== true);
  assert.equal(step.deployment.id, 'm#0', 'its cooldown ends first');
  assert.equal(step.panic, true);
  assert.equal(step.delayMs, 0);
  plan.record('m#0', ok);
  assert.equal(r.breaker.state('m#0'), 'closed', 'a panic success closes the breaker');
  assert.equal(r.breaker.state('m#1'), 'open');
});

test('a panic attempt that fails ends the plan after that one attempt (502, not 503)', () => {
  const r = rig();
  const m = model([{}]);
  for (let i = 0; i < 5; i++) r.breaker.onFailure('m#0');
  const plan = r.plan(m);
  const { steps, reason } = drive(plan, { clock: r.clock, respond: always(s503) });
  assert.equal(steps.length, 1);
  assert.equal(reason, 'none-available');
  assert.equal(plan.finalError().status, 502);
  assert.equal(r.breaker.state('m#0'), 'open');
});

test('nothing to panic to: refused credentials only → none-available, 503 with 0 attempts', () => {
  const r = rig();
  const m = model([{}]);
  r.breaker.onCredentialsRejected('m#0');
  const plan = r.plan(m);
  assert.deepEqual(plan.next(), { done: true, reason: 'none-available' });
  assert.deepEqual(plan.next(), { done: true, reason: 'none-available' }, 'stays ended');
  const error = plan.finalError();
  assert.equal(error.status, 503);
  assert.match(error.message, /0 attempts/);
});

test('a 429 is a rate signal: it never opens the breaker (issue 39)', () => {
  const r = rig({ consecutiveFailures: 2 });
  const m = model([{ priority: 0 }, { priority: 1 }]);
  for (let i = 0; i < 5; i++) {
    const plan = r.plan(m);
    const step = plan.next();
    assert.ok(step.done !== true && step.deployment.id === 'm#0');
    plan.record(step.deployment.id, { kind: 'retryable', status: 429, retryAfterMs: 1_000 });
    plan.cancel();
    // Past its retry-after: the deployment is the first choice again.
    r.clock.advance(1_000);
  }
  assert.equal(r.breaker.state('m#0'), 'closed');
});

test("a 429's retry-after steers later requests to the other deployments until it has passed", () => {
  const r = rig();
  const m = model([{ priority: 0 }, { priority: 1 }]);
  const first = r.plan(m);
  const step = first.next();
  assert.ok(step.done !== true && step.deployment.id === 'm#0');
  first.record('m#0', { kind: 'retryable', status: 429, retryAfterMs: 10_000 });
  first.cancel();
  const pick = (): string => {
    const next = r.plan(m).next();
    assert.ok(next.done !== true);
    return next.deployment.id;
  };
  assert.equal(pick(), 'm#1', 'a later request goes to the worse tier while m#0 rests');
  assert.equal(r.breaker.health('m#0').retryInMs, 10_000);
  assert.equal(r.breaker.state('m#0'), 'closed', 'resting is not a failure');
  r.clock.advance(9_999);
  assert.equal(pick(), 'm#1');
  r.clock.advance(1);
  assert.equal(pick(), 'm#0', 'the rest is over');
});

test('a 429 without retry-after steers nothing; the rate-limited request itself still waits for its retry-after', () => {
  const r = rig();
  const m = model([{ priority: 0 }, { priority: 1 }]);
  const first = r.plan(m);
  const a = first.next();
  assert.ok(a.done !== true && a.deployment.id === 'm#0');
  first.record('m#0', { kind: 'retryable', status: 429 });
  first.cancel();
  const later = r.plan(m).next();
  assert.ok(later.done !== true && later.deployment.id === 'm#0');

  // Only deployment, resting: the request that was told to wait retries it after the wait; a request
  // arriving meanwhile is not refused (panic routing sends it).
  const solo = rig();
  const one = model([{}]);
  const { steps, reason } = drive(solo.plan(one), {
    clock: solo.clock,
    attemptMs: 0,
    respond: (_d, attempt) => (attempt === 1 ? { kind: 'retryable', status: 429, retryAfterMs: 5000 } : ok),
  });
  assert.deepEqual(
    steps.map((s) => s.delayMs),
    [0, 5000],
  );
  assert.equal(reason, 'succeeded');
  const told = solo.plan(one);
  const asked = told.next();
  assert.ok(asked.done !== true);
  told.record(asked.deployment.id, { kind: 'retryable', status: 429, retryAfterMs: 5000 });
  const meanwhile = solo.plan(one).next();
  assert.ok(
    meanwhile.done !== true && meanwhile.deployment.id === 'm#0' && meanwhile.panic === true,
    'sent by panic routing, not refused',
  );
  const retry = told.next();
  assert.ok(
    retry.done !== true && retry.deployment.id === 'm#0' && retry.delayMs === 5000,
    'the told request waits its retry-after',
  );
});

test('half-open: one request gets the probe, a concurrent one goes elsewhere', () => {
  const r = rig();
  const m = model([{ priority: 0 }, { priority: 1 }]);
  for (let i = 0; i < 5; i++) r.breaker.onFailure('m#0');
  r.clock.advance(30_000);
  const probe = r.plan(m);
  const other = r.plan(m);
  const a = probe.next();
  const b = other.next();
  assert.equal(a.done !== true && a.deployment.id, 'm#0');
  assert.equal(b.done !== true && b.deployment.id, 'm#1');
  probe.record('m#0', ok);
  assert.equal(r.breaker.state('m#0'), 'closed');
});

test('cancel() frees the probe slot and ends the plan', () => {
  const r = rig();
  const m = model([{}]);
  for (let i = 0; i < 5; i++) r.breaker.onFailure('m#0');
  r.clock.advance(30_000);
  const plan = r.plan(m);
  assert.equal(plan.next().done, undefined);
  assert.equal(r.breaker.allows('m#0'), false);
  plan.cancel();
  assert.equal(r.breaker.allows('m#0'), true);
  assert.deepEqual(plan.next(), { done: true, reason: 'cancelled' });
  assert.equal(plan.finalError().status, 499);
});

test('upstream 4xx is final, reaches the caller, and counts as a healthy upstream', () => {
  const r = rig();
  for (let i = 0; i < 4; i++) r.breaker.onFailure('m#0');
  const plan = r.plan(model([{ priority: 0 }, { priority: 1 }]));
  const { steps, reason } = drive(plan, { clock: r.clock, respond: always({ kind: 'fatal', status: 400 }) });
  assert.deepEqual(
    steps.map((s) => s.id),
    ['m#0'],
  );
  assert.equal(reason, 'fatal');
  assert.equal(plan.finalError().status, 400);
  r.breaker.onFailure('m#0');
  assert.equal(r.breaker.state('m#0'), 'closed', 'the 400 broke the run of failures');
});

test('upstream 501 is final and counts against the deployment', () => {
  const r = rig({ consecutiveFailures: 1 });
  const plan = r.plan(model([{}, {}]));
  const { steps, reason } = drive(plan, { clock: r.clock, respond: always({ kind: 'fatal', status: 501 }) });
  assert.equal(reason, 'fatal');
  assert.equal(r.breaker.state(steps[0].id), 'open');
  assert.equal(plan.finalError().status, 502);
});

test('a refused key: the next key at once; all refused: deployment out until reset', () => {
  const r = rig();
  const p = provider('p', ['sk-key-one-1111', 'sk-key-two-2222']);
  const m = model([{ provider: p }]);
  const plan = r.plan(m);
  const { steps, reason } = drive(plan, { clock: r.clock, respond: always({ kind: 'credentials', status: 401 }) });
  assert.deepEqual(
    steps.map((s) => [s.apiKey, s.delayMs]),
    [
      ['sk-key-one-1111', 0],
      ['sk-key-two-2222', 0],
    ],
  );
  assert.equal(reason, 'none-available');
  assert.equal(r.breaker.state('m#0'), 'credentials');
  assert.equal(plan.finalError().status, 502);
  assert.match(plan.finalError().message, /refused the gateway's credentials/);
  assert.doesNotMatch(plan.finalError().message, /sk-/);
  r.breaker.reset();
  r.keys.reset();
  const again = r.plan(m).next();
  assert.equal(again.done !== true && again.apiKey, 'sk-key-one-1111');
});

test('a refused key fails over to another deployment first', () => {
  const r = rig();
  const m = model([{ priority: 0, provider: provider('p', ['k1', 'k2']) }, { priority: 1 }]);
  const plan = r.plan(m);
  const { steps } = drive(plan, {
    clock: r.clock,
    respond: (d) => (d.id === 'm#0' ? { kind: 'credentials', status: 403 } : ok),
  });
  assert.deepEqual(
    steps.map((s) => s.id),
    ['m#0', 'm#1'],
  );
  assert.equal(r.breaker.state('m#0'), 'closed', 'k2 is still usable');
});

test('keyless deployment refused: straight to credentials state', () => {
  const r = rig();
  const plan = r.plan(model([{}]));
  const { reason } = drive(plan, { clock: r.clock, respond: always({ kind: 'credentials', status: 401 }) });
  assert.equal(reason, 'none-available');
  assert.equal(r.breaker.state('m#0'), 'credentials');
});

test('mis-sequenced calls are programming errors', () => {
  const r = rig();
  const plan = r.plan(model([{}, {}]));
  assert.throws(() => plan.record('m#0', ok), /does not match/);
  const step = plan.next();
  assert.ok(step.done !== true);
  assert.throws(() => plan.next(), /before record/);
  assert.throws(() => plan.record('m#9', ok), /does not match/);
  plan.record(step.deployment.id, ok);
  assert.deepEqual(plan.next(), { done: true, reason: 'succeeded' });
});

test('the backoff counts from the end of the failed attempt, not its start', () => {
  const r = rig();
  const plan = r.plan(model([{}]));
  const { steps, reason } = drive(plan, { clock: r.clock, attemptMs: 250, respond: (_d, n) => (n === 1 ? s503 : ok) });
  assert.deepEqual(
    steps.map((s) => [s.id, s.delayMs]),
    [
      ['m#0', 0],
      ['m#0', 1000],
    ],
  );
  assert.equal(reason, 'succeeded');
});

test('the deadline counts from startedAt when given', () => {
  const r = rig();
  const m = model([{}], { timeouts: { connectMs: 1000, firstByteMs: 5000, idleMs: 5000, totalMs: 5_000 } });
  const plan = r.plan(m, { startedAt: r.clock.now() - 4_500 });
  assert.equal(plan.deadline, r.clock.now() + 500);
  assert.deepEqual(plan.next(), { done: true, reason: 'deadline' });
  assert.equal(plan.finalError().status, 504);
});

test("the gateway's own failure (local) ends the plan with a 500 and never touches the breaker (issue 39)", () => {
  const r = rig({ consecutiveFailures: 2 });
  const m = model([{}]);
  for (let i = 0; i < 5; i++) {
    const plan = r.plan(m);
    const { steps, reason } = drive(plan, { clock: r.clock, respond: always({ kind: 'local' }) });
    assert.equal(steps.length, 1, 'not retried: another attempt would fail the same way');
    assert.equal(reason, 'local');
    assert.equal(plan.finalError().status, 500);
    assert.equal(plan.finalError().code, 'internal_error');
  }
  assert.equal(r.breaker.state(m.deployments[0].id), 'closed');
});

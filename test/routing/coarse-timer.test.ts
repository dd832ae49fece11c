// Coarse clocks on a driven clock: never early, fired at the first tick after their time, restarted
// by chunks without a clock read, capped by the deadline; short clocks stay native and on time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CoarseClock, CoarseTimer, NATIVE_MAX_MS, processClock } from '../../src/routing/coarse-timer.ts';
import { AttemptWatch, type ClientLink } from '../../src/routing/attempt-watch.ts';

function driven(start = 0): { clock: CoarseClock; at(ms: number): void; reads: () => number } {
  let now = start;
  let reads = 0;
  const clock = new CoarseClock({
    now: () => {
      reads++;
      return now;
    },
    autoTick: false,
  });
  return {
    clock,
    at(ms) {
      now = ms;
      clock.tick();
    },
    reads: () => reads,
  };
}

test('a coarse clock fires at the first tick at or after its time, never before', () => {
  const d = driven();
  let fired = 0;
  const timer = new CoarseTimer(d.clock, () => fired++);
  timer.start(5_000, Infinity);
  assert.equal(d.clock.size, 1);
  d.at(4_999);
  assert.equal(fired, 0);
  d.at(5_300);
  assert.equal(fired, 1);
  assert.equal(timer.capped, false);
  assert.equal(timer.armed, false, 'a fired timer leaves the list');
  d.at(20_000);
  assert.equal(fired, 1, 'fires once');
});

test('restart() during a stream is a flag until the next tick, which counts the clock again from then', () => {
  const d = driven();
  let fired = 0;
  const timer = new CoarseTimer(d.clock, () => fired++);
  timer.start(2_000, Infinity);
  const readsAfterStart = d.reads();
  for (let i = 0; i < 100; i++) timer.restart();
  assert.equal(d.reads(), readsAfterStart, 'no clock read per chunk');
  d.at(1_500); // the tick takes the restart: due 3,500
  d.at(3_000);
  assert.equal(fired, 0);
  d.at(3_500);
  assert.equal(fired, 1);
});

test('the cap wins when it comes first, and a restart does not move a capped clock', () => {
  const d = driven();
  let fired = 0;
  const timer = new CoarseTimer(d.clock, () => fired++);
  timer.start(10_000, 4_000);
  assert.equal(timer.capped, true);
  timer.restart();
  d.at(3_999);
  assert.equal(fired, 0);
  d.at(4_000);
  assert.equal(fired, 1);

  const late = new CoarseTimer(d.clock, () => fired++);
  late.start(3_000, 9_000); // due 7,000, not capped
  assert.equal(late.capped, false);
  late.restart();
  d.at(6_500); // restart counted from 6,500 would be 9,500: the cap (9,000) applies
  assert.equal(late.capped, true);
  d.at(8_999);
  assert.equal(fired, 1);
  d.at(9_000);
  assert.equal(fired, 2);
});

test('clear() removes a timer from the middle of the list; the others still fire', () => {
  const d = driven();
  const fired: string[] = [];
  const timers = ['a', 'b', 'c'].map((name) => {
    const t = new CoarseTimer(d.clock, () => fired.push(name));
    t.start(2_000, Infinity);
    return t;
  });
  timers[0].clear();
  assert.equal(d.clock.size, 2);
  assert.equal(timers[0].armed, false);
  d.at(2_000);
  assert.deepEqual(fired.sort(), ['b', 'c']);
  assert.equal(d.clock.size, 0);
});

test('a callback may arm another timer during a tick; it fires on a later tick', () => {
  const d = driven();
  const fired: string[] = [];
  const second = new CoarseTimer(d.clock, () => fired.push('second'));
  const first = new CoarseTimer(d.clock, () => {
    fired.push('first');
    second.start(2_000, Infinity);
  });
  first.start(2_000, Infinity);
  d.at(2_000);
  assert.deepEqual(fired, ['first']);
  d.at(4_000);
  assert.deepEqual(fired, ['first', 'second']);
});

test(`clocks of ${NATIVE_MAX_MS} ms or less stay native and fire on time`, async () => {
  const start = performance.now();
  const fired = await new Promise<number>((resolve) => {
    const t = new CoarseTimer(processClock, () => resolve(performance.now()));
    t.start(50, Infinity);
    assert.equal(processClock.size, 0, 'not on the coarse list');
  });
  assert.ok(fired - start >= 45, `fired after ${Math.round(fired - start)} ms`);
});

test('the process clock ticks by itself and stops ticking once nothing is armed', async () => {
  const clock = new CoarseClock();
  const start = performance.now();
  const at = await new Promise<number>((resolve) => new CoarseTimer(clock, () => resolve(performance.now())).start(NATIVE_MAX_MS + 1, Infinity));
  assert.ok(at - start >= NATIVE_MAX_MS + 1 - 5, 'not early');
  assert.ok(at - start < NATIVE_MAX_MS + 1 + 1_000 + 250, `fired within a second after its time (${Math.round(at - start)} ms)`);
  assert.equal(clock.size, 0);
});

function client(): ClientLink {
  return { aborted: false, onGone: () => undefined, offGone: () => undefined };
}

test('an attempt with long clocks: first-byte, then idle restarted by chunks, then the deadline, each named', () => {
  const d = driven();
  const reasons: string[] = [];
  const firstByte = new AttemptWatch({ client: client(), firstByteMs: 120_000, idleMs: 60_000, deadline: 600_000, clock: d.clock });
  firstByte.onStop(() => reasons.push(firstByte.reason ?? '?'));
  d.at(119_999);
  assert.equal(reasons.length, 0);
  d.at(120_000);
  assert.deepEqual(reasons, ['first-byte']);

  const idle = new AttemptWatch({ client: client(), firstByteMs: 120_000, idleMs: 60_000, deadline: 600_000, clock: d.clock });
  idle.onStop(() => reasons.push(idle.reason ?? '?'));
  idle.chunk(); // idle clock from 120,000: due 180,000
  d.at(150_000);
  idle.chunk();
  d.at(170_000); // the tick takes the chunk: due 230,000
  d.at(229_999);
  assert.equal(idle.reason, null);
  d.at(230_000);
  assert.deepEqual(reasons, ['first-byte', 'idle']);

  const total = new AttemptWatch({ client: client(), firstByteMs: 120_000, idleMs: 60_000, deadline: 300_000, clock: d.clock });
  total.onStop(() => reasons.push(total.reason ?? '?'));
  for (let t = 240_000; t < 300_000; t += 10_000) {
    total.chunk();
    d.at(t);
  }
  assert.equal(total.reason, null);
  d.at(300_000);
  assert.deepEqual(reasons, ['first-byte', 'idle', 'total']);
  assert.equal(d.clock.size, 0);
});

test('a disposed attempt leaves nothing on the coarse list', () => {
  const d = driven();
  const watch = new AttemptWatch({ client: client(), firstByteMs: 120_000, idleMs: 60_000, deadline: 600_000, clock: d.clock });
  assert.equal(d.clock.size, 1);
  watch.chunk();
  watch.dispose();
  assert.equal(d.clock.size, 0);
  d.at(1_000_000);
  assert.equal(watch.reason, null);
});

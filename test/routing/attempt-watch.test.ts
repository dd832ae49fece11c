// The attempt clocks: each fires at its time and not before, moved by chunks; all on mocked timers.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { AttemptWatch } from '../../src/routing/attempt-watch.ts';
import type { ClientLink } from '../../src/routing/attempt-watch.ts';

function client(): ClientLink & { leave(): void } {
  let callback: (() => void) | null = null;
  return {
    aborted: false,
    onGone: (cb) => void (callback = cb),
    offGone: (cb) => void (callback === cb && (callback = null)),
    leave() {
      (this as { aborted: boolean }).aborted = true;
      callback?.();
    },
  };
}

/**
 * Mocked timers whose `refresh()` restarts them as Node's own do (node:test's mocked timers ignore it):
 * the watch refreshes its idle clock on every chunk. `now()` is the mocked clock in ms.
 */
function fakeClock(t: TestContext): { tick(ms: number): void; now(): number } {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const mockedSet = globalThis.setTimeout;
  const mockedClear = globalThis.clearTimeout;
  let now = 0;
  const inner = Symbol('inner');
  type Handle = { [inner]: ReturnType<typeof setTimeout>; refresh(): Handle; unref(): Handle; ref(): Handle };
  globalThis.setTimeout = ((callback: () => void, ms: number) => {
    const handle: Handle = {
      [inner]: mockedSet(callback, ms),
      refresh() {
        mockedClear(handle[inner]);
        handle[inner] = mockedSet(callback, ms);
        return handle;
      },
      unref: () => handle,
      ref: () => handle,
    };
    return handle;
  }) as unknown as typeof setTimeout;
  globalThis.clearTimeout = ((h: Handle | undefined) => mockedClear(h?.[inner])) as typeof clearTimeout;
  t.after(() => {
    globalThis.setTimeout = mockedSet;
    globalThis.clearTimeout = mockedClear;
  });
  return {
    tick(ms) {
      now += ms;
      t.mock.timers.tick(ms);
    },
    now: () => now,
  };
}

test('the first-byte clock fires at its time, not a millisecond before', (t) => {
  const clock = fakeClock(t);
  const watch = new AttemptWatch({
    client: client(),
    firstByteMs: 120,
    idleMs: 10_000,
    deadline: performance.now() + 10_000,
  });
  let stoppedWith: Error | null = null;
  watch.onStop((reason) => (stoppedWith = reason));
  clock.tick(119);
  assert.equal(watch.reason, null);
  clock.tick(1);
  assert.equal(watch.reason, 'first-byte');
  assert.ok(watch.timedOut);
  assert.match(String((stoppedWith as Error | null)?.message), /first-byte/);
});

test('chunks keep the idle clock from firing; silence then fires it, counted from the last chunk', (t) => {
  const clock = fakeClock(t);
  const watch = new AttemptWatch({
    client: client(),
    firstByteMs: 10_000,
    idleMs: 300,
    deadline: performance.now() + 10_000,
  });
  for (let i = 0; i < 10; i++) {
    watch.chunk();
    clock.tick(250);
  }
  assert.equal(watch.reason, null, 'not stopped while chunks come every 250 ms, 2.5 s in all');
  watch.chunk();
  clock.tick(299);
  assert.equal(watch.reason, null);
  clock.tick(1);
  assert.equal(watch.reason, 'idle');
});

test('the request deadline wins when it comes before the phase clock', (t) => {
  const clock = fakeClock(t);
  const watch = new AttemptWatch({
    client: client(),
    firstByteMs: 10_000,
    idleMs: 10_000,
    deadline: performance.now() + 100,
  });
  clock.tick(100);
  assert.equal(watch.reason, 'total');
});

test('a client that leaves stops the attempt at once; a disposed watch never fires', (t) => {
  const clock = fakeClock(t);
  const c = client();
  const watch = new AttemptWatch({
    client: c,
    firstByteMs: 10_000,
    idleMs: 10_000,
    deadline: performance.now() + 10_000,
  });
  c.leave();
  assert.equal(watch.reason, 'client');
  assert.equal(watch.timedOut, false);

  const quiet = new AttemptWatch({
    client: client(),
    firstByteMs: 60,
    idleMs: 60,
    deadline: performance.now() + 10_000,
  });
  quiet.dispose();
  clock.tick(100_000);
  assert.equal(quiet.reason, null);
});

test('held for a client that is not reading, the idle clock waits; released, it runs again; the deadline never waits', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  /** A watch whose stream has begun (idle clock 5 s), with its deadline `ms` from now. */
  const streaming = (ms: number): AttemptWatch => {
    const w = new AttemptWatch({
      client: client(),
      firstByteMs: 5_000,
      idleMs: 5_000,
      deadline: performance.now() + ms,
    });
    w.chunk();
    return w;
  };
  const watch = streaming(60_000);
  watch.hold();
  t.mock.timers.tick(30_000);
  assert.equal(watch.reason, null, 'no idle stop while the gateway itself holds the upstream');
  watch.release();
  t.mock.timers.tick(4_000);
  assert.equal(watch.reason, null, 'the idle clock counts from the release');
  t.mock.timers.tick(1_001);
  assert.equal(watch.reason, 'idle');

  const held = streaming(20_000);
  held.hold();
  t.mock.timers.tick(20_001);
  assert.equal(held.reason, 'total', 'the deadline still ends a held attempt');

  const done = streaming(60_000);
  done.hold();
  done.dispose();
  done.release();
  t.mock.timers.tick(120_000);
  assert.equal(done.reason, null, 'a release after the attempt is over arms nothing');
  const free = streaming(60_000);
  free.release();
  t.mock.timers.tick(5_001);
  assert.equal(free.reason, 'idle', 'a release without a hold leaves the idle clock as it was');
});

test('long clocks: first-byte, then idle, then the deadline, each named', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const reasons: string[] = [];
  const watchFor = (idleMs: number, deadlineMs: number): AttemptWatch => {
    const w = new AttemptWatch({
      client: client(),
      firstByteMs: 120_000,
      idleMs,
      deadline: performance.now() + deadlineMs,
    });
    w.onStop(() => reasons.push(w.reason ?? '?'));
    return w;
  };
  watchFor(60_000, 600_000);
  t.mock.timers.tick(119_999);
  assert.equal(reasons.length, 0);
  t.mock.timers.tick(1);
  assert.deepEqual(reasons, ['first-byte']);

  const idle = watchFor(60_000, 600_000);
  t.mock.timers.tick(100_000);
  idle.chunk(); // the first chunk: the idle clock, due in 60 s
  t.mock.timers.tick(59_999);
  assert.equal(idle.reason, null);
  t.mock.timers.tick(1);
  assert.deepEqual(reasons, ['first-byte', 'idle']);

  const total = watchFor(600_000, 300_000);
  total.chunk();
  t.mock.timers.tick(299_999);
  assert.equal(total.reason, null);
  t.mock.timers.tick(1);
  assert.deepEqual(reasons, ['first-byte', 'idle', 'total']);
});

test('a disposed attempt never fires', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const watch = new AttemptWatch({
    client: client(),
    firstByteMs: 120_000,
    idleMs: 60_000,
    deadline: performance.now() + 600_000,
  });
  watch.chunk();
  watch.dispose();
  t.mock.timers.tick(1_000_000);
  assert.equal(watch.reason, null);
});

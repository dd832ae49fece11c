// The attempt clocks: never early, fired soon after their time, moved by chunks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
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

function stopped(watch: AttemptWatch): Promise<{ reason: Error; at: number }> {
  return new Promise((resolve) => watch.onStop((reason) => resolve({ reason, at: performance.now() })));
}

// Room for a busy CI machine. "Never early" allows EARLY ms: libuv measures timers on its loop clock,
// which can trail performance.now() by a millisecond or two.
const SLACK = 250;
const EARLY = 5;

test('the first-byte clock fires after its time, not before', async () => {
  const start = performance.now();
  const watch = new AttemptWatch({ client: client(), firstByteMs: 120, idleMs: 10_000, deadline: start + 10_000 });
  const { reason, at } = await stopped(watch);
  assert.equal(watch.reason, 'first-byte');
  assert.ok(watch.timedOut);
  assert.match(reason.message, /first-byte/);
  assert.ok(at - start >= 120 - EARLY && at - start < 120 + SLACK, `fired after ${Math.round(at - start)} ms`);
});

test('chunks keep the idle clock from firing; silence then fires it', async () => {
  const start = performance.now();
  const watch = new AttemptWatch({ client: client(), firstByteMs: 10_000, idleMs: 300, deadline: start + 10_000 });
  const done = stopped(watch);
  let lastChunk = 0;
  for (let i = 0; i < 4; i++) {
    watch.chunk();
    lastChunk = performance.now();
    await sleep(50);
  }
  assert.equal(watch.reason, null, 'not stopped while chunks come every 50 ms');
  const { at } = await done;
  assert.equal(watch.reason, 'idle');
  assert.ok(
    at - lastChunk >= 300 - EARLY && at - lastChunk < 300 + SLACK,
    `idle fired ${Math.round(at - lastChunk)} ms after the last chunk`,
  );
});

test('the request deadline wins when it comes before the phase clock', async () => {
  const start = performance.now();
  const watch = new AttemptWatch({ client: client(), firstByteMs: 10_000, idleMs: 10_000, deadline: start + 100 });
  await stopped(watch);
  assert.equal(watch.reason, 'total');
});

test('a client that leaves stops the attempt at once; a disposed watch never fires', async () => {
  const c = client();
  const watch = new AttemptWatch({
    client: c,
    firstByteMs: 10_000,
    idleMs: 10_000,
    deadline: performance.now() + 10_000,
  });
  const done = stopped(watch);
  c.leave();
  await done;
  assert.equal(watch.reason, 'client');
  assert.equal(watch.timedOut, false);

  const quiet = new AttemptWatch({
    client: client(),
    firstByteMs: 60,
    idleMs: 60,
    deadline: performance.now() + 10_000,
  });
  quiet.dispose();
  await sleep(60 + SLACK);
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

// Node's mocked timers do not honour refresh(): chunks restarting the idle clock are tested on real
// timers above.
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

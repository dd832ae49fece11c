// The registry of attempts in progress that a clean stop ends (stopAllAttempts). The stop is for good in
// a process, and every attempt made after it stops at once: this file loads a module instance of its own
// (a URL with a query is another module), so tests that share its process (`npm run test:unit` runs the
// unit files in one) keep theirs running.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AttemptWatch as Watch, ClientLink } from '../../src/routing/attempt-watch.ts';

type WatchModule = typeof import('../../src/routing/attempt-watch.ts');
const { AttemptWatch, stopAllAttempts } = (await import(
  new URL('../../src/routing/attempt-watch.ts?own-registry', import.meta.url).href
)) as WatchModule;

const client: ClientLink = { aborted: false, onGone: () => undefined, offGone: () => undefined };

function watch(): Watch {
  return new AttemptWatch({ client, firstByteMs: 60_000, idleMs: 60_000, deadline: performance.now() + 600_000 });
}

test('a clean stop ends exactly the attempts still in progress, whatever order others ended in', () => {
  const watches = Array.from({ length: 12 }, watch);
  // Ended out of order, the last and the first among them: each removal moves another attempt's slot.
  const ended = [watches[11], watches[0], watches[5], watches[6], watches[1]];
  ended[0].dispose();
  ended[1].dispose();
  ended[2].abandon();
  ended[3].dispose();
  ended[4].dispose();
  ended[4].dispose(); // twice is harmless

  assert.equal(stopAllAttempts(), 7);
  for (const w of watches) {
    if (ended.includes(w)) assert.notEqual(w.reason, 'shutdown');
    else assert.equal(w.reason, 'shutdown');
  }
  assert.equal(ended[2].reason, 'done');
  // Nothing is left to stop, and an attempt started now is stopped before it begins.
  assert.equal(stopAllAttempts(), 0);
  const late = watch();
  assert.equal(late.reason, 'shutdown');
  assert.match(late.stopError?.message ?? '', /shutdown/);
});

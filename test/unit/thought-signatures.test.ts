// The thought signatures kept for callers whose dialect cannot carry them: by call id, for the model that
// made the call, within a size and an age bound.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ThoughtSignatures } from '../../src/dialects/gemini/thought-signatures.ts';

test('a kept signature goes back only to the model that made the call', () => {
  const kept = new ThoughtSignatures();
  kept.remember('call_a', 'gemini-2.5-pro', 'sig-a');
  assert.equal(kept.signatureOf('call_a', 'gemini-2.5-pro'), 'sig-a');
  assert.equal(kept.signatureOf('call_a', 'gemini-3-pro'), undefined, 'another model would refuse it');
  assert.equal(kept.signatureOf('call_b', 'gemini-2.5-pro'), undefined);
  kept.remember('call_a', 'gemini-2.5-pro', 'sig-a2');
  assert.equal(kept.signatureOf('call_a', 'gemini-2.5-pro'), 'sig-a2', 'the latest wins');
});

test('past the size bound the oldest go first; past the age bound a signature is gone', () => {
  let now = 0;
  const kept = new ThoughtSignatures({ maxChars: 10, maxAgeMs: 1_000, now: () => now });
  kept.remember('one', 'm', 'aaaa');
  kept.remember('two', 'm', 'bbbb');
  kept.remember('three', 'm', 'cccc');
  assert.equal(kept.signatureOf('one', 'm'), undefined, 'evicted: 12 characters would pass the bound');
  assert.equal(kept.signatureOf('two', 'm'), 'bbbb');
  assert.equal(kept.signatureOf('three', 'm'), 'cccc');
  kept.remember('huge', 'm', 'x'.repeat(11));
  assert.equal(kept.signatureOf('huge', 'm'), undefined, 'one signature past the whole bound is not kept');
  assert.equal(kept.signatureOf('three', 'm'), 'cccc', 'and evicts nothing');
  now = 1_001;
  assert.equal(kept.signatureOf('three', 'm'), undefined);
});

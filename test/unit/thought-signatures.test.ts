// The thought signatures kept for callers whose dialect cannot carry them: by call id, for the model that
// made the call, per key, within a size and an age bound that a key fills only at its own expense.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ThoughtSignatures } from '../../src/dialects/gemini/thought-signatures.ts';

test('a kept signature goes back only to the model that made the call', () => {
  const kept = new ThoughtSignatures();
  kept.remember('k1', 'call_a', 'gemini-2.5-pro', 'sig-a');
  assert.equal(kept.signatureOf('k1', 'call_a', 'gemini-2.5-pro'), 'sig-a');
  assert.equal(kept.signatureOf('k1', 'call_a', 'gemini-3-pro'), undefined, 'another model would refuse it');
  assert.equal(kept.signatureOf('k1', 'call_b', 'gemini-2.5-pro'), undefined);
  kept.remember('k1', 'call_a', 'gemini-2.5-pro', 'sig-a2');
  assert.equal(kept.signatureOf('k1', 'call_a', 'gemini-2.5-pro'), 'sig-a2', 'the latest wins');
});

test('past the size bound the oldest go first; past the age bound a signature is gone', () => {
  let now = 0;
  const kept = new ThoughtSignatures({ maxChars: 10, maxAgeMs: 1_000, now: () => now });
  kept.remember('k1', 'one', 'm', 'aaaa');
  kept.remember('k1', 'two', 'm', 'bbbb');
  kept.remember('k1', 'three', 'm', 'cccc');
  assert.equal(kept.signatureOf('k1', 'one', 'm'), undefined, 'evicted: 12 characters would pass the bound');
  assert.equal(kept.signatureOf('k1', 'two', 'm'), 'bbbb');
  assert.equal(kept.signatureOf('k1', 'three', 'm'), 'cccc');
  kept.remember('k1', 'huge', 'm', 'x'.repeat(11));
  assert.equal(kept.signatureOf('k1', 'huge', 'm'), undefined, 'one signature past the whole bound is not kept');
  assert.equal(kept.signatureOf('k1', 'three', 'm'), 'cccc', 'and evicts nothing');
  now = 1_001;
  assert.equal(kept.signatureOf('k1', 'three', 'm'), undefined);
});

test("a key never reads another key's signature, even for the same call id and model", () => {
  const kept = new ThoughtSignatures();
  kept.remember('alice', 'call_1', 'gemini-3-pro', 'sig-alice');
  assert.equal(kept.signatureOf('bob', 'call_1', 'gemini-3-pro'), undefined);
  kept.remember('bob', 'call_1', 'gemini-3-pro', 'sig-bob');
  assert.equal(kept.signatureOf('alice', 'call_1', 'gemini-3-pro'), 'sig-alice');
  assert.equal(kept.signatureOf('bob', 'call_1', 'gemini-3-pro'), 'sig-bob');
});

test('a key that floods the cache evicts its own signatures, not a smaller share of another key', () => {
  const kept = new ThoughtSignatures({ maxChars: 100 });
  kept.remember('quiet', 'call_q1', 'm', 'q'.repeat(10));
  kept.remember('quiet', 'call_q2', 'm', 'q'.repeat(10));
  for (let i = 0; i < 1_000; i++) kept.remember('flood', `call_${i}`, 'm', 'f'.repeat(10));
  assert.equal(kept.signatureOf('quiet', 'call_q1', 'm'), 'q'.repeat(10));
  assert.equal(kept.signatureOf('quiet', 'call_q2', 'm'), 'q'.repeat(10));
  assert.equal(kept.charsOf('flood'), 80, 'the flooding key keeps what the bound leaves it');
  assert.equal(kept.signatureOf('flood', 'call_999', 'm'), 'f'.repeat(10), 'its newest');
  assert.equal(kept.signatureOf('flood', 'call_0', 'm'), undefined, 'its oldest went first');
});

test('at the bound, the largest share loses first: two keys end with fair halves', () => {
  const kept = new ThoughtSignatures({ maxChars: 100 });
  for (let i = 0; i < 20; i++) {
    kept.remember('a', `call_${i}`, 'm', 'a'.repeat(10));
    kept.remember('b', `call_${i}`, 'm', 'b'.repeat(10));
  }
  assert.equal(kept.charsOf('a') + kept.charsOf('b'), 100);
  assert.ok(Math.abs(kept.charsOf('a') - kept.charsOf('b')) <= 10, `${kept.charsOf('a')} vs ${kept.charsOf('b')}`);
});

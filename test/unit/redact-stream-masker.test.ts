// Masking a streamed reply across chunk boundaries: nothing a rule matches leaves in pieces.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { settingsFor } from '../../src/stages/redact/config.ts';
import { StreamMasker } from '../../src/stages/redact/stream-masker.ts';

const rules = settingsFor({ detectors: ['email', 'phone', 'card', 'iban', 'secret_key'] }, undefined)!.rules;

function run(deltas: string[]): { out: string[]; counted: string[] } {
  const counted: string[] = [];
  const masker = new StreamMasker(rules, { count: (rule, n) => counted.push(...Array(n).fill(rule)) });
  const out = deltas.map((d) => masker.push(d));
  out.push(masker.flush());
  return { out, counted };
}

test('a card number split across two deltas is masked', () => {
  const { out, counted } = run(['Your card is 4111 1111 ', '1111 1111, thanks.']);
  assert.equal(out.join(''), 'Your card is [REDACTED:card], thanks.');
  assert.deepEqual(counted, ['card']);
});

test('a key split over many small deltas is masked whole', () => {
  const key = 'sk-proj-AbCdEf0123456789_abcdefGHIJKLmnopqrstuv';
  const text = `here: ${key} done`;
  const deltas = text.match(/.{1,3}/gs)!;
  const { out } = run(deltas);
  assert.equal(out.join(''), 'here: [REDACTED:secret_key] done');
  assert.ok(!out.some((o) => o.includes('sk-proj')));
});

test('long text goes out as it streams, holding back only a bounded tail', () => {
  const filler = 'lorem ipsum '.repeat(100);
  const { out } = run([filler, filler, 'mail me at jane@example.com ', filler]);
  assert.ok(out[1].length > 0, 'text past the held tail is sent before the end');
  assert.ok(out.slice(0, -1).every((o) => o.length <= 2 * filler.length));
  assert.equal(out.join(''), `${filler}${filler}mail me at [REDACTED:email] ${filler}`);
});

test('a match held across a boundary in a long stream is masked once', () => {
  const filler = 'x'.repeat(300);
  const { out, counted } = run([`${filler} DE89 3704 0044`, ` 0532 0130 00 ${filler}`]);
  assert.equal(out.join(''), `${filler} [REDACTED:iban] ${filler}`);
  assert.deepEqual(counted, ['iban']);
});

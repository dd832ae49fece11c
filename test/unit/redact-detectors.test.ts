// The redaction stage's detectors on literal inputs: what each masks, and what it leaves alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ibanValid, luhnValid } from '../../src/stages/redact/checks.ts';
import { settingsFor } from '../../src/stages/redact/config.ts';
import { DETECTOR_NAMES } from '../../src/stages/redact/detectors.ts';
import { findAll, masked } from '../../src/stages/redact/scan.ts';

const all = settingsFor({ detectors: [...DETECTOR_NAMES] }, undefined)!.rules;
const mask = (text: string): string => masked(text, findAll(text, all));

test('card numbers: masked when they pass the Luhn check, with or without separators', () => {
  assert.equal(luhnValid('4111111111111111'), true);
  assert.equal(luhnValid('4111111111111112'), false);
  assert.equal(luhnValid('378282246310005'), true);
  assert.equal(mask('pay with 4111 1111 1111 1111 today'), 'pay with [REDACTED:card] today');
  assert.equal(mask('card 4111-1111-1111-1111.'), 'card [REDACTED:card].');
  assert.equal(mask('amex 378282246310005'), 'amex [REDACTED:card]');
  assert.equal(mask('card 5555555555554444'), 'card [REDACTED:card]');
  // One digit off: no longer a card number.
  assert.equal(mask('order 4111 1111 1111 1112 shipped'), 'order 4111 1111 1111 1112 shipped');
  assert.equal(mask('id 1234567890123'), 'id 1234567890123');
});

test('IBANs: masked when the mod-97 check passes, grouped or run together', () => {
  assert.equal(ibanValid('DE89370400440532013000'), true);
  assert.equal(ibanValid('DE89370400440532013001'), false);
  assert.equal(ibanValid('GB82WEST12345698765432'), true);
  assert.equal(mask('to DE89 3704 0044 0532 0130 00 please'), 'to [REDACTED:iban] please');
  assert.equal(mask('GB82WEST12345698765432'), '[REDACTED:iban]');
  assert.equal(mask('to DE89 3704 0044 0532 0130 01 please'), 'to DE89 3704 0044 0532 0130 01 please');
});

test('secret keys: OpenAI, project, Anthropic and AWS keys are masked whole', () => {
  const keys = [
    'sk-abcdefghijklmnopqrstuvwxyz0123456789ABCD',
    'sk-proj-AbCdEf0123456789_abcdefGHIJKLmnopqrstuv-xyz',
    'sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789-_ABCDEFGHIJ',
    'AKIAIOSFODNN7EXAMPLE',
    'ASIAIOSFODNN7EXAMPLE',
  ];
  for (const key of keys) assert.equal(mask(`key=${key} end`), 'key=[REDACTED:secret_key] end', key);
  // Too short to be a key, or a word that only starts like one.
  assert.equal(mask('the sk-short flag'), 'the sk-short flag');
  assert.equal(mask('AKIA1234'), 'AKIA1234');
});

test('e-mail addresses are masked; an @ without a domain is not', () => {
  assert.equal(mask('write to jane.doe+tag@mail.example.co.uk now'), 'write to [REDACTED:email] now');
  assert.equal(mask('a@b.io'), '[REDACTED:email]');
  assert.equal(mask('@someone on social'), '@someone on social');
  assert.equal(mask('user@localhost'), 'user@localhost');
});

test('phone numbers: international and North American forms; short numbers and years are not', () => {
  assert.equal(mask('call +1 415 555 2671'), 'call [REDACTED:phone]');
  assert.equal(mask('call +44 20 7946 0958.'), 'call [REDACTED:phone].');
  assert.equal(mask('call (415) 555-2671'), 'call [REDACTED:phone]');
  assert.equal(mask('call 415-555-2671'), 'call [REDACTED:phone]');
  assert.equal(mask('in 2024 we sold 150 units'), 'in 2024 we sold 150 units');
  assert.equal(mask('version 1.2.3'), 'version 1.2.3');
});

test('operator patterns mask under their own name, beside the detectors', () => {
  const rules = settingsFor(
    { detectors: ['email'], patterns: [{ name: 'ticket', regex: 'TICKET-\\d+' }] },
    { patterns: [{ name: 'employee', regex: 'EMP\\d{6}' }] },
  )!.rules;
  const text = 'TICKET-42 by EMP123456 (x@y.org)';
  assert.equal(masked(text, findAll(text, rules)), '[REDACTED:ticket] by [REDACTED:employee] ([REDACTED:email])');
});

test("a model's block replaces detectors, replies and action, and adds to the patterns", () => {
  const s = settingsFor(
    { detectors: ['email', 'card'], patterns: [{ name: 'a', regex: 'a' }], replies: true, action: 'refuse' },
    { detectors: ['iban'], patterns: [{ name: 'b', regex: 'b' }] },
  )!;
  assert.deepEqual(
    s.rules.map((r) => r.name),
    ['iban', 'a', 'b'],
  );
  assert.equal(s.replies, true);
  assert.equal(s.action, 'refuse');
  assert.equal(settingsFor({ detectors: [] }, undefined), null);
  assert.equal(settingsFor(undefined, undefined), null);
});

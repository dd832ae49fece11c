// The gateway's o200k tokenizer against gpt-tokenizer (the reference, a dev dependency): the same
// vocabulary, the same split pattern, and the same count for every string of a seeded corpus that
// covers the scripts, emoji, marks, broken surrogates, digits, contractions and long unspaced runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { countTokens as referenceCount } from 'gpt-tokenizer/encoding/o200k_base';
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { O200K_SPLIT, O200K_TABLE_FILE, countTokens } from '../../src/tokenizer/count-tokens.ts';
import {
  NO_RANK,
  decodeVocabulary,
  encodeVocabulary,
  rankOf,
  vocabularyTokens,
} from '../../src/tokenizer/o200k-table.ts';
import { packageRanks } from '../../scripts/o200k-tokens.ts';
import { seededRandom } from '../helpers/seeded-random.ts';

const PLAIN = { disallowedSpecial: new Set<string>() };
const reference = (text: string): number => referenceCount(text, PLAIN);

function expectSameCounts(texts: readonly string[]): void {
  for (const text of texts) {
    const ours = countTokens(text);
    const theirs = reference(text);
    if (ours !== theirs) assert.fail(`count ${ours}, reference ${theirs} for ${JSON.stringify(text.slice(0, 200))}`);
  }
}

const ALPHABETS: readonly string[] = [
  'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ',
  '0123456789',
  ' \t\r\n\u00a0\u2003',
  '.,;:!?\'"()[]{}<>/\\|-_=+*&^%$#@~`',
  'àéîõüçñßÀÉÎÕÜÇÑøåæœ',
  'αβγδεζηθλμπσωΑΒΓΔΩ',
  'абвгдежзийклмнопрстуфхцчшщъыьэюяАБВГД',
  '的一是不了人我在有他这为之大来以个中上们到说国和地也子时道出而要于就下得可你年生自会那后能对着事其里所去行过家十用发天如然作方成者多日都三小于',
  'ひらがなカタカナ漢字テスト',
  '한국어텍스트입니다',
  'العربيةنصقصير',
  'עבריתטקסט',
  'हिन्दीपाठ',
  'ภาษาไทย',
  '\u0301\u0308\u0327\u20dd',
];
const EMOJI: readonly string[] = ['🙂', '👩‍👩‍👧', '👍🏽', '🇫🇷', '❤️', '🧑‍💻', '𝔘𝔫𝔦𝔠𝔬𝔡𝔢', '\ud800', '\udc00'];
const WORDS: readonly string[] = [
  "I'LL",
  "don't",
  "you're",
  "WE'VE",
  "it's",
  '<|endoftext|>',
  '<|im_start|>',
  'https://example.com/a?b=1',
  'camelCaseWord',
  'snake_case_word',
  '3.14159',
  '1234567',
  '\n\n\n',
  '    ',
  'function f() { return 1; }',
];

function randomText(next: () => number, length: number): string {
  let out = '';
  while (out.length < length) {
    const roll = next();
    if (roll < 0.1) out += EMOJI[Math.floor(next() * EMOJI.length)];
    else if (roll < 0.25) out += WORDS[Math.floor(next() * WORDS.length)];
    else {
      const alphabet = [...ALPHABETS[Math.floor(next() * ALPHABETS.length)]!];
      const run = 1 + Math.floor(next() * 12);
      for (let i = 0; i < run; i += 1) out += alphabet[Math.floor(next() * alphabet.length)];
    }
  }
  return out;
}

test('the split pattern is tiktoken’s o200k pattern as gpt-tokenizer spells it', () => {
  assert.equal(O200K_SPLIT.source, O200K_TOKEN_SPLIT_REGEX.source);
  // Sticky instead of global: the same pieces, because every code point starts one (the corpus tests).
  assert.equal(O200K_TOKEN_SPLIT_REGEX.flags, 'gu');
  assert.equal(O200K_SPLIT.flags, 'uy');
});

test('the committed table holds gpt-tokenizer’s o200k_base ranks, byte for byte', () => {
  const file = readFileSync(O200K_TABLE_FILE);
  assert.equal(
    Buffer.compare(file, encodeVocabulary(packageRanks())),
    0,
    'run node scripts/o200k-tokens.ts after upgrading gpt-tokenizer',
  );
  const vocab = decodeVocabulary(file);
  const tokens = vocabularyTokens(vocab);
  assert.equal(tokens.length, 199_998);
  // Every token is found at its own rank through the hash (none shadowed by another's slot).
  tokens.forEach((bytes, rank) => {
    if (rankOf(vocab, bytes, 0, bytes.length) !== rank) assert.fail(`rank ${rank} not found by its bytes`);
  });
  assert.equal(rankOf(vocab, new Uint8Array([0xff, 0xfe, 0xfd, 0xfc, 0xfb]), 0, 5), NO_RANK);
});

test('a damaged table is refused, not read past its end', () => {
  const good = encodeVocabulary([new Uint8Array([97]), new Uint8Array([98, 99])]);
  assert.equal(vocabularyTokens(decodeVocabulary(good)).length, 2);
  assert.throws(() => decodeVocabulary(good.subarray(0, good.length - 1)), /damaged/);
  assert.throws(() => encodeVocabulary([new Uint8Array(0)]), /cannot be stored/);
});

test('literal cases count as the reference does', () => {
  const cases: Array<[string, number]> = [
    ['', 0],
    ['hello world', 2],
    ["I'LL don't you're", 5],
    ['<|endoftext|> is text here', reference('<|endoftext|> is text here')],
  ];
  for (const [text, expected] of cases) assert.equal(countTokens(text), expected, JSON.stringify(text));
});

test('a seeded corpus of mixed scripts, emoji and broken surrogates counts as the reference does', () => {
  const next = seededRandom(20261122);
  const texts: string[] = [];
  for (let i = 0; i < 4000; i += 1) texts.push(randomText(next, 1 + Math.floor(next() * 200)));
  expectSameCounts(texts);
});

test('vocabulary tokens run together (every merge path) count as the reference does', () => {
  const next = seededRandom(7);
  const decoder = new TextDecoder();
  const tokens = vocabularyTokens(decodeVocabulary(readFileSync(O200K_TABLE_FILE)));
  const texts: string[] = [];
  for (let i = 0; i < 2000; i += 1) {
    let text = '';
    const n = 1 + Math.floor(next() * 8);
    for (let j = 0; j < n; j += 1) text += decoder.decode(tokens[Math.floor(next() * tokens.length)]);
    texts.push(text);
  }
  expectSameCounts(texts);
});

test('long runs without spaces (the quadratic merge) and whole files count as the reference does', () => {
  const next = seededRandom(99);
  const long = [
    'a'.repeat(3000),
    '的'.repeat(1500),
    randomText(next, 3000).replace(/\s/g, ''),
    Array.from({ length: 800 }, () => String.fromCharCode(0x4e00 + Math.floor(next() * 0x5000))).join(''),
  ];
  const root = new URL('../../', import.meta.url);
  const files = [
    'README.md',
    'CHANGELOG.md',
    'src/admission/estimate-tokens.ts',
    'src/dialects/openai-chat/decode-stream.ts',
  ].map((f) => readFileSync(new URL(f, root), 'utf8'));
  const goldens = readdirSync(new URL('test/golden/', root), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.json'))
    .slice(0, 20)
    .map((f) => readFileSync(new URL(`test/golden/${f}`, root), 'utf8'));
  expectSameCounts([...long, ...files, ...goldens]);
});

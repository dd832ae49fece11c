// Chunk-by-chunk UTF-8 decoding: characters split across chunks, partial characters at the end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Utf8Chunks } from '../../src/core/utf8-chunks.ts';

test('ASCII-ended chunks decode directly and end with nothing left', () => {
  const d = new Utf8Chunks();
  assert.equal(d.decode(Buffer.from('data: {"a":"é"}\n')), 'data: {"a":"é"}\n');
  assert.equal(d.decode(new Uint8Array(Buffer.from('x\n'))), 'x\n', 'a plain Uint8Array too');
  assert.equal(d.end(), '');
});

test('a character split across chunks is decoded whole; a cut one ends as U+FFFD', () => {
  const bytes = Buffer.from('東京');
  const d = new Utf8Chunks();
  assert.equal(d.decode(bytes.subarray(0, 2)) + d.decode(bytes.subarray(2, 4)) + d.decode(bytes.subarray(4)), '東京');
  assert.equal(d.decode(Buffer.from('!')), '!', 'back on the fast path after the character completed');
  assert.equal(d.decode(bytes.subarray(0, 1)), '');
  assert.equal(d.end(), '\uFFFD');
  assert.equal(d.decode(Buffer.from('ok')), 'ok', 'a fresh state after end()');
});

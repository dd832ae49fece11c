// Decoding compressed bodies: the client's request (errors in the caller's terms) and an upstream's
// error body (text, or null when it cannot be read).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync, zstdCompressSync } from 'node:zlib';
import { decodeBody, decodeText } from '../../src/http/content-encoding.ts';
import { GatewayError } from '../../src/core/errors.ts';

const TEXT = '{"error":{"message":"max_tokens: too large — é"}}';
const LIMIT = 1024 * 1024;

test('each accepted coding decodes, and stacked codings are undone last to first', async () => {
  const cases: Array<[string, Buffer]> = [
    ['gzip', gzipSync(TEXT)],
    ['x-gzip', gzipSync(TEXT)],
    ['deflate', deflateSync(TEXT)],
    ['deflate', deflateRawSync(TEXT)],
    ['br', brotliCompressSync(TEXT)],
    ['zstd', zstdCompressSync(TEXT)],
    ['identity, GZIP', gzipSync(TEXT)],
    ['gzip, br', brotliCompressSync(gzipSync(TEXT))],
  ];
  for (const [header, raw] of cases) {
    assert.equal((await decodeBody(raw, header, LIMIT)).toString('utf8'), TEXT, header);
    assert.equal(await decodeText(raw, header, LIMIT), TEXT, header);
  }
});

test('a request body: unknown coding 415, bomb 413, corrupt 400 — each a GatewayError', async () => {
  const cases: Array<[Buffer, string, number, string]> = [
    [Buffer.from(TEXT), 'compress', 415, 'unsupported_media_type'],
    [gzipSync('x'.repeat(LIMIT + 1)), 'gzip', 413, 'body_too_large'],
    [Buffer.from('not gzip'), 'gzip', 400, 'invalid_request'],
  ];
  for (const [raw, header, status, code] of cases) {
    await assert.rejects(
      decodeBody(raw, header, LIMIT),
      (err: unknown) => err instanceof GatewayError && err.status === status && err.code === code,
    );
  }
});

test('an error body that cannot be decoded is null, not a throw', async () => {
  assert.equal(await decodeText(Buffer.from(TEXT), 'compress', LIMIT), null);
  assert.equal(await decodeText(gzipSync('x'.repeat(LIMIT + 1)), 'gzip', LIMIT), null);
  assert.equal(await decodeText(Buffer.from('not gzip'), 'gzip', LIMIT), null);
});

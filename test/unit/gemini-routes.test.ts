// Gemini's native paths (issue 40): which paths are Gemini calls, and the pass-through tap's usage reading.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findRoute } from '../helpers/routes.ts';
import { geminiAuthenticated, geminiCallOf, queryKey } from '../../src/dialects/gemini/routes.ts';
import { GeminiStreamTap } from '../../src/dialects/gemini/passthrough-tap.ts';

test('the :method suffix tells a Gemini call from OpenAI model ids, under /v1beta and /v1', () => {
  assert.deepEqual(geminiCallOf('/v1beta/models/gemini-2.5-flash:generateContent'), {
    version: 'v1beta',
    model: 'gemini-2.5-flash',
    method: 'generateContent',
  });
  assert.deepEqual(geminiCallOf('/v1/models/gemini-2.5-flash:streamGenerateContent'), {
    version: 'v1',
    model: 'gemini-2.5-flash',
    method: 'streamGenerateContent',
  });
  assert.deepEqual(geminiCallOf('/v1beta/models/my%2Fmodel:countTokens'), {
    version: 'v1beta',
    model: 'my/model',
    method: 'countTokens',
  });
  assert.deepEqual(geminiCallOf('/v1beta/models'), { version: 'v1beta', model: null, method: null });
  assert.deepEqual(geminiCallOf('/v1beta/models/flash'), { version: 'v1beta', model: 'flash', method: null });
  assert.deepEqual(geminiCallOf('/v1beta/models/flash:embedContent'), {
    version: 'v1beta',
    model: 'flash',
    method: '',
  });
  // An OpenAI id with a colon of its own stays OpenAI's.
  assert.equal(geminiCallOf('/v1/models/llama3:8b'), null);
  assert.equal(findRoute('/v1/models/llama3:8b')?.name, 'model');
  assert.equal(findRoute('/v1/models/flash:generateContent')?.name, 'gemini_generate');
  assert.equal(findRoute('/v1beta/models/flash:countTokens')?.name, 'gemini_count');
  assert.equal(findRoute('/v1beta/models')?.name, 'gemini_models');
  assert.equal(findRoute('/v1beta/cachedContents')?.name, 'gemini_unknown');
  assert.equal(findRoute('/v1/models')?.name, 'models');
  assert.equal(findRoute('/v1/embeddings')?.name, 'embeddings');
});

test('the Gemini way to authenticate: x-goog-api-key or ?key=, and no Authorization header', () => {
  assert.equal(geminiAuthenticated({ 'x-goog-api-key': 'k' }, '/v1/models'), true);
  assert.equal(geminiAuthenticated({}, '/v1/models?key=k&pageSize=50'), true);
  assert.equal(geminiAuthenticated({ authorization: 'Bearer k', 'x-goog-api-key': 'k' }, '/v1/models'), false);
  assert.equal(geminiAuthenticated({}, '/v1/models'), false);
  assert.equal(queryKey('/v1beta/models/x:generateContent?alt=sse&key=a%2Bb'), 'a+b');
});

test('the pass-through tap forwards bytes as they are and bills the last usageMetadata', () => {
  const tap = new GeminiStreamTap();
  const stream =
    'data: {"candidates":[{"content":{"parts":[{"text":"data: not an event"}]}}],"usageMetadata":{"promptTokenCount":9}}\r\n\r\n' +
    'data: {"candidates":[{"content":{"parts":[{"text":"é"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":4,"cachedContentTokenCount":3,"thoughtsTokenCount":2}}\r\n\r\n';
  const bytes = Buffer.from(stream);
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += 17) out.push(tap.push(bytes.subarray(i, i + 17)));
  out.push(tap.end());
  assert.equal(Buffer.concat(out).toString('utf8'), stream);
  assert.equal(tap.deltaEvents, 2);
  assert.equal(tap.finished, true);
  assert.deepEqual(tap.usage, {
    inputTokens: 6,
    outputTokens: 6,
    cacheReadTokens: 3,
    cacheWriteTokens: 0,
    reasoningTokens: 2,
  });
});

// Self-test: the mock upstream's Gemini routes and OpenAI's /v1/embeddings, read by the official clients
// (@google/genai pointed straight at the mock, and the openai SDK).
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { ApiError, GoogleGenAI } from '@google/genai';
import { DEFAULT_REPLY_TEXT, startMockUpstream } from '../helpers/mock-upstream.ts';
import type { MockUpstream } from '../helpers/mock-upstream.ts';
import { mockVector, MOCK_THOUGHT_SIGNATURE } from '../helpers/mock-gemini-wire.ts';
import { validateEmbeddingResponse } from '../helpers/schemas.ts';

let mock: MockUpstream;
let ai: GoogleGenAI;

before(async () => {
  mock = await startMockUpstream({ models: ['gemini-2.5-flash'] });
  ai = new GoogleGenAI({ apiKey: 'k', httpOptions: { baseUrl: mock.url, apiVersion: 'v1beta' } });
});
after(() => mock.close());
beforeEach(() => mock.reset());

test('generateContent, its SSE stream (CRLF frames, usage on each, finishReason last) and countTokens', async () => {
  const res = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'one two three' });
  assert.equal(res.text, DEFAULT_REPLY_TEXT);
  assert.equal(res.usageMetadata?.promptTokenCount, 3);
  const raw = await fetch(`${mock.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`, {
    method: 'POST',
    body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
  });
  const text = await raw.text();
  const frames = text.split('\r\n\r\n').filter((f) => f !== '');
  assert.equal(frames.length, 3);
  const chunks = frames.map(
    (f) =>
      JSON.parse(f.replace(/^data: /, '')) as { candidates: Array<{ finishReason?: string }>; usageMetadata: unknown },
  );
  assert.ok(chunks.every((c) => c.usageMetadata !== undefined));
  assert.deepEqual(
    chunks.map((c) => c.candidates[0].finishReason),
    [undefined, undefined, 'STOP'],
  );
  let streamed = '';
  for await (const chunk of await ai.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'hi' }))
    streamed += chunk.text ?? '';
  assert.equal(streamed, DEFAULT_REPLY_TEXT);
  assert.equal((await ai.models.countTokens({ model: 'gemini-2.5-flash', contents: 'a b c d' })).totalTokens, 4);
});

test('a function call carries a thought signature; a functionResponse turn gets text', async () => {
  const tools = [
    {
      functionDeclarations: [
        { name: 'f', parametersJsonSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } },
      ],
    },
  ];
  const first = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'call it', config: { tools } });
  assert.deepEqual(first.functionCalls?.[0].args, { q: 'mock' });
  assert.equal(first.candidates?.[0].content?.parts?.[0].thoughtSignature, MOCK_THOUGHT_SIGNATURE);
  const second = await ai.models.generateContent({
    model: 'gemini-2.5-flash',
    contents: [
      { role: 'user', parts: [{ text: 'call it' }] },
      first.candidates![0].content!,
      { role: 'user', parts: [{ functionResponse: { name: 'f', response: { output: 'x' } } }] },
    ],
    config: { tools },
  });
  assert.equal(second.text, DEFAULT_REPLY_TEXT);
});

test('Gemini error shape for a queued status; batchEmbedContents and the model list', async () => {
  mock.enqueue({ kind: 'status', status: 429 });
  await assert.rejects(
    ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'x' }),
    (e: unknown) => e instanceof ApiError && e.status === 429 && e.message.includes('RESOURCE_EXHAUSTED'),
  );
  const emb = await fetch(`${mock.url}/v1beta/models/gemini-embedding-001:batchEmbedContents`, {
    method: 'POST',
    body: JSON.stringify({
      requests: [{ model: 'models/gemini-embedding-001', content: { parts: [{ text: 'abc' }] } }],
    }),
  });
  assert.deepEqual(await emb.json(), { embeddings: [{ values: mockVector('abc') }] });
  const names: string[] = [];
  for await (const m of await ai.models.list()) names.push(m.name ?? '');
  assert.deepEqual(names, ['models/gemini-2.5-flash']);
});

test('OpenAI /v1/embeddings: floats and base64, read by the openai SDK, valid against the schema', async () => {
  const client = new OpenAI({ baseURL: `${mock.url}/v1`, apiKey: 'x', maxRetries: 0 });
  const res = await client.embeddings.create({
    model: 'text-embedding-3-small',
    input: ['a b', 'c'],
    encoding_format: 'float',
  });
  validateEmbeddingResponse(res);
  assert.deepEqual(res.data[0].embedding, mockVector('a b'));
  assert.equal(res.usage.prompt_tokens, 3);
  const decoded = await client.embeddings.create({ model: 'text-embedding-3-small', input: 'xyz' });
  assert.deepEqual(decoded.data[0].embedding, mockVector('xyz'));
});

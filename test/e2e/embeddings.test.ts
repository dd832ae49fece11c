// Issue 40: POST /v1/embeddings through the gateway with the newest clients (openai SDK float and
// base64, the AI SDK's embed/embedMany, LangChain's OpenAIEmbeddings): passed through to an
// OpenAI-style upstream, translated to batchEmbedContents for a Gemini one; input tokens priced and
// billed like prompt tokens; model rights; chat and embedding models kept to their endpoints.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { embed, embedMany } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import { OpenAIEmbeddings } from '@langchain/openai';
import { startMockUpstream } from '../helpers/mock-upstream.ts';
import type { MockUpstream } from '../helpers/mock-upstream-types.ts';
import { startGateway, configYaml, waitUntil, type GatewayProcess } from '../helpers/gateway-process.ts';
import { mockVector } from '../helpers/mock-gemini-wire.ts';
import { validateEmbeddingResponse } from '../helpers/schemas.ts';
import { keySpent, sum, usageRows } from '../admission/usage-db.ts';

const SECRET = 'sk-upstream-secret-0123456789abcdefXYZ';
const GEMINI_SECRET = 'AIzaSyUpstreamGeminiKey0123456789abcdef';
let up: MockUpstream;
let gw: GatewayProcess;
let key: string;
let keyId: string;
let narrowKey: string;

before(async () => {
  up = await startMockUpstream();
  gw = await startGateway({
    configYaml: configYaml({
      providers: `  - { name: up, kind: openai, base_url: "${up.url}/v1", api_key: "${SECRET}" }
  - { name: chat-only, kind: openai, base_url: "${up.url}/v1", api_key: "${SECRET}", apis: [chat] }
  - { name: gem, kind: gemini, base_url: "${up.url}", api_key: "${GEMINI_SECRET}" }`,
      models: `  - { name: emb, price: { input: 2, output: 0 }, deployments: [ { provider: up, model: text-embedding-3-small } ] }
  - { name: emb-gemini, price: { input: 1, output: 0 }, deployments: [ { provider: gem, model: gemini-embedding-001 } ] }
  - { name: emb-nowhere, mode: embedding, deployments: [ { provider: chat-only, model: my-embedder } ] }
  - { name: gpt-up, price: { input: 1, output: 2 }, deployments: [ { provider: up, model: upstream-gpt } ] }`,
    }),
  });
  ({ key, id: keyId } = await gw.createKey({
    name: 'emb',
    flags: ['--models', 'emb,emb-gemini,emb-nowhere,gpt-up', '--budget-usd', '5'],
  }));
  ({ key: narrowKey } = await gw.createKey({ name: 'narrow', flags: ['--models', 'gpt-up'] }));
});
after(async () => {
  await gw.cleanup();
  await up.close();
});

const client = (): OpenAI => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });

function close(actual: number[], expected: number[]): void {
  assert.equal(actual.length, expected.length);
  actual.forEach((v, i) => assert.ok(Math.abs(v - expected[i]) < 1e-6, `component ${i}: ${v} vs ${expected[i]}`));
}

test('openai SDK: embeddings.create with floats and with base64, passed through as bytes but for the model', async () => {
  const floats = await client().embeddings.create({
    model: 'emb',
    input: ['hello world', 'abc'],
    encoding_format: 'float',
  });
  assert.equal(floats.model, 'emb', 'the reply names the model the caller asked for');
  close(floats.data[0].embedding, mockVector('hello world'));
  close(floats.data[1].embedding, mockVector('abc'));
  assert.equal(floats.usage.prompt_tokens, 3);
  const sent = up.requests.at(-1)!;
  assert.equal(sent.path, '/v1/embeddings');
  assert.equal(sent.headers.authorization, `Bearer ${SECRET}`);
  assert.deepEqual(sent.json, {
    model: 'text-embedding-3-small',
    input: ['hello world', 'abc'],
    encoding_format: 'float',
  });

  // The SDK asks for base64 by default and decodes it itself.
  const byDefault = await client().embeddings.create({ model: 'emb', input: 'hello there world', dimensions: 3 });
  close(byDefault.data[0].embedding, mockVector('hello there world', 3));
  assert.equal((up.requests.at(-1)!.json as { encoding_format?: string }).encoding_format, 'base64');

  const raw = await client().embeddings.create({ model: 'emb', input: 'xyz', encoding_format: 'base64' });
  const b64 = raw.data[0].embedding as unknown as string;
  assert.equal(typeof b64, 'string');
  const buf = Buffer.from(b64, 'base64');
  close(
    Array.from({ length: buf.length / 4 }, (_, i) => buf.readFloatLE(i * 4)),
    mockVector('xyz'),
  );
});

test('token-array input passes through; the usage row and the key spend grow by the priced input tokens', async () => {
  const before = keySpent(gw.dbPath, keyId).nanos;
  const { data: res, response } = await client()
    .embeddings.create({
      model: 'emb',
      input: [
        [1, 2, 3, 4, 5],
        [6, 7],
      ],
      encoding_format: 'float',
    })
    .withResponse();
  assert.equal(res.usage.prompt_tokens, 7);
  const requestId = response.headers.get('x-request-id');
  const mine = () => usageRows(gw.dbPath, keyId).find((r) => r.request_id === requestId);
  await waitUntil(() => mine() !== undefined, 'the usage row');
  const row = mine()!;
  assert.equal(row.status, 200);
  assert.equal(row.input_tokens, 7);
  assert.equal(row.output_tokens, 0);
  // 7 tokens at 2 USD per million = 14,000 nano-USD.
  assert.equal(row.cost_nanos, 14_000);
  assert.equal((row as unknown as { endpoint: string }).endpoint, '/v1/embeddings');
  // The key's spend is the sum of its rows' costs, this one's included.
  await waitUntil(
    () => keySpent(gw.dbPath, keyId).nanos === sum(usageRows(gw.dbPath, keyId), (r) => r.cost_nanos),
    'the key spend to match its rows',
  );
  assert.ok(keySpent(gw.dbPath, keyId).nanos >= before + 14_000);
});

test('AI SDK: embed and embedMany through openai.embedding(model)', async () => {
  const openai = createOpenAI({ baseURL: `${gw.url}/v1`, apiKey: key });
  const one = await embed({ model: openai.embedding('emb'), value: 'sunny day at the beach', maxRetries: 0 });
  close(one.embedding, mockVector('sunny day at the beach'));
  assert.equal(one.usage.tokens, 5);
  const many = await embedMany({ model: openai.textEmbeddingModel('emb'), values: ['a b', 'c d e'], maxRetries: 0 });
  assert.equal(many.embeddings.length, 2);
  close(many.embeddings[1], mockVector('c d e'));
  assert.equal(many.usage.tokens, 5);
});

test('LangChain: OpenAIEmbeddings embedQuery and embedDocuments', async () => {
  const emb = new OpenAIEmbeddings({
    model: 'emb',
    apiKey: key,
    configuration: { baseURL: `${gw.url}/v1` },
    maxRetries: 0,
  });
  close(await emb.embedQuery('what is the answer'), mockVector('what is the answer'));
  const docs = await emb.embedDocuments(['first doc', 'second one here']);
  assert.equal(docs.length, 2);
  close(docs[1], mockVector('second one here'));
});

test('a Gemini upstream gets batchEmbedContents; the gateway writes the OpenAI list, base64 included', async () => {
  const res = await client().embeddings.create({
    model: 'emb-gemini',
    input: ['one two', 'three'],
    dimensions: 3,
    encoding_format: 'float',
  });
  assert.equal(res.model, 'emb-gemini');
  assert.equal(res.object, 'list');
  close(res.data[0].embedding, mockVector('one two', 3));
  assert.deepEqual(
    res.data.map((d) => d.index),
    [0, 1],
  );
  assert.ok(res.usage.prompt_tokens > 0, 'usage estimated: Gemini reports none');
  const sent = up.requests.at(-1)!;
  assert.equal(sent.path, '/v1beta/models/gemini-embedding-001:batchEmbedContents');
  assert.equal(sent.headers['x-goog-api-key'], GEMINI_SECRET);
  assert.equal(sent.headers.authorization, undefined);
  assert.deepEqual(sent.json, {
    requests: [
      { model: 'models/gemini-embedding-001', content: { parts: [{ text: 'one two' }] }, outputDimensionality: 3 },
      { model: 'models/gemini-embedding-001', content: { parts: [{ text: 'three' }] }, outputDimensionality: 3 },
    ],
  });
  // The body the gateway wrote validates against OpenAI's schema.
  const raw = await fetch(`${gw.url}/v1/embeddings`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'emb-gemini', input: 'raw call' }),
  });
  assert.equal(raw.status, 200);
  validateEmbeddingResponse(await raw.json());
  // The SDK's default base64: made by the gateway, decoded by the SDK.
  const b64 = await client().embeddings.create({ model: 'emb-gemini', input: 'four five six' });
  close(b64.data[0].embedding, mockVector('four five six'));
});

test('refusals: a key without the model is 403; the wrong endpoint for a model is a 400 that names the right one', async () => {
  const narrow = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: narrowKey, maxRetries: 0 });
  await assert.rejects(
    narrow.embeddings.create({ model: 'emb', input: 'x' }),
    (err: unknown) => err instanceof OpenAI.APIError && err.status === 403,
  );
  await assert.rejects(client().embeddings.create({ model: 'gpt-up', input: 'x' }), (err: unknown) => {
    assert.ok(err instanceof OpenAI.APIError && err.status === 400);
    assert.match(err.message, /not an embedding model/);
    return true;
  });
  await assert.rejects(
    client().chat.completions.create({ model: 'emb', messages: [{ role: 'user', content: 'hi' }] }),
    (err: unknown) => {
      assert.ok(err instanceof OpenAI.APIError && err.status === 400);
      assert.match(err.message, /POST \/v1\/embeddings/);
      return true;
    },
  );
  await assert.rejects(client().embeddings.create({ model: 'emb-nowhere', input: 'x' }), (err: unknown) => {
    assert.ok(err instanceof OpenAI.APIError && err.status === 400);
    assert.match(err.message, /does not serve embeddings/);
    return true;
  });
  await assert.rejects(
    client().embeddings.create({ model: 'emb-gemini', input: [1, 2, 3] }),
    (err: unknown) => err instanceof OpenAI.APIError && err.status === 400 && /text only/.test(err.message),
  );
  await assert.rejects(
    client().embeddings.create({ model: 'emb', input: [] as string[] }),
    (err: unknown) => err instanceof OpenAI.APIError && err.status === 400,
  );
});

test('GET /v1/models lists embedding models for keys allowed them only', async () => {
  const list = await client().models.list();
  const ids = list.data.map((m) => m.id);
  assert.ok(ids.includes('emb') && ids.includes('emb-gemini'));
  const narrow = await new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: narrowKey, maxRetries: 0 }).models.list();
  assert.deepEqual(
    narrow.data.map((m) => m.id),
    ['gpt-up'],
  );
});

// Issue 40: Gemini's native API with Google's own SDK (@google/genai) at the gateway, passed through to
// a Gemini upstream as bytes (the model in the path rewritten, usage read from usageMetadata), on the
// SDK's default API version (v1) and on v1beta; the key as x-goog-api-key or ?key= on these paths only
// (and never logged); every bad input answered in Gemini's error shape.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { GoogleGenAI, ApiError, FunctionCallingConfigMode } from '@google/genai';
import { startMockUpstream } from '../helpers/mock-upstream.ts';
import type { MockUpstream } from '../helpers/mock-upstream-types.ts';
import { startGateway, configYaml, waitUntil, type GatewayProcess } from '../helpers/gateway-process.ts';
import { MOCK_THOUGHT_SIGNATURE } from '../helpers/mock-gemini-wire.ts';
import { usageRows } from '../admission/usage-db.ts';

const GEMINI_SECRET = 'AIzaSyUpstreamGeminiKey0123456789abcdef';
let up: MockUpstream;
let gw: GatewayProcess;
let key: string;
let keyId: string;
let narrowKey: string;

before(async () => {
  up = await startMockUpstream({ cacheReadTokens: 2 });
  gw = await startGateway({
    configYaml: configYaml({
      providers: `  - { name: gem, kind: gemini, base_url: "${up.url}", api_key: "${GEMINI_SECRET}" }`,
      models: `  - { name: flash, price: { input: 1, output: 4, cache_read: 0.5 }, deployments: [ { provider: gem, model: gemini-2.5-flash } ] }
  - { name: gpt-mock, deployments: [ { provider: mock, model: gpt-mock } ] }
  - { name: secret-model, deployments: [ { provider: mock, model: secret } ] }`,
    }),
  });
  ({ key, id: keyId } = await gw.createKey({
    name: 'gem',
    flags: ['--models', 'flash,gpt-mock', '--budget-usd', '5'],
  }));
  ({ key: narrowKey } = await gw.createKey({ name: 'narrow', flags: ['--models', 'gpt-mock'] }));
});
after(async () => {
  await gw.cleanup();
  await up.close();
});

const genai = (apiVersion?: string, apiKey = key): GoogleGenAI =>
  new GoogleGenAI({ apiKey, httpOptions: { baseUrl: gw.url, apiVersion } });

for (const version of [undefined, 'v1beta'] as const) {
  const label = version ?? 'the default API version (v1)';
  test(`@google/genai on ${label}: generateContent, generateContentStream and countTokens pass through`, async () => {
    const ai = genai(version);
    const res = await ai.models.generateContent({
      model: 'flash',
      contents: 'Say hello',
      config: { systemInstruction: 'Be brief', maxOutputTokens: 100, temperature: 0.3 },
    });
    assert.ok(res.text !== undefined && res.text.length > 0);
    assert.equal(res.usageMetadata?.cachedContentTokenCount, 2);
    const sent = up.requests.at(-1)!;
    assert.equal(sent.path, `/${version ?? 'v1'}/models/gemini-2.5-flash:generateContent`);
    assert.equal(sent.headers['x-goog-api-key'], GEMINI_SECRET);
    assert.equal(sent.headers.authorization, undefined);
    const body = sent.json as { generationConfig: Record<string, unknown>; systemInstruction: unknown };
    assert.equal(body.generationConfig.maxOutputTokens, 100);
    assert.deepEqual(body.systemInstruction, { parts: [{ text: 'Be brief' }], role: 'user' });

    let text = '';
    let last: { usageMetadata?: { totalTokenCount?: number } } | undefined;
    for await (const chunk of await ai.models.generateContentStream({ model: 'flash', contents: 'Stream please' })) {
      text += chunk.text ?? '';
      last = chunk;
    }
    assert.ok(text.length > 0);
    assert.ok((last?.usageMetadata?.totalTokenCount ?? 0) > 0);
    assert.equal(up.requests.at(-1)!.url, `/${version ?? 'v1'}/models/gemini-2.5-flash:streamGenerateContent?alt=sse`);

    const counted = await ai.models.countTokens({ model: 'flash', contents: 'one two three' });
    assert.equal(counted.totalTokens, 3, 'the upstream counted');
    assert.equal(up.requests.at(-1)!.path, `/${version ?? 'v1'}/models/gemini-2.5-flash:countTokens`);
  });
}

test('a function call round trip keeps the thought signature; the tool result goes back as sent', async () => {
  const ai = genai('v1beta');
  const tools = [
    {
      functionDeclarations: [
        {
          name: 'run_shell',
          description: 'Runs a command',
          parametersJsonSchema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
        },
      ],
    },
  ];
  const first = await ai.models.generateContent({
    model: 'flash',
    contents: 'List files',
    config: { tools, toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.AUTO } } },
  });
  const call = first.functionCalls?.[0];
  assert.equal(call?.name, 'run_shell');
  assert.deepEqual(call?.args, { command: 'mock' });
  const modelTurn = first.candidates![0].content!;
  assert.equal(modelTurn.parts![0].thoughtSignature, MOCK_THOUGHT_SIGNATURE);
  const second = await ai.models.generateContent({
    model: 'flash',
    contents: [
      { role: 'user', parts: [{ text: 'List files' }] },
      modelTurn,
      { role: 'user', parts: [{ functionResponse: { name: 'run_shell', response: { output: 'a.txt' } } }] },
    ],
    config: { tools },
  });
  assert.ok((second.text ?? '').length > 0);
  const sent = up.requests.at(-1)!.json as { contents: Array<{ parts: Array<Record<string, unknown>> }> };
  assert.equal(sent.contents[1].parts[0].thoughtSignature, MOCK_THOUGHT_SIGNATURE);
});

test('the caller bytes reach the upstream unchanged; the stream comes back byte for byte', async () => {
  const raw =
    '{ "contents" : [ {"role":"user","parts":[{"text":"héllo \\"model\\""}]} ],\n "x_custom": {"deep": [1, 2.50]} }';
  const res = await fetch(`${gw.url}/v1beta/models/flash:streamGenerateContent?alt=sse`, {
    method: 'POST',
    headers: { 'x-goog-api-key': key, 'content-type': 'application/json' },
    body: raw,
  });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
  const text = await res.text();
  // The key has a budget and the request names no output limit: the reserved limit goes in front, the rest is as sent.
  assert.equal(
    up.requests.at(-1)!.body.toString('utf8'),
    `{"generationConfig":{"maxOutputTokens":4096},${raw.slice(1)}`,
  );
  assert.match(res.headers.get('x-modelgate-adjusted') ?? '', /maxOutputTokens set to 4096/);
  assert.match(text, /^data: \{"candidates"/);
  assert.ok(text.includes('"finishReason":"STOP"'));
  assert.ok(text.endsWith('\r\n\r\n'), 'the upstream framing is kept');
});

test('usage rows bill usageMetadata (cached tokens apart) and never hold the key or the URL', async () => {
  const res = await fetch(`${gw.url}/v1beta/models/flash:generateContent?key=${encodeURIComponent(key)}`, {
    method: 'POST',
    body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'one two three four' }] }] }),
  });
  assert.equal(res.status, 200);
  const reply = (await res.json()) as {
    usageMetadata: { promptTokenCount: number; candidatesTokenCount: number; cachedContentTokenCount: number };
  };
  const requestId = res.headers.get('x-request-id');
  const mine = () => usageRows(gw.dbPath, keyId).find((r) => r.request_id === requestId);
  await waitUntil(() => mine() !== undefined, 'the usage row');
  const row = mine()!;
  assert.equal(row.input_tokens, reply.usageMetadata.promptTokenCount - 2);
  assert.equal(row.cache_read_tokens, 2);
  assert.equal(row.output_tokens, reply.usageMetadata.candidatesTokenCount);
  assert.equal((row as unknown as { endpoint: string }).endpoint, '/v1beta/models/{model}:generateContent');
  assert.ok(!JSON.stringify(usageRows(gw.dbPath, keyId)).includes(key));
  assert.ok(!gw.logs().includes(key), 'the ?key= never reaches the log');
});

test('model listing in Gemini shape shows exactly the key models, also on GET /v1/models for Gemini-authenticated callers', async () => {
  const ai = genai('v1beta');
  const names: string[] = [];
  for await (const m of await ai.models.list()) names.push(m.name ?? '');
  assert.deepEqual(names, ['models/flash', 'models/gpt-mock']);
  const one = await ai.models.get({ model: 'flash' });
  assert.equal(one.name, 'models/flash');
  assert.ok(one.supportedActions?.includes('generateContent'));
  const v1 = await fetch(`${gw.url}/v1/models`, { headers: { 'x-goog-api-key': key } });
  assert.deepEqual(
    ((await v1.json()) as { models: Array<{ name: string }> }).models.map((m) => m.name),
    ['models/flash', 'models/gpt-mock'],
  );
  const openaiShape = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(((await openaiShape.json()) as { object: string }).object, 'list');
  await assert.rejects(
    ai.models.get({ model: 'secret-model' }),
    (err: unknown) => err instanceof ApiError && err.status === 404,
  );
});

test('refusals and bad input come in Gemini error shape; x-goog-api-key elsewhere is still a 401', async () => {
  const gemini = async (
    path: string,
    init: RequestInit = {},
  ): Promise<{ status: number; error: { code: number; message: string; status: string } }> => {
    const res = await fetch(`${gw.url}${path}`, {
      method: 'POST',
      ...init,
      headers: { 'x-goog-api-key': key, ...(init.headers as Record<string, string>) },
    });
    const body = (await res.json()) as { error: { code: number; message: string; status: string } };
    assert.deepEqual(Object.keys(body.error).sort(), ['code', 'message', 'status']);
    assert.equal(body.error.code, res.status);
    return { status: res.status, error: body.error };
  };
  const good = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });
  const cases: Array<[string, RequestInit, number, string]> = [
    ['/v1beta/models/flash:generateContent', { body: '{not json' }, 400, 'INVALID_ARGUMENT'],
    ['/v1beta/models/flash:generateContent', { body: '{"contents":[]}' }, 400, 'INVALID_ARGUMENT'],
    [
      '/v1beta/models/flash:generateContent',
      { body: '{"contents":[{"role":"user","parts":"hi"}]}' },
      400,
      'INVALID_ARGUMENT',
    ],
    [
      '/v1beta/models/flash:generateContent',
      { body: '{"contents":[{"role":"robot","parts":[{"text":"x"}]}]}' },
      400,
      'INVALID_ARGUMENT',
    ],
    [
      '/v1beta/models/flash:generateContent',
      { body: JSON.stringify({ contents: [{ parts: [{ text: 'x' }] }], generationConfig: { maxOutputTokens: -1 } }) },
      400,
      'INVALID_ARGUMENT',
    ],
    ['/v1beta/models/flash:streamGenerateContent', { body: good }, 400, 'INVALID_ARGUMENT'],
    ['/v1beta/models/nope:generateContent', { body: good }, 404, 'NOT_FOUND'],
    ['/v1beta/models/secret-model:generateContent', { body: good }, 403, 'PERMISSION_DENIED'],
    [
      '/v1beta/models/flash:generateContent',
      { body: good, headers: { 'x-goog-api-key': 'sk-not-a-real-key-0000000000000000' } },
      401,
      'UNAUTHENTICATED',
    ],
    ['/v1beta/models/flash:embedContent', { body: good }, 404, 'NOT_FOUND'],
    ['/v1beta/models/flash:countTokens', { body: '{}' }, 400, 'INVALID_ARGUMENT'],
    ['/v1beta/models', { body: good }, 405, 'INVALID_ARGUMENT'],
    ['/v1beta/tunedModels', { body: good }, 404, 'NOT_FOUND'],
  ];
  for (const [path, init, status, name] of cases) {
    const r = await gemini(path, init);
    assert.equal(r.status, status, `${path} ${String(init.body)}: ${r.error.message}`);
    assert.equal(r.error.status, name, path);
  }
  const narrow = await fetch(`${gw.url}/v1beta/models/flash:generateContent`, {
    method: 'POST',
    headers: { 'x-goog-api-key': narrowKey },
    body: good,
  });
  assert.equal(narrow.status, 403);
  const missing = await fetch(`${gw.url}/v1beta/models/flash:generateContent`, { method: 'POST', body: good });
  assert.equal(missing.status, 401);
  assert.equal(((await missing.json()) as { error: { status: string } }).error.status, 'UNAUTHENTICATED');

  const chat = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'x-goog-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-mock', messages: [{ role: 'user', content: 'hi' }] }),
  });
  assert.equal(chat.status, 401);
  const chatQuery = await fetch(`${gw.url}/v1/chat/completions?key=${key}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-mock', messages: [{ role: 'user', content: 'hi' }] }),
  });
  assert.equal(chatQuery.status, 401);
});

test('an upstream error keeps its Gemini status and text', async () => {
  up.enqueue({
    kind: 'status',
    status: 400,
    body: {
      error: {
        code: 400,
        message: 'Unable to submit request because it has an empty text parameter.',
        status: 'INVALID_ARGUMENT',
      },
    },
  });
  await assert.rejects(genai('v1beta').models.generateContent({ model: 'flash', contents: 'x' }), (err: unknown) => {
    assert.ok(err instanceof ApiError);
    assert.equal(err.status, 400);
    assert.match(err.message, /empty text parameter/);
    assert.match(err.message, /INVALID_ARGUMENT/);
    return true;
  });
});

// kind bedrock end to end: a mock Bedrock Runtime that recomputes every SigV4 signature with known
// credentials (or checks a Bedrock API key) and answers InvokeModel / InvokeModelWithResponseStream in the
// real framing (JSON; event-stream `chunk` messages). Claude through @anthropic-ai/sdk (the Anthropic body
// with Bedrock's version and betas as body fields), the openai SDK's chat (streamed, with a tool round
// trip) and Responses translated onto it; a model that is not Claude through Converse / ConverseStream
// from every caller dialect; Bedrock's errors classified (throttling fails over, a
// validation error keeps its text); keys in the config, from AWS's standard chain, or a Bearer API key.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { MOCK_AWS_CREDENTIALS, MOCK_BEDROCK_API_KEY, type MockBedrock } from '../helpers/mock-bedrock.ts';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { BEDROCK_KEYS, startCloudFixture, type CloudFixture } from '../helpers/cloud-fixture.ts';

const SONNET = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';

let fx: CloudFixture;
let br: MockBedrock;
let gw: GatewayProcess;
let key: string;

before(async () => {
  fx = await startCloudFixture({
    bedrock: { text: 'Claude on Bedrock here' },
    keyName: 'bedrock',
    providers: (m) => `  - { name: br, kind: bedrock, region: us-east-1, base_url: "${m.br!.url}", ${BEDROCK_KEYS} }
  - { name: br-chain, kind: bedrock, region: us-east-1, base_url: "${m.br!.url}" }
  - { name: br-key, kind: bedrock, region: us-east-1, base_url: "${m.br!.url}", api_key: ${MOCK_BEDROCK_API_KEY} }`,
    models: `  - { name: claude-br, deployments: [ { provider: br, model: "${SONNET}" } ] }
  - { name: claude-chain, deployments: [ { provider: br-chain, model: "anthropic.claude-sonnet-4-5-20250929-v1:0" } ] }
  - { name: claude-key, deployments: [ { provider: br-key, model: "${SONNET}" } ] }
  - { name: nova, deployments: [ { provider: br, model: "us.amazon.nova-pro-v1:0" } ] }
  - { name: claude-invalid, deployments: [ { provider: br, model: "anthropic.claude-invalid-v1:0" } ] }
  - { name: claude-failover, deployments: [ { provider: br, model: "anthropic.claude-throttle-v1:0" }, { provider: mock, model: mock-model, priority: 1 } ] }
  - { name: claude-notready, deployments: [ { provider: br, model: "anthropic.claude-notready-v1:0" }, { provider: mock, model: mock-model, priority: 1 } ] }`,
    extra: 'messages_any_model: true',
    // The standard chain's first source: the environment.
    env: {
      AWS_ACCESS_KEY_ID: MOCK_AWS_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: MOCK_AWS_CREDENTIALS.secretAccessKey,
    },
  });
  ({ gw, key } = fx);
  br = fx.br!;
});
after(async () => {
  await fx?.close();
});

const WEATHER = {
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

const anthropic = () => new Anthropic({ baseURL: gw.url, authToken: key, apiKey: null, maxRetries: 0 });
const openai = () => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });

test('@anthropic-ai/sdk: InvokeModel, signed, the Bedrock body (version, no model), a cost from the catalogue', async () => {
  const refusedBefore = br.refused;
  const { data, response } = await anthropic()
    .messages.create({ model: 'claude-br', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] })
    .withResponse();
  assert.equal(data.content[0].type === 'text' ? data.content[0].text : '', 'Claude on Bedrock here');
  const call = br.calls.at(-1)!;
  assert.equal(call.operation, 'invoke');
  assert.equal(call.model, SONNET);
  assert.equal(call.path, `/model/${encodeURIComponent(SONNET)}/invoke`, 'the id escaped in the path');
  assert.equal(call.auth, 'sigv4');
  assert.equal(call.body.anthropic_version, 'bedrock-2023-05-31');
  assert.equal('model' in call.body, false);
  assert.equal('stream' in call.body, false);
  assert.equal(br.refused, refusedBefore, 'the signature verified');
  const cost = Number(response.headers.get('x-modelgate-cost'));
  assert.ok(cost > 0, `a cost for the inference profile: ${response.headers.get('x-modelgate-cost')}`);
});

test('@anthropic-ai/sdk, streamed: InvokeModelWithResponseStream decoded; betas as a body field, fitted to Bedrock', async () => {
  const stream = anthropic().beta.messages.stream({
    model: 'claude-br',
    max_tokens: 64,
    messages: [{ role: 'user', content: 'hi' }],
    betas: ['interleaved-thinking-2025-05-14', 'files-api-2025-04-14', 'advanced-tool-use-2025-11-20'],
  });
  const { response } = await stream.withResponse();
  const final = await stream.finalMessage();
  assert.equal(final.content[0].type === 'text' ? final.content[0].text : '', 'Claude on Bedrock here');
  assert.equal(final.usage.output_tokens, 4);
  const call = br.calls.at(-1)!;
  assert.equal(call.operation, 'invoke-with-response-stream');
  assert.equal('stream' in call.body, false);
  assert.deepEqual(call.body.anthropic_beta, ['interleaved-thinking-2025-05-14', 'tool-search-tool-2025-10-19']);
  assert.equal(call.headers['anthropic-beta'], undefined, 'Bedrock reads betas from the body');
  const adjusted = response.headers.get('x-modelgate-adjusted') ?? '';
  assert.match(adjusted, /files-api-2025-04-14 left out/);
});

test('openai SDK, streamed chat with a tool round trip: translated onto InvokeModel', async () => {
  const tools = [{ type: 'function' as const, function: WEATHER }];
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Oslo?' }];
  const stream = await openai().chat.completions.create({ model: 'claude-br', messages, tools, stream: true });
  let name = '';
  let args = '';
  let id = '';
  for await (const chunk of stream)
    for (const tc of chunk.choices[0]?.delta.tool_calls ?? []) {
      if (tc.id) id = tc.id;
      name += tc.function?.name ?? '';
      args += tc.function?.arguments ?? '';
    }
  assert.equal(name, 'get_weather');
  assert.deepEqual(JSON.parse(args), { city: 'Oslo' });
  assert.equal(br.calls.at(-1)!.operation, 'invoke-with-response-stream');
  messages.push(
    { role: 'assistant', tool_calls: [{ id, type: 'function', function: { name, arguments: args } }] },
    { role: 'tool', tool_call_id: id, content: '{"forecast":"sunny"}' },
  );
  const reply = await openai().chat.completions.create({ model: 'claude-br', messages, tools });
  assert.equal(reply.choices[0].message.content, 'Claude on Bedrock here');
  const call = br.calls.at(-1)!;
  assert.equal(call.operation, 'invoke');
  assert.equal(call.body.anthropic_version, 'bedrock-2023-05-31');
  const last = (call.body.messages as { content: { type: string; tool_use_id?: string }[] }[]).at(-1)!;
  assert.equal(last.content[0].type, 'tool_result');
  assert.equal(last.content[0].tool_use_id, id);
});

test('openai SDK Responses, streamed: translated onto InvokeModelWithResponseStream', async () => {
  const stream = await openai().responses.create({ model: 'claude-br', input: 'hi', stream: true });
  let text = '';
  for await (const e of stream) if (e.type === 'response.output_text.delta') text += e.delta;
  assert.equal(text, 'Claude on Bedrock here');
  assert.equal(br.calls.at(-1)!.operation, 'invoke-with-response-stream');
});

test("credentials from AWS's standard chain (the environment) sign as well; a Bedrock API key goes as a Bearer token", async () => {
  const chained = await anthropic().messages.create({
    model: 'claude-chain',
    max_tokens: 16,
    messages: [{ role: 'user', content: 'hi' }],
  });
  assert.equal(chained.content[0].type, 'text');
  assert.equal(br.calls.at(-1)!.auth, 'sigv4');
  const keyed = await openai().chat.completions.create({
    model: 'claude-key',
    messages: [{ role: 'user', content: 'hi' }],
  });
  assert.equal(keyed.choices[0].message.content, 'Claude on Bedrock here');
  const call = br.calls.at(-1)!;
  assert.equal(call.auth, 'bearer');
  assert.equal(call.headers['x-amz-date'], undefined, 'no signature beside the key');
});

test('openai SDK, streamed chat with a tool round trip on a Converse model (ConverseStream, then Converse)', async () => {
  const tools = [{ type: 'function' as const, function: WEATHER }];
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Oslo?' }];
  const stream = await openai().chat.completions.create({ model: 'nova', messages, tools, stream: true });
  let name = '';
  let args = '';
  let id = '';
  for await (const chunk of stream)
    for (const tc of chunk.choices[0]?.delta.tool_calls ?? []) {
      if (tc.id) id = tc.id;
      name += tc.function?.name ?? '';
      args += tc.function?.arguments ?? '';
    }
  assert.equal(name, 'get_weather');
  assert.deepEqual(JSON.parse(args), { city: 'Oslo' });
  let call = br.calls.at(-1)!;
  assert.equal(call.operation, 'converse-stream');
  assert.equal(call.path, `/model/${encodeURIComponent('us.amazon.nova-pro-v1:0')}/converse-stream`);
  assert.equal(call.auth, 'sigv4');
  messages.push(
    { role: 'assistant', tool_calls: [{ id, type: 'function', function: { name, arguments: args } }] },
    { role: 'tool', tool_call_id: id, content: '{"forecast":"sunny"}' },
  );
  const { data, response } = await openai().chat.completions.create({ model: 'nova', messages, tools }).withResponse();
  assert.equal(data.choices[0].message.content, 'Claude on Bedrock here');
  assert.equal(data.usage?.prompt_tokens, 11);
  call = br.calls.at(-1)!;
  assert.equal(call.operation, 'converse');
  const turns = call.body.messages as { role: string; content: Record<string, unknown>[] }[];
  assert.deepEqual(
    turns.map((t) => t.role),
    ['user', 'assistant', 'user'],
  );
  assert.equal((turns[2].content[0].toolResult as { toolUseId: string }).toolUseId, id);
  assert.ok(Number(response.headers.get('x-modelgate-cost')) > 0, 'Nova priced from the catalogue');
});

test('@anthropic-ai/sdk, streamed, on a Converse model: translated, its betas left out and said', async () => {
  const stream = anthropic().beta.messages.stream({
    model: 'nova',
    max_tokens: 64,
    system: 'Be brief.',
    messages: [{ role: 'user', content: 'hi' }],
    betas: ['interleaved-thinking-2025-05-14'],
  });
  const { response } = await stream.withResponse();
  const final = await stream.finalMessage();
  assert.equal(final.content[0].type === 'text' ? final.content[0].text : '', 'Claude on Bedrock here');
  assert.equal(final.usage.input_tokens, 11);
  const call = br.calls.at(-1)!;
  assert.equal(call.operation, 'converse-stream');
  assert.deepEqual(call.body.system, [{ text: 'Be brief.' }]);
  assert.equal((call.body.inferenceConfig as { maxTokens: number }).maxTokens, 64);
  assert.match(response.headers.get('x-modelgate-adjusted') ?? '', /interleaved-thinking-2025-05-14 left out/);
});

test('openai SDK Responses on a Converse model', async () => {
  const reply = await openai().responses.create({ model: 'nova', input: 'hi' });
  assert.equal(reply.output_text, 'Claude on Bedrock here');
  assert.equal(br.calls.at(-1)!.operation, 'converse');
});

test('ThrottlingException is a rate signal: the request fails over to the next deployment', async () => {
  const { data } = await openai()
    .chat.completions.create({ model: 'claude-failover', messages: [{ role: 'user', content: 'hi' }] })
    .withResponse();
  assert.ok((data.choices[0].message.content ?? '').length > 0);
  assert.ok(
    br.calls.some((c) => c.model === 'anthropic.claude-throttle-v1:0'),
    'Bedrock was asked first',
  );
});

test('ModelNotReadyException is retryable: the request fails over', async () => {
  const reply = await anthropic().messages.create({
    model: 'claude-notready',
    max_tokens: 16,
    messages: [{ role: 'user', content: 'hi' }],
  });
  assert.equal(reply.content[0].type, 'text');
  assert.ok(br.calls.some((c) => c.model === 'anthropic.claude-notready-v1:0'));
});

test("ValidationException is a 400 with Bedrock's text, in the caller's dialect", async () => {
  for (const ask of [
    () =>
      anthropic().messages.create({
        model: 'claude-invalid',
        max_tokens: 16,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    () => openai().chat.completions.create({ model: 'claude-invalid', messages: [{ role: 'user', content: 'hi' }] }),
  ]) {
    const err = await ask().then(
      () => null,
      (e: unknown) => e as { status: number; message: string },
    );
    assert.equal(err?.status, 400);
    assert.match(err?.message ?? '', /text content blocks must be non-empty/);
  }
});

test('no AWS secret, signature or Bedrock API key reaches a reply or the log', async () => {
  const logs = gw.logs();
  assert.equal(logs.includes(MOCK_AWS_CREDENTIALS.secretAccessKey), false);
  assert.equal(logs.includes(MOCK_BEDROCK_API_KEY), false);
  for (const c of br.calls) {
    const sig = /Signature=([0-9a-f]{64})/.exec(c.headers.authorization ?? '')?.[1];
    if (sig !== undefined) assert.equal(logs.includes(sig), false);
  }
});

// kind bedrock end to end for Claude models: a mock Bedrock Runtime that recomputes each request's SigV4
// signature (or checks a Bedrock API key) and answers InvokeModel / InvokeModelWithResponseStream in AWS's
// framing. Anthropic callers pass through (the body fitted to Bedrock: no model or stream, the version and
// betas in the body); OpenAI callers translate through Anthropic's wire; throttling fails over.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import {
  MOCK_AWS_CREDENTIALS,
  MOCK_BEDROCK_API_KEY,
  startMockBedrock,
  type MockBedrock,
} from '../helpers/mock-bedrock.ts';
import { startGateway, configYaml, type GatewayProcess } from '../helpers/gateway-process.ts';

let br: MockBedrock;
let gw: GatewayProcess;
let key: string;

const CLAUDE = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';

before(async () => {
  br = await startMockBedrock({ text: 'Claude on Bedrock here' });
  gw = await startGateway({
    configYaml: configYaml({
      providers: `  - { name: br, kind: bedrock, region: us-east-1, base_url: "${br.url}", aws_access_key_id: "${MOCK_AWS_CREDENTIALS.accessKeyId}", aws_secret_access_key: "${MOCK_AWS_CREDENTIALS.secretAccessKey}" }
  - { name: br-key, kind: bedrock, region: us-east-1, base_url: "${br.url}", api_key: "${MOCK_BEDROCK_API_KEY}" }`,
      models: `  - { name: claude-br, deployments: [ { provider: br, model: "${CLAUDE}" } ] }
  - { name: claude-br-key, deployments: [ { provider: br-key, model: "${CLAUDE}" } ] }
  - { name: claude-invalid, deployments: [ { provider: br, model: "us.anthropic.claude-invalid-v1:0" } ] }
  - { name: claude-failover, deployments: [ { provider: br, model: "us.anthropic.claude-throttle-v1:0" }, { provider: mock, model: mock-model, priority: 1 } ] }`,
    }),
  });
  ({ key } = await gw.createKey({ name: 'bedrock' }));
});
after(async () => {
  await gw?.cleanup();
  await br?.close();
});

const WEATHER = {
  name: 'get_weather',
  description: 'The weather in a city',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};

test('@anthropic-ai/sdk: InvokeModel with a SigV4 signature, the body fitted to Bedrock, cost computed', async () => {
  const client = new Anthropic({ baseURL: gw.url, authToken: key, apiKey: null, maxRetries: 0 });
  const { data, response } = await client.messages
    .create(
      { model: 'claude-br', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] },
      { headers: { 'anthropic-beta': 'interleaved-thinking-2025-05-14' } },
    )
    .withResponse();
  assert.equal(data.content[0].type === 'text' ? data.content[0].text : '', 'Claude on Bedrock here');
  const call = br.calls.at(-1)!;
  assert.equal(call.auth, 'sigv4');
  assert.equal(call.operation, 'invoke');
  assert.equal(call.model, CLAUDE);
  assert.equal(call.path, `/model/${encodeURIComponent(CLAUDE)}/invoke`);
  assert.equal(call.body.anthropic_version, 'bedrock-2023-05-31');
  assert.deepEqual(call.body.anthropic_beta, ['interleaved-thinking-2025-05-14']);
  assert.equal('model' in call.body, false);
  assert.equal('stream' in call.body, false);
  assert.equal(br.refused, 0);
  assert.ok(
    Number(response.headers.get('x-modelgate-cost')) > 0,
    `a cost: ${response.headers.get('x-modelgate-cost')}`,
  );
});

test('@anthropic-ai/sdk, streamed with a tool round trip: InvokeModelWithResponseStream chunks become SSE', async () => {
  const client = new Anthropic({ baseURL: gw.url, authToken: key, apiKey: null, maxRetries: 0 });
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Weather in Oslo?' }];
  const first = await client.messages
    .stream({ model: 'claude-br', max_tokens: 64, messages, tools: [WEATHER] })
    .finalMessage();
  assert.equal(br.calls.at(-1)!.operation, 'invoke-with-response-stream');
  assert.equal(first.stop_reason, 'tool_use');
  const use = first.content.find((b) => b.type === 'tool_use');
  assert.ok(use !== undefined && use.type === 'tool_use');
  assert.equal(use.name, 'get_weather');
  assert.deepEqual(use.input, { city: 'Oslo' });
  messages.push(
    { role: 'assistant', content: first.content },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'sunny' }] },
  );
  let text = '';
  const stream = client.messages.stream({ model: 'claude-br', max_tokens: 64, messages, tools: [WEATHER] });
  stream.on('text', (t) => {
    text += t;
  });
  const second = await stream.finalMessage();
  assert.equal(text, 'Claude on Bedrock here');
  assert.equal(second.usage.output_tokens, 4);
});

test('openai SDK chat, plain and streamed with a tool round trip, translated to InvokeModel', async () => {
  const oai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
  const plain = await oai.chat.completions.create({ model: 'claude-br', messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(plain.choices[0].message.content, 'Claude on Bedrock here');
  assert.equal(br.calls.at(-1)!.operation, 'invoke');
  assert.equal(br.calls.at(-1)!.body.anthropic_version, 'bedrock-2023-05-31');
  assert.ok(plain.usage!.prompt_tokens > 0);
  const tools = [
    {
      type: 'function' as const,
      function: { name: WEATHER.name, description: WEATHER.description, parameters: WEATHER.input_schema },
    },
  ];
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Oslo?' }];
  const stream = await oai.chat.completions.create({ model: 'claude-br', messages, tools, stream: true });
  let name = '';
  let args = '';
  let id = '';
  for await (const chunk of stream) {
    for (const tc of chunk.choices[0]?.delta.tool_calls ?? []) {
      if (tc.id) id = tc.id;
      name += tc.function?.name ?? '';
      args += tc.function?.arguments ?? '';
    }
  }
  assert.equal(name, 'get_weather');
  assert.deepEqual(JSON.parse(args), { city: 'Oslo' });
  assert.equal(br.calls.at(-1)!.operation, 'invoke-with-response-stream');
  messages.push(
    { role: 'assistant', tool_calls: [{ id, type: 'function', function: { name, arguments: args } }] },
    { role: 'tool', tool_call_id: id, content: '{"forecast":"sunny"}' },
  );
  const reply = await oai.chat.completions.create({ model: 'claude-br', messages, tools });
  assert.equal(reply.choices[0].message.content, 'Claude on Bedrock here');
});

test('openai SDK Responses, translated to InvokeModel', async () => {
  const oai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
  const r = await oai.responses.create({ model: 'claude-br', input: 'hi', store: false });
  assert.equal(r.output_text, 'Claude on Bedrock here');
  assert.equal(br.calls.at(-1)!.operation, 'invoke');
});

test('a Bedrock API key goes as a Bearer token', async () => {
  const client = new Anthropic({ baseURL: gw.url, authToken: key, apiKey: null, maxRetries: 0 });
  const data = await client.messages.create({
    model: 'claude-br-key',
    max_tokens: 64,
    messages: [{ role: 'user', content: 'hi' }],
  });
  assert.equal(data.content[0].type === 'text' ? data.content[0].text : '', 'Claude on Bedrock here');
  assert.equal(br.calls.at(-1)!.auth, 'bearer');
});

test("ThrottlingException fails over to the next deployment; a ValidationException is a 400 with Bedrock's text", async () => {
  const oai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
  const before = br.calls.length;
  const reply = await oai.chat.completions.create({
    model: 'claude-failover',
    messages: [{ role: 'user', content: 'hi' }],
  });
  assert.ok((reply.choices[0].message.content ?? '').length > 0);
  assert.ok(
    br.calls.slice(before).some((c) => c.model.includes('throttle')),
    'Bedrock was asked first',
  );
  const refused = await oai.chat.completions
    .create({ model: 'claude-invalid', messages: [{ role: 'user', content: 'hi' }] })
    .then(
      () => null,
      (err: unknown) => err as { status: number; message: string },
    );
  assert.equal(refused?.status, 400);
  assert.match(refused?.message ?? '', /text content blocks must be non-empty/);
});

test('no AWS secret, signature or Bedrock API key reaches a reply or the log', () => {
  const logs = gw.logs();
  assert.equal(logs.includes(MOCK_AWS_CREDENTIALS.secretAccessKey), false);
  assert.equal(logs.includes(MOCK_BEDROCK_API_KEY), false);
  for (const c of br.calls) {
    const sig = /Signature=([0-9a-f]{64})/.exec(c.headers.authorization ?? '')?.[1];
    if (sig !== undefined) assert.equal(logs.includes(sig), false);
  }
});

// Bedrock's Converse API as gateway ingress, driven by @aws-sdk/client-bedrock-runtime with only an
// endpoint override: its default request handler speaks HTTP/2 with prior knowledge to the gateway's
// http:// port, and its bearer-token auth (AWS_BEARER_TOKEN_BEDROCK, or `token`) carries the gateway key.
// ConverseCommand and ConverseStreamCommand reach a Claude model (kind bedrock, InvokeModel, SigV4-checked
// by the mock) and a GPT model (an OpenAI-style upstream, translated), each with a tool round trip; the
// stream comes back as ConverseStream's events in AWS's event stream. Failover from a throttled Bedrock
// deployment to a kind anthropic one; a throttlingException in the middle of an InvokeModel stream;
// HEAD / answered.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  type ContentBlock,
  type ConverseStreamOutput,
  type Message,
  type Tool,
} from '@aws-sdk/client-bedrock-runtime';
import Anthropic from '@anthropic-ai/sdk';
import type { MockBedrock } from '../helpers/mock-bedrock.ts';
import type { MockUpstream } from '../helpers/mock-upstream-types.ts';
import { waitUntil, type GatewayProcess } from '../helpers/gateway-process.ts';
import { BEDROCK_KEYS, startCloudFixture, type CloudFixture } from '../helpers/cloud-fixture.ts';
import { usageRows } from '../admission/usage-db.ts';

const UPSTREAM_KEY = 'sk-upstream-secret-0123456789abcdefXYZ';

let fx: CloudFixture;
let br: MockBedrock;
let up: MockUpstream;
let gw: GatewayProcess;
let key: string;
let keyId: string;

before(async () => {
  fx = await startCloudFixture({
    bedrock: { text: 'Claude on Bedrock here' },
    upstream: true,
    keyName: 'converse',
    providers: (m) => `  - { name: br, kind: bedrock, region: us-east-1, base_url: "${m.br!.url}", ${BEDROCK_KEYS} }
  - { name: oa, kind: openai, base_url: "${m.up!.url}/v1", api_key: "${UPSTREAM_KEY}" }
  - { name: upa, kind: anthropic, base_url: "${m.up!.url}", api_key: "${UPSTREAM_KEY}" }`,
    models: `  - { name: claude-sonnet-4-6, price: { input: 3, output: 15 }, deployments: [ { provider: br, model: "us.anthropic.claude-sonnet-4-6" } ] }
  - { name: gpt-4o-mini, price: { input: 1, output: 2 }, deployments: [ { provider: oa, model: gpt-4o-mini } ] }
  - { name: claude-failover, deployments: [ { provider: br, model: "anthropic.claude-throttle-v1:0" }, { provider: upa, model: claude-upstream-1, priority: 1 } ] }
  - { name: nova, deployments: [ { provider: br, model: "us.amazon.nova-pro-v1:0" } ] }
  - { name: claude-midstream, deployments: [ { provider: br, model: "anthropic.claude-midstream-v1:0" } ] }`,
  });
  ({ gw, key, keyId } = fx);
  br = fx.br!;
  up = fx.up!;
});
after(async () => {
  await fx?.close();
});

/** The SDK as an application has it, with the endpoint overridden and the gateway key as its bearer token. */
const client = () =>
  new BedrockRuntimeClient({
    endpoint: gw.url,
    region: 'us-east-1',
    token: { token: key },
    authSchemePreference: ['httpBearerAuth'],
    maxAttempts: 1,
  });

const WEATHER: Tool = {
  toolSpec: {
    name: 'get_weather',
    description: 'The weather in a city',
    inputSchema: { json: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
  },
};

/** The events of a ConverseStream, and the text, tool input and stop reason they carry. */
async function drain(stream: AsyncIterable<ConverseStreamOutput> | undefined) {
  const events: ConverseStreamOutput[] = [];
  let text = '';
  let toolInput = '';
  let tool: { toolUseId?: string; name?: string } | undefined;
  let stopReason: string | undefined;
  let usage: { inputTokens?: number; outputTokens?: number } | undefined;
  for await (const ev of stream ?? []) {
    events.push(ev);
    if (ev.contentBlockStart?.start?.toolUse) tool = ev.contentBlockStart.start.toolUse;
    if (ev.contentBlockDelta?.delta?.text) text += ev.contentBlockDelta.delta.text;
    if (ev.contentBlockDelta?.delta?.toolUse?.input) toolInput += ev.contentBlockDelta.delta.toolUse.input;
    if (ev.messageStop) stopReason = ev.messageStop.stopReason;
    if (ev.metadata) usage = ev.metadata.usage;
  }
  return { events, text, toolInput, tool, stopReason, usage };
}

test('the SDK default handler is HTTP/2; ConverseCommand reaches Claude on Bedrock by its inference-profile id', async () => {
  const c = client();
  assert.equal((await c.config.requestHandler).constructor.name, 'NodeHttp2Handler');
  const before = br.calls.length;
  const out = await c.send(
    new ConverseCommand({
      modelId: 'us.anthropic.claude-sonnet-4-6',
      messages: [{ role: 'user', content: [{ text: 'hi' }] }],
      system: [{ text: 'Be brief.' }],
      inferenceConfig: { maxTokens: 64, temperature: 0.2 },
    }),
  );
  assert.equal(out.output?.message?.content?.[0]?.text, 'Claude on Bedrock here');
  assert.equal(out.stopReason, 'end_turn');
  assert.equal(out.usage?.inputTokens, 11);
  assert.equal(out.usage?.outputTokens, 4);
  assert.equal(out.usage?.totalTokens, 15);
  assert.equal(typeof out.metrics?.latencyMs, 'number');
  const call = br.calls.at(-1)!;
  assert.equal(br.calls.length, before + 1);
  assert.equal(call.operation, 'invoke', 'Claude is served through InvokeModel underneath');
  assert.equal(call.auth, 'sigv4');
  assert.deepEqual(call.body.system, 'Be brief.');
  assert.equal(call.body.temperature, 0.2);
  assert.equal(call.body.max_tokens, 64);
  const rows = () => usageRows(gw.dbPath, keyId) as unknown as Record<string, unknown>[];
  await waitUntil(() => rows().some((r) => r.endpoint === '/model/{model}/converse'), 'a usage row');
  const row = rows().find((r) => r.endpoint === '/model/{model}/converse')!;
  assert.equal(row.model, 'claude-sonnet-4-6');
  assert.equal(row.status, 200);
  assert.ok(Number(row.cost_nanos) > 0);
});

test('AWS_BEARER_TOKEN_BEDROCK alone carries the gateway key; ConverseStream to Claude with a tool round trip', async () => {
  process.env.AWS_BEARER_TOKEN_BEDROCK = key;
  try {
    const c = new BedrockRuntimeClient({ endpoint: gw.url, region: 'us-east-1', maxAttempts: 1 });
    const messages: Message[] = [{ role: 'user', content: [{ text: 'Weather in Oslo?' }] }];
    const first = await c.send(
      new ConverseStreamCommand({ modelId: 'claude-sonnet-4-6', messages, toolConfig: { tools: [WEATHER] } }),
    );
    const got = await drain(first.stream);
    assert.equal(got.events[0].messageStart?.role, 'assistant');
    assert.equal(got.tool?.name, 'get_weather');
    assert.deepEqual(JSON.parse(got.toolInput), { city: 'Oslo' });
    assert.equal(got.stopReason, 'tool_use');
    assert.equal(got.usage?.inputTokens, 11);
    assert.equal(br.calls.at(-1)!.operation, 'invoke-with-response-stream');
    const toolUse: ContentBlock = {
      toolUse: { toolUseId: got.tool!.toolUseId!, name: 'get_weather', input: JSON.parse(got.toolInput) },
    };
    messages.push({ role: 'assistant', content: [toolUse] });
    messages.push({
      role: 'user',
      content: [{ toolResult: { toolUseId: got.tool!.toolUseId!, content: [{ json: { forecast: 'sunny' } }] } }],
    });
    const second = await c.send(
      new ConverseStreamCommand({ modelId: 'claude-sonnet-4-6', messages, toolConfig: { tools: [WEATHER] } }),
    );
    const answer = await drain(second.stream);
    assert.equal(answer.text, 'Claude on Bedrock here');
    assert.equal(answer.stopReason, 'end_turn');
    const sent = br.calls.at(-1)!.body.messages as {
      role: string;
      content: { type: string; tool_use_id?: string }[];
    }[];
    assert.equal(sent.at(-1)!.content[0].type, 'tool_result');
    assert.equal(sent.at(-1)!.content[0].tool_use_id, got.tool!.toolUseId);
    assert.equal(br.calls.at(-1)!.headers.authorization?.startsWith('AWS4-HMAC-SHA256'), true);
  } finally {
    delete process.env.AWS_BEARER_TOKEN_BEDROCK;
  }
});

test('a GPT model behind the Converse route: ConverseStream with a tool call, then Converse with its result', async () => {
  up.reset();
  up.configure({ replyText: 'It is sunny in Oslo.' });
  const c = client();
  const messages: Message[] = [{ role: 'user', content: [{ text: 'Weather in Oslo?' }] }];
  const first = await c.send(
    new ConverseStreamCommand({ modelId: 'gpt-4o-mini', messages, toolConfig: { tools: [WEATHER] } }),
  );
  const got = await drain(first.stream);
  assert.equal(got.tool?.name, 'get_weather');
  assert.equal(got.stopReason, 'tool_use');
  assert.ok(got.toolInput.length > 0);
  assert.equal(up.requests.at(-1)!.path, '/v1/chat/completions');
  const starts = got.events.filter((e) => e.contentBlockStart !== undefined);
  const stops = got.events.filter((e) => e.contentBlockStop !== undefined);
  assert.equal(starts.length, stops.length, 'each block opened is closed');
  messages.push({
    role: 'assistant',
    content: [{ toolUse: { toolUseId: got.tool!.toolUseId!, name: 'get_weather', input: JSON.parse(got.toolInput) } }],
  });
  messages.push({
    role: 'user',
    content: [{ toolResult: { toolUseId: got.tool!.toolUseId!, content: [{ text: '{"forecast":"sunny"}' }] } }],
  });
  // The response's headers, as the SDK's own middleware sees them.
  let adjusted: string | undefined;
  c.middlewareStack.add(
    (next) => async (args) => {
      const result = await next(args);
      adjusted = (result.response as { headers: Record<string, string> }).headers['x-modelgate-adjusted'];
      return result;
    },
    { step: 'deserialize' },
  );
  const out = await c.send(
    new ConverseCommand({
      modelId: 'gpt-4o-mini',
      messages,
      toolConfig: { tools: [WEATHER] },
      requestMetadata: { team: 'search' },
    }),
  );
  assert.match(adjusted ?? '', /requestMetadata dropped/, 'what the route left out is said');
  assert.equal(out.output?.message?.content?.[0]?.text, 'It is sunny in Oslo.');
  assert.equal(out.stopReason, 'end_turn');
  const sent = up.requests.at(-1)!.json as { messages: { role: string; tool_call_id?: string }[] };
  const tool = sent.messages.find((m) => m.role === 'tool');
  assert.equal(tool?.tool_call_id, got.tool!.toolUseId);
  assert.equal(JSON.stringify(up.requests.at(-1)!.headers).includes(key), false, 'the gateway key stays here');
});

test('a Converse model on Bedrock behind the Converse route: ConverseStream upstream, the same events back', async () => {
  const out = await client().send(
    new ConverseStreamCommand({
      modelId: 'nova',
      messages: [{ role: 'user', content: [{ text: 'hi' }] }],
      inferenceConfig: { maxTokens: 32, topP: 0.9 },
    }),
  );
  const got = await drain(out.stream);
  assert.equal(got.text, 'Claude on Bedrock here', "the mock's Converse text");
  assert.equal(got.stopReason, 'end_turn');
  assert.equal(got.usage?.outputTokens, 4);
  const call = br.calls.at(-1)!;
  assert.equal(call.operation, 'converse-stream');
  assert.deepEqual(call.body.inferenceConfig, { maxTokens: 32, topP: 0.9 });
  assert.deepEqual(call.body.messages, [{ role: 'user', content: [{ text: 'hi' }] }]);
});

test('image bytes and a text document travel from the SDK (base64 in JSON) into the Messages body', async () => {
  up.reset();
  up.configure({ replyText: 'a red dot' });
  const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
  const out = await client().send(
    new ConverseCommand({
      modelId: 'claude-sonnet-4-6',
      messages: [
        {
          role: 'user',
          content: [
            { text: 'What is this?' },
            { image: { format: 'png', source: { bytes: png } } },
            { document: { format: 'txt', name: 'notes', source: { bytes: Buffer.from('a note') } } },
            { cachePoint: { type: 'default' } },
          ],
        },
      ],
    }),
  );
  assert.equal(out.output?.message?.content?.[0]?.text, 'Claude on Bedrock here');
  const sent = br.calls.at(-1)!.body.messages as { content: Record<string, unknown>[] }[];
  const [text, image, doc] = sent[0].content;
  assert.equal(text.text, 'What is this?');
  assert.deepEqual(image.source, { type: 'base64', media_type: 'image/png', data: png.toString('base64') });
  assert.equal((doc.source as { media_type: string }).media_type, 'text/plain');
  assert.deepEqual(doc.cache_control, { type: 'ephemeral' }, 'the cache point marks the block before it');
});

test('Converse errors in Bedrock shape: an unknown model, a wrong key, a field the gateway cannot carry', async () => {
  const c = client();
  await assert.rejects(
    c.send(new ConverseCommand({ modelId: 'no-such-model', messages: [{ role: 'user', content: [{ text: 'hi' }] }] })),
    (err: Error) => err.name === 'ResourceNotFoundException',
  );
  const wrong = new BedrockRuntimeClient({
    endpoint: gw.url,
    region: 'us-east-1',
    token: { token: 'mg-not-a-key' },
    authSchemePreference: ['httpBearerAuth'],
    maxAttempts: 1,
  });
  await assert.rejects(
    wrong.send(
      new ConverseCommand({ modelId: 'gpt-4o-mini', messages: [{ role: 'user', content: [{ text: 'hi' }] }] }),
    ),
    (err: Error & { $metadata?: { httpStatusCode?: number } }) => err.$metadata?.httpStatusCode === 401,
  );
  await assert.rejects(
    c.send(
      new ConverseCommand({
        modelId: 'gpt-4o-mini',
        messages: [{ role: 'user', content: [{ text: 'hi' }] }],
        guardrailConfig: { guardrailIdentifier: 'g', guardrailVersion: '1' },
      }),
    ),
    (err: Error) => err.name === 'ValidationException' && err.message.includes('guardrailConfig'),
  );
});

test('failover: a throttled Bedrock deployment hands the Converse request to a kind anthropic one', async () => {
  up.reset();
  up.configure({ replyText: 'answered by Anthropic' });
  const before = br.calls.length;
  const out = await client().send(
    new ConverseCommand({ modelId: 'claude-failover', messages: [{ role: 'user', content: [{ text: 'hi' }] }] }),
  );
  assert.equal(out.output?.message?.content?.[0]?.text, 'answered by Anthropic');
  assert.equal(br.calls.length, before + 1, 'Bedrock was tried once');
  assert.equal(br.calls.at(-1)!.model, 'anthropic.claude-throttle-v1:0');
  assert.equal(up.requests.at(-1)!.path, '/v1/messages');
  assert.equal((up.requests.at(-1)!.json as { model: string }).model, 'claude-upstream-1');
});

test('a throttlingException in the middle of an InvokeModel stream ends the stream as an error', async () => {
  const anthropic = new Anthropic({ baseURL: gw.url, authToken: key, apiKey: null, maxRetries: 0 });
  const stream = anthropic.messages.stream({
    model: 'claude-midstream',
    max_tokens: 64,
    messages: [{ role: 'user', content: 'hi' }],
  });
  await assert.rejects(stream.finalMessage(), (err: Error) => /throttlingException|Too many tokens/i.test(err.message));
  // On the Converse route the same failure arrives as the SDK's ThrottlingException.
  const out = await client().send(
    new ConverseStreamCommand({ modelId: 'claude-midstream', messages: [{ role: 'user', content: [{ text: 'hi' }] }] }),
  );
  await assert.rejects(drain(out.stream), (err: Error) => err.name === 'ThrottlingException');
  const rows = () => usageRows(gw.dbPath, keyId) as unknown as Record<string, unknown>[];
  await waitUntil(
    () => rows().filter((r) => r.model === 'claude-midstream' && Number(r.status) !== 200).length >= 2,
    'two failed rows',
  );
});

test('HEAD / (a client probing the base URL) is a 200 without a body', async () => {
  const r = await fetch(`${gw.url}/`, { method: 'HEAD' });
  assert.equal(r.status, 200);
  assert.equal(await r.text(), '');
});

// kind bedrock end to end, the tool round trip of an Anthropic caller on InvokeModelWithResponseStream and
// a Gemini caller on both of Bedrock's wires (InvokeModel for Claude, Converse for the others), against the
// mock Bedrock Runtime that recomputes each request's SigV4 signature.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import type { MockBedrock } from '../helpers/mock-bedrock.ts';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { BEDROCK_KEYS, startCloudFixture, type CloudFixture } from '../helpers/cloud-fixture.ts';

let fx: CloudFixture;
let br: MockBedrock;
let gw: GatewayProcess;
let key: string;

const CLAUDE = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';

before(async () => {
  fx = await startCloudFixture({
    bedrock: { text: 'Claude on Bedrock here' },
    keyName: 'bedrock',
    providers: (m) => `  - { name: br, kind: bedrock, region: us-east-1, base_url: "${m.br!.url}", ${BEDROCK_KEYS} }`,
    models: `  - { name: claude-br, deployments: [ { provider: br, model: "${CLAUDE}" } ] }
  - { name: nova-br, deployments: [ { provider: br, model: "us.amazon.nova-pro-v1:0" } ] }`,
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
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};

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

test('@google/genai: one request to a Claude model (InvokeModel) and one to another (Converse)', async () => {
  const ai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gw.url } });
  const claude = await ai.models.generateContent({ model: 'claude-br', contents: 'hello' });
  assert.equal(claude.text, 'Claude on Bedrock here');
  assert.equal(br.calls.at(-1)!.operation, 'invoke');
  const nova = await ai.models.generateContent({ model: 'nova-br', contents: 'hello' });
  assert.equal(nova.text, 'Claude on Bedrock here');
  assert.equal(br.calls.at(-1)!.operation, 'converse');
  assert.equal(br.calls.at(-1)!.model, 'us.amazon.nova-pro-v1:0');
  assert.ok((nova.usageMetadata?.promptTokenCount ?? 0) > 0);
  assert.equal(br.refused, 0);
});

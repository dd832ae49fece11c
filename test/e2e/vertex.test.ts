// kind vertex end to end: a mock Vertex AI that checks Google's Bearer tokens (issued by a local token
// endpoint the service-account file's `token_uri` names) and Vertex's paths and bodies, relaying to the
// scripted mock upstream so tool calls follow its script. Gemini models through @google/genai (passed
// through) and the openai SDK (translated), streamed and with a tool round trip; Claude models through
// @anthropic-ai/sdk (rawPredict / streamRawPredict, the version in the body, betas fitted to Vertex's).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI, type Content } from '@google/genai';
import type { MockUpstream } from '../helpers/mock-upstream-types.ts';
import type { MockGoogleToken } from '../helpers/mock-google-token.ts';
import type { MockVertex } from '../helpers/mock-vertex.ts';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { startCloudFixture, type CloudFixture } from '../helpers/cloud-fixture.ts';

let fx: CloudFixture;
let up: MockUpstream;
let google: MockGoogleToken;
let vx: MockVertex;
let gw: GatewayProcess;
let key: string;

before(async () => {
  fx = await startCloudFixture({
    vertex: true,
    keyName: 'vertex',
    providers: (
      m,
    ) => `  - { name: vx, kind: vertex, project: proj-1, location: us-east5, base_url: "${m.vx!.url}", credentials_file: "${m.serviceAccount}" }
  - { name: vx-broken, kind: vertex, project: proj-1, location: us-east5, base_url: "${m.vx!.url}", credentials_file: "/nonexistent/sa.json" }`,
    models: `  - { name: gemini-vx, deployments: [ { provider: vx, model: gemini-2.5-flash } ] }
  - { name: claude-vx, deployments: [ { provider: vx, model: "claude-sonnet-4-5@20250929" } ] }
  - { name: gemini-no-token-first, deployments: [ { provider: vx-broken, model: gemini-2.5-pro }, { provider: vx, model: gemini-2.5-flash, priority: 1 } ] }
  - { name: gemini-failover, deployments: [ { provider: vx, model: gemini-2.5-flash }, { provider: mock, model: mock-model, priority: 1 } ] }`,
  });
  ({ gw, key } = fx);
  up = fx.up!;
  google = fx.google!;
  vx = fx.vx!;
});
after(async () => {
  await fx?.close();
});

const WEATHER = {
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

test('@google/genai, streamed: Gemini passes through to streamGenerateContent with a Google token', async () => {
  up.reset();
  up.configure({ replyText: 'Gemini on Vertex says hi' });
  const ai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gw.url } });
  let text = '';
  for await (const chunk of await ai.models.generateContentStream({ model: 'gemini-vx', contents: 'hello' }))
    text += chunk.text ?? '';
  assert.equal(text, 'Gemini on Vertex says hi');
  const call = vx.calls.at(-1)!;
  assert.equal(call.publisher, 'google');
  assert.equal(call.project, 'proj-1');
  assert.equal(call.location, 'us-east5');
  assert.equal(call.model, 'gemini-2.5-flash');
  assert.equal(call.method, 'streamGenerateContent');
  assert.ok(google.isIssued(/^Bearer (.+)$/.exec(call.headers.authorization ?? '')![1]), 'a token the endpoint issued');
});

test('@google/genai: a tool round trip on Gemini', async () => {
  up.reset();
  up.configure({ toolName: 'get_weather', toolArguments: { city: 'Oslo' }, replyText: 'It is sunny in Oslo.' });
  const ai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gw.url } });
  const tools = [
    {
      functionDeclarations: [
        { name: WEATHER.name, description: WEATHER.description, parametersJsonSchema: WEATHER.parameters },
      ],
    },
  ];
  const contents: Content[] = [{ role: 'user', parts: [{ text: 'Weather in Oslo?' }] }];
  const first = await ai.models.generateContent({ model: 'gemini-vx', contents, config: { tools } });
  const fc = first.functionCalls?.[0];
  assert.equal(fc?.name, 'get_weather');
  assert.deepEqual(fc?.args, { city: 'Oslo' });
  contents.push(first.candidates![0].content!, {
    role: 'user',
    parts: [{ functionResponse: { name: 'get_weather', response: { forecast: 'sunny' } } }],
  });
  const second = await ai.models.generateContent({ model: 'gemini-vx', contents, config: { tools } });
  assert.equal(second.text, 'It is sunny in Oslo.');
  assert.equal(vx.calls.at(-1)!.method, 'generateContent');
});

test('openai SDK, streamed with a tool round trip: chat translated to Gemini on Vertex', async () => {
  up.reset();
  up.configure({ toolName: 'get_weather', toolArguments: { city: 'Oslo' }, replyText: 'Sunny, 21 degrees.' });
  const oai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
  const tools = [{ type: 'function' as const, function: WEATHER }];
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Oslo?' }];
  const stream = await oai.chat.completions.create({ model: 'gemini-vx', messages, tools, stream: true });
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
  assert.equal(vx.calls.at(-1)!.method, 'streamGenerateContent');
  messages.push(
    { role: 'assistant', tool_calls: [{ id, type: 'function', function: { name, arguments: args } }] },
    { role: 'tool', tool_call_id: id, content: '{"forecast":"sunny"}' },
  );
  const reply = await oai.chat.completions.create({ model: 'gemini-vx', messages, tools });
  assert.equal(reply.choices[0].message.content, 'Sunny, 21 degrees.');
  assert.ok(reply.usage!.prompt_tokens > 0);
});

test('@anthropic-ai/sdk: Claude on Vertex through rawPredict, version in the body, cost computed from the catalogue', async () => {
  up.reset();
  up.configure({ replyText: 'Claude on Vertex here' });
  const client = new Anthropic({ baseURL: gw.url, authToken: key, apiKey: null, maxRetries: 0 });
  const { data, response } = await client.messages
    .create({ model: 'claude-vx', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] })
    .withResponse();
  assert.equal(data.content[0].type === 'text' ? data.content[0].text : '', 'Claude on Vertex here');
  const call = vx.calls.at(-1)!;
  assert.equal(call.publisher, 'anthropic');
  assert.equal(call.model, 'claude-sonnet-4-5@20250929');
  assert.equal(call.method, 'rawPredict');
  assert.equal(call.body.anthropic_version, 'vertex-2023-10-16');
  assert.equal('model' in call.body, false);
  assert.ok(
    Number(response.headers.get('x-modelgate-cost')) > 0,
    `a cost: ${response.headers.get('x-modelgate-cost')}`,
  );
});

test('@anthropic-ai/sdk, streamed: streamRawPredict; betas Vertex takes go, the others are left out and said', async () => {
  up.reset();
  up.configure({ replyText: 'streamed from Vertex' });
  const client = new Anthropic({ baseURL: gw.url, authToken: key, apiKey: null, maxRetries: 0 });
  const stream = client.beta.messages.stream({
    model: 'claude-vx',
    max_tokens: 64,
    messages: [{ role: 'user', content: 'hi' }],
    betas: ['interleaved-thinking-2025-05-14', 'files-api-2025-04-14', 'advanced-tool-use-2025-11-20'],
  });
  const { response } = await stream.withResponse();
  const final = await stream.finalMessage();
  assert.equal(final.content[0].type === 'text' ? final.content[0].text : '', 'streamed from Vertex');
  const call = vx.calls.at(-1)!;
  assert.equal(call.method, 'streamRawPredict');
  assert.equal(call.headers['anthropic-beta'], 'interleaved-thinking-2025-05-14,tool-search-tool-2025-10-19');
  const adjusted = response.headers.get('x-modelgate-adjusted') ?? '';
  assert.match(adjusted, /files-api-2025-04-14 left out/);
  assert.match(adjusted, /advanced-tool-use-2025-11-20 sent as tool-search-tool-2025-10-19/);
});

test('count_tokens on a Claude model counts on Vertex (count-tokens:rawPredict, the model in the body)', async () => {
  const client = new Anthropic({ baseURL: gw.url, authToken: key, apiKey: null, maxRetries: 0 });
  const counted = await client.beta.messages.countTokens({
    model: 'claude-vx',
    messages: [{ role: 'user', content: 'hi' }],
    betas: ['context-1m-2025-08-07', 'files-api-2025-04-14'],
  });
  assert.equal(counted.input_tokens, 17);
  const call = vx.calls.at(-1)!;
  assert.equal(call.model, 'count-tokens');
  assert.equal(call.body.model, 'claude-sonnet-4-5@20250929');
  assert.equal(call.headers['anthropic-beta'], 'context-1m-2025-08-07', 'a beta Vertex refuses would fail the count');
});

test('no Google token or key reaches a reply or the log', async () => {
  const logs = gw.logs();
  for (const c of vx.calls) {
    const token = /^Bearer (.+)$/.exec(c.headers.authorization ?? '')![1];
    assert.equal(logs.includes(token), false);
  }
  assert.equal(logs.includes('PRIVATE KEY'), false);
});

test("429 RESOURCE_EXHAUSTED is a rate signal: the request fails over; a 400 keeps Vertex's text", async () => {
  up.reset();
  up.setBehaviour((r) =>
    r.path.startsWith('/v1beta/')
      ? {
          kind: 'status',
          status: 429,
          body: {
            error: { code: 429, message: 'Resource exhausted. Please try again later.', status: 'RESOURCE_EXHAUSTED' },
          },
        }
      : undefined,
  );
  try {
    const oai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
    const { data, response } = await oai.chat.completions
      .create({ model: 'gemini-failover', messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    assert.ok((data.choices[0].message.content ?? '').length > 0);
    assert.equal(vx.calls.at(-1)!.model, 'gemini-2.5-flash', 'Vertex was asked first');
    assert.ok(response.headers.get('x-request-id'));
    up.setBehaviour((r) =>
      r.path.startsWith('/v1beta/')
        ? {
            kind: 'status',
            status: 400,
            body: {
              error: {
                code: 400,
                message: 'Unable to submit request because it has an empty text parameter.',
                status: 'INVALID_ARGUMENT',
              },
            },
          }
        : undefined,
    );
    const refused = await oai.chat.completions
      .create({ model: 'gemini-vx', messages: [{ role: 'user', content: 'hi' }] })
      .then(
        () => null,
        (err: unknown) => err as { status: number; message: string },
      );
    assert.equal(refused?.status, 400);
    assert.match(refused?.message ?? '', /empty text parameter/);
  } finally {
    up.setBehaviour(undefined);
  }
});

test('credentials that yield no token set the deployment aside: the next one answers', async () => {
  up.reset();
  up.configure({ replyText: 'answered by the second deployment' });
  const oai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
  const reply = await oai.chat.completions.create({
    model: 'gemini-no-token-first',
    messages: [{ role: 'user', content: 'hi' }],
  });
  assert.equal(reply.choices[0].message.content, 'answered by the second deployment');
  assert.equal(vx.calls.at(-1)!.model, 'gemini-2.5-flash');
  assert.equal(
    vx.calls.some((c) => c.model === 'gemini-2.5-pro'),
    false,
    'nothing went to Vertex without a token',
  );
});

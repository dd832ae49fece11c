// Issue 40: Gemini through the translation hub. Chat, messages and Responses callers reach a Gemini upstream (it
// gets Gemini's wire format at its model's path), and Gemini callers (@google/genai, default API version
// and v1beta) reach OpenAI-style and Anthropic-style upstreams: replies, streams, tool calls and usage.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { startMockUpstream } from '../helpers/mock-upstream.ts';
import type { MockUpstream } from '../helpers/mock-upstream-types.ts';
import { startGateway, configYaml, waitUntil, type GatewayProcess } from '../helpers/gateway-process.ts';
import { DEFAULT_REPLY_TEXT } from '../helpers/mock-reply.ts';
import { MOCK_THOUGHT_SIGNATURE } from '../helpers/mock-gemini-wire.ts';
import {
  validateChatCompletion,
  validateChatCompletionChunk,
  validateMessage,
  validateMessageStreamEvent,
} from '../helpers/schemas.ts';
import { usageRows } from '../admission/usage-db.ts';

const SECRET = 'sk-upstream-secret-0123456789abcdefXYZ';
const GEMINI_SECRET = 'AIzaSyUpstreamGeminiKey0123456789abcdef';
let up: MockUpstream;
let gw: GatewayProcess;
let key: string;
let keyId: string;

before(async () => {
  up = await startMockUpstream();
  gw = await startGateway({
    configYaml: configYaml({
      providers: `  - { name: up, kind: openai, base_url: "${up.url}/v1", api_key: "${SECRET}" }
  - { name: upa, kind: anthropic, base_url: "${up.url}", api_key: "${SECRET}" }
  - { name: gem, kind: gemini, base_url: "${up.url}", api_key: "${GEMINI_SECRET}" }`,
      models: `  - { name: gpt-on-gemini, price: { input: 1, output: 2 }, deployments: [ { provider: gem, model: gemini-2.5-flash } ] }
  - { name: claude-on-gemini, deployments: [ { provider: gem, model: gemini-2.5-pro } ] }
  - { name: gemini-on-openai, price: { input: 1, output: 2 }, deployments: [ { provider: up, model: upstream-gpt } ] }
  - { name: gemini-on-anthropic, deployments: [ { provider: upa, model: claude-upstream } ] }`,
    }),
  });
  ({ key, id: keyId } = await gw.createKey({ name: 'tr', flags: ['--models', '*'] }));
});
after(async () => {
  await gw.cleanup();
  await up.close();
});

const weather = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

test('chat completions to a Gemini upstream: the upstream gets Gemini; replies, streams and tool calls come back as chat', async () => {
  const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
  const res = await client.chat.completions.create({
    model: 'gpt-on-gemini',
    max_tokens: 50,
    messages: [
      { role: 'system', content: 'Be brief' },
      { role: 'user', content: 'Hello there' },
    ],
  });
  validateChatCompletion(res);
  assert.equal(res.choices[0].message.content, DEFAULT_REPLY_TEXT);
  assert.equal(res.model, 'gpt-on-gemini');
  assert.ok(res.usage!.prompt_tokens > 0);
  const sent = up.requests.at(-1)!;
  assert.equal(sent.url, '/v1beta/models/gemini-2.5-flash:generateContent');
  assert.equal(sent.headers['x-goog-api-key'], GEMINI_SECRET);
  assert.deepEqual(sent.json, {
    contents: [{ role: 'user', parts: [{ text: 'Hello there' }] }],
    systemInstruction: { parts: [{ text: 'Be brief' }] },
    generationConfig: { maxOutputTokens: 50 },
  });

  let text = '';
  for await (const chunk of await client.chat.completions.create({
    model: 'gpt-on-gemini',
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: 'user', content: 'Stream it' }],
  })) {
    validateChatCompletionChunk(chunk);
    text += chunk.choices[0]?.delta?.content ?? '';
  }
  assert.equal(text, DEFAULT_REPLY_TEXT);
  assert.equal(up.requests.at(-1)!.url, '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');

  const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
    { type: 'function', function: { name: 'get_weather', parameters: weather } },
  ];
  const call = await client.chat.completions.create({
    model: 'gpt-on-gemini',
    tools,
    messages: [{ role: 'user', content: 'Weather in Paris?' }],
  });
  validateChatCompletion(call);
  assert.equal(call.choices[0].finish_reason, 'tool_calls');
  const tc = call.choices[0].message.tool_calls![0];
  assert.ok(tc.type === 'function' && tc.function.name === 'get_weather');
  const back = await client.chat.completions.create({
    model: 'gpt-on-gemini',
    tools,
    messages: [
      { role: 'user', content: 'Weather in Paris?' },
      call.choices[0].message,
      { role: 'tool', tool_call_id: tc.id, content: 'sunny' },
    ],
  });
  assert.equal(back.choices[0].message.content, DEFAULT_REPLY_TEXT);
  const history = (up.requests.at(-1)!.json as { contents: unknown[] }).contents;
  assert.deepEqual(history[2], {
    role: 'user',
    parts: [{ functionResponse: { name: 'get_weather', response: { output: 'sunny' } } }],
  });
  // Chat has no place for the call's thought signature: the gateway kept it by call id, and the call goes
  // back to the model that made it with its own signature.
  assert.equal(
    (history[1] as { parts: Array<{ thoughtSignature?: string }> }).parts[0].thoughtSignature,
    MOCK_THOUGHT_SIGNATURE,
  );
  // The signatures are kept per key: another key sending the same call back gets Google's placeholder.
  const { key: otherKey } = await gw.createKey({ name: 'tr-other', flags: ['--models', '*'] });
  const stranger = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: otherKey, maxRetries: 0 });
  await stranger.chat.completions.create({
    model: 'gpt-on-gemini',
    tools,
    messages: [
      { role: 'user', content: 'Weather in Paris?' },
      call.choices[0].message,
      { role: 'tool', tool_call_id: tc.id, content: 'sunny' },
    ],
  });
  const theirs = (up.requests.at(-1)!.json as { contents: Array<{ parts: Array<{ thoughtSignature?: string }> }> })
    .contents;
  assert.equal(theirs[1].parts[0].thoughtSignature, 'skip_thought_signature_validator');
  // A call the gateway never saw a Gemini model make goes with Google's placeholder.
  await client.chat.completions.create({
    model: 'gpt-on-gemini',
    tools,
    messages: [
      { role: 'user', content: 'Weather?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_made_elsewhere',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Oslo"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_made_elsewhere', content: 'rain' },
    ],
  });
  const elsewhere = (up.requests.at(-1)!.json as { contents: Array<{ parts: Array<{ thoughtSignature?: string }> }> })
    .contents;
  assert.equal(elsewhere[1].parts[0].thoughtSignature, 'skip_thought_signature_validator');
});

test('Responses to a Gemini upstream: create and stream', async () => {
  const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
  const res = await client.responses.create({ model: 'gpt-on-gemini', instructions: 'Be brief', input: 'Hello' });
  assert.equal(res.output_text, DEFAULT_REPLY_TEXT);
  const sent = up.requests.at(-1)!;
  assert.equal(sent.url, '/v1beta/models/gemini-2.5-flash:generateContent');
  assert.deepEqual((sent.json as { systemInstruction: unknown }).systemInstruction, { parts: [{ text: 'Be brief' }] });
  let text = '';
  for await (const ev of await client.responses.create({ model: 'gpt-on-gemini', input: 'Hello', stream: true }))
    if (ev.type === 'response.output_text.delta') text += ev.delta;
  assert.equal(text, DEFAULT_REPLY_TEXT);
  assert.equal(up.requests.at(-1)!.url, '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
});

test('messages to a Gemini upstream: create and stream', async () => {
  const ant = new Anthropic({ baseURL: gw.url, authToken: key, apiKey: null, maxRetries: 0 });
  const msg = await ant.messages.create({
    model: 'claude-on-gemini',
    max_tokens: 100,
    system: 'Be brief',
    messages: [{ role: 'user', content: 'Hi' }],
  });
  validateMessage(msg);
  assert.deepEqual(
    msg.content.map((b) => (b.type === 'text' ? b.text : b.type)),
    [DEFAULT_REPLY_TEXT],
  );
  assert.equal(up.requests.at(-1)!.path, '/v1beta/models/gemini-2.5-pro:generateContent');
  const stream = ant.messages.stream({
    model: 'claude-on-gemini',
    max_tokens: 100,
    messages: [{ role: 'user', content: 'Hi' }],
  });
  for await (const ev of stream) validateMessageStreamEvent(ev);
  const final = await stream.finalMessage();
  assert.equal(final.stop_reason, 'end_turn');
  assert.ok(final.usage.output_tokens > 0);

  // A streamed tool call and its result: the call goes back to Gemini with the signature it was made with.
  const tools: Anthropic.Tool[] = [
    {
      name: 'get_weather',
      input_schema: { type: 'object', properties: weather.properties, required: weather.required },
    },
  ];
  const asked = ant.messages.stream({
    model: 'claude-on-gemini',
    max_tokens: 100,
    tools,
    messages: [{ role: 'user', content: 'Weather in Paris?' }],
  });
  const called = await asked.finalMessage();
  assert.equal(called.stop_reason, 'tool_use');
  const use = called.content.find((b) => b.type === 'tool_use')!;
  assert.ok(use.type === 'tool_use');
  await ant.messages.create({
    model: 'claude-on-gemini',
    max_tokens: 100,
    tools,
    messages: [
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: called.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'sunny' }] },
    ],
  });
  const contents = (
    up.requests.at(-1)!.json as {
      contents: Array<{ parts: Array<{ functionCall?: unknown; thoughtSignature?: string }> }>;
    }
  ).contents;
  const callPart = contents[1].parts.find((p) => p.functionCall !== undefined)!;
  assert.equal(callPart.thoughtSignature, MOCK_THOUGHT_SIGNATURE);
});

for (const apiVersion of [undefined, 'v1beta'] as const) {
  test(`@google/genai (${apiVersion ?? 'default v1'}) on OpenAI-style and Anthropic-style upstreams`, async () => {
    const ai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gw.url, apiVersion } });
    for (const model of ['gemini-on-openai', 'gemini-on-anthropic']) {
      const res = await ai.models.generateContent({
        model,
        contents: 'Hello',
        config: { systemInstruction: 'Be brief', maxOutputTokens: 64 },
      });
      assert.equal(res.text, DEFAULT_REPLY_TEXT, model);
      assert.equal(res.modelVersion, model);
      assert.ok((res.usageMetadata?.promptTokenCount ?? 0) > 0);
      const sent = up.requests.at(-1)!;
      assert.equal(sent.path, model === 'gemini-on-openai' ? '/v1/chat/completions' : '/v1/messages');
      let text = '';
      let finish: string | undefined;
      for await (const chunk of await ai.models.generateContentStream({ model, contents: 'Stream' })) {
        text += chunk.text ?? '';
        finish = chunk.candidates?.[0]?.finishReason ?? finish;
      }
      assert.equal(text, DEFAULT_REPLY_TEXT, model);
      assert.equal(finish, 'STOP');
      const counted = await ai.models.countTokens({ model, contents: 'one two three' });
      assert.ok((counted.totalTokens ?? 0) > 0);
    }
  });
}

test('@google/genai function calling on an OpenAI-style upstream: the call comes back with its id, the response pairs with it', async () => {
  const ai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gw.url, apiVersion: 'v1beta' } });
  const tools = [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: weather }] }];
  const first = await ai.models.generateContent({
    model: 'gemini-on-openai',
    contents: 'Weather in Paris?',
    config: { tools },
  });
  const call = first.functionCalls![0];
  assert.equal(call.name, 'get_weather');
  assert.deepEqual(call.args, { city: 'mock' });
  assert.ok(call.id);
  const sentTools = (up.requests.at(-1)!.json as { tools: unknown }).tools;
  assert.deepEqual(sentTools, [{ type: 'function', function: { name: 'get_weather', parameters: weather } }]);
  const second = await ai.models.generateContent({
    model: 'gemini-on-openai',
    contents: [
      { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
      first.candidates![0].content!,
      {
        role: 'user',
        parts: [{ functionResponse: { id: call.id, name: 'get_weather', response: { output: 'sunny' } } }],
      },
    ],
    config: { tools },
  });
  assert.equal(second.text, DEFAULT_REPLY_TEXT);
  const messages = (up.requests.at(-1)!.json as { messages: Array<Record<string, unknown>> }).messages;
  const assistant = messages[1] as { tool_calls: Array<{ id: string }> };
  assert.equal(assistant.tool_calls[0].id, call.id);
  assert.deepEqual(messages[2], { role: 'tool', tool_call_id: call.id, content: 'sunny' });
  const requestId = up.requests.length;
  assert.ok(requestId > 0);
  await waitUntil(
    () =>
      usageRows(gw.dbPath, keyId).some(
        (r) => (r as unknown as { endpoint: string }).endpoint === '/v1beta/models/{model}:generateContent',
      ),
    'a Gemini usage row',
  );
});

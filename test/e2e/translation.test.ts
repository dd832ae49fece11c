// Issue 3 end to end: the openai SDK reaches an Anthropic-style upstream, and the Anthropic SDK reaches
// an OpenAI-style upstream, for text, streams, a two-turn tool round trip and structured output.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { startFixture, call, CROSS_DIALECT_MODELS, type Fixture } from './fixture.ts';
import {
  validateChatCompletion,
  validateChatCompletionChunk,
  validateMessage,
  validateMessageStreamEvent,
} from '../helpers/schemas.ts';

let fx: Fixture;
let oai: OpenAI;
let ant: Anthropic;
let key: string;
before(async () => {
  fx = await startFixture({ extraModels: CROSS_DIALECT_MODELS });
  ({ key } = await fx.gw.createKey({ name: 'translation' }));
  oai = new OpenAI({ baseURL: `${fx.gw.url}/v1`, apiKey: key, maxRetries: 0 });
  ant = new Anthropic({ baseURL: fx.gw.url, authToken: key, apiKey: null, maxRetries: 0 });
});
after(async () => fx.close());

const weatherTool: OpenAI.Chat.Completions.ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

test('chat completions → Anthropic upstream: text, stream with usage chunk', async () => {
  const res = await oai.chat.completions.create({
    model: 'gpt-via-anthropic',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
    ],
    temperature: 1.5,
  });
  validateChatCompletion(res);
  assert.equal(res.model, 'gpt-via-anthropic');
  assert.match(res.id, /^chatcmpl-/);
  assert.equal(res.choices[0].finish_reason, 'stop');
  assert.ok(res.usage!.prompt_tokens > 0);
  const sent = fx.up.requests.at(-1)!;
  assert.equal(sent.path, '/v1/messages');
  const body = sent.json as { system: unknown; temperature: number; max_tokens: number; model: string };
  assert.equal(body.model, 'claude-upstream-2');
  assert.equal(body.temperature, 1);
  assert.ok(body.max_tokens > 0);
  assert.ok(body.system);

  const stream = await oai.chat.completions.create({
    model: 'gpt-via-anthropic',
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: 'user', content: 'Hi' }],
  });
  let text = '';
  let usage: OpenAI.CompletionUsage | null | undefined;
  for await (const c of stream) {
    validateChatCompletionChunk(c);
    text += c.choices[0]?.delta?.content ?? '';
    if (c.usage) usage = c.usage;
  }
  assert.ok(text.length > 0);
  assert.ok(usage && usage.prompt_tokens > 0 && usage.completion_tokens > 0);
});

test('chat completions → Anthropic upstream: a full tool round trip of two turns', async () => {
  const first = await oai.chat.completions.create({
    model: 'gpt-via-anthropic',
    tools: [weatherTool],
    messages: [{ role: 'user', content: 'Weather in Paris?' }],
  });
  validateChatCompletion(first);
  assert.equal(first.choices[0].finish_reason, 'tool_calls');
  const call = first.choices[0].message.tool_calls![0];
  assert.ok(call.type === 'function');
  const second = await oai.chat.completions.create({
    model: 'gpt-via-anthropic',
    tools: [weatherTool],
    messages: [
      { role: 'user', content: 'Weather in Paris?' },
      first.choices[0].message,
      { role: 'tool', tool_call_id: call.id, content: '{"temp":21}' },
    ],
  });
  validateChatCompletion(second);
  assert.equal(second.choices[0].finish_reason, 'stop');
  const sent = fx.up.requests.at(-1)!.json as {
    messages: { role: string; content: { type: string; tool_use_id?: string }[] }[];
  };
  const last = sent.messages.at(-1)!;
  assert.equal(last.role, 'user');
  assert.equal(last.content[0].type, 'tool_result');
  assert.equal(last.content[0].tool_use_id, call.id);
});

test('chat completions → Anthropic upstream: structured output is valid JSON text', async () => {
  fx.up.configure({ toolArguments: { answer: 42 } });
  try {
    const res = await oai.chat.completions.create({
      model: 'gpt-via-anthropic',
      messages: [{ role: 'user', content: 'Answer in JSON' }],
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'answer',
          schema: { type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'] },
        },
      },
    });
    validateChatCompletion(res);
    assert.deepEqual(JSON.parse(res.choices[0].message.content!), { answer: 42 });
    assert.equal(res.choices[0].finish_reason, 'stop');
  } finally {
    fx.up.reset();
  }
});

test('messages → OpenAI upstream: text, MessageStream helper with real input tokens in message_start', async () => {
  const msg = await ant.messages.create({
    model: 'claude-via-openai',
    max_tokens: 200,
    system: 'Be brief.',
    messages: [{ role: 'user', content: 'Hi' }],
  });
  validateMessage(msg);
  assert.equal(msg.model, 'claude-via-openai');
  assert.match(msg.id, /^msg_/);
  assert.equal(msg.stop_reason, 'end_turn');
  const sent = fx.up.requests.at(-1)!;
  assert.equal(sent.path, '/v1/chat/completions');
  assert.deepEqual((sent.json as { messages: { role: string }[] }).messages[0].role, 'system');

  const stream = ant.messages.stream({
    model: 'claude-via-openai',
    max_tokens: 200,
    messages: [{ role: 'user', content: 'Hello there' }],
  });
  let startInput = -1;
  stream.on('streamEvent', (ev) => {
    validateMessageStreamEvent(ev);
    if (ev.type === 'message_start') startInput = ev.message.usage.input_tokens;
  });
  const final = await stream.finalMessage();
  assert.ok(startInput > 0, 'message_start carries a non-zero input token count');
  assert.ok(final.content[0].type === 'text' && final.content[0].text.length > 0);
  assert.ok(final.usage.output_tokens > 0);
});

test('messages → OpenAI upstream: tool round trip through the stream helper', async () => {
  const tools: Anthropic.Tool[] = [
    {
      name: 'get_weather',
      description: 'Weather',
      input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  ];
  const first = await ant.messages
    .stream({
      model: 'claude-via-openai',
      max_tokens: 200,
      tools,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
    })
    .finalMessage();
  assert.equal(first.stop_reason, 'tool_use');
  const use = first.content.find((b) => b.type === 'tool_use');
  assert.ok(use && use.type === 'tool_use');
  assert.equal(use.name, 'get_weather');
  const second = await ant.messages.create({
    model: 'claude-via-openai',
    max_tokens: 200,
    tools,
    messages: [
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: first.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '{"temp":21}' }] },
    ],
  });
  validateMessage(second);
  assert.equal(second.stop_reason, 'end_turn');
  const sent = fx.up.requests.at(-1)!.json as { messages: { role: string; tool_call_id?: string }[] };
  const toolMsg = sent.messages.find((m) => m.role === 'tool');
  assert.equal(toolMsg?.tool_call_id, use.id);
});

test('count_tokens: forwarded (exact) to an Anthropic-style upstream, estimated for an OpenAI-style one', async () => {
  const body = {
    model: 'claude-up',
    messages: [{ role: 'user' as const, content: 'How many tokens is this sentence?' }],
  };
  const exact = await ant.messages.countTokens(body);
  assert.ok(exact.input_tokens > 0);
  const seen = fx.up.requests.at(-1)!;
  assert.equal(seen.path, '/v1/messages/count_tokens');
  assert.equal((seen.json as { model: string }).model, 'claude-upstream-1');
  const before = fx.up.requests.length;
  const est = await ant.messages.countTokens({ ...body, model: 'claude-via-openai' });
  assert.ok(est.input_tokens > 0);
  assert.equal(fx.up.requests.length, before, 'no upstream call for an estimate');
  await assert.rejects(
    ant.messages.countTokens({ ...body, model: 'gpt-up' }),
    (e: { status?: number }) => e.status === 400,
  );
});

test('a body nested 100,000 brackets deep: 400 naming the limit on every route, count_tokens too, never a 500', async () => {
  // Where a translator copies the value (a tool's schema, a tool_use input), the upstream body could not
  // be serialised again; the estimate walks every message.
  const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
  const before = fx.up.requests.length;
  const tools = `[{"type":"function","function":{"name":"f","parameters":{"type":"object","x":${deep}}}}]`;
  const chat = await call(fx, {
    path: '/v1/chat/completions',
    body: `{"model":"gpt-via-anthropic","messages":[{"role":"user","content":"hi"}],"tools":${tools}}`,
    auth: key,
  });
  assert.equal(chat.status, 400, chat.text.slice(0, 300));
  assert.match(chat.text, /more than 128 levels deep/);
  const headers = { 'anthropic-version': '2023-06-01' };
  const turns = `[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{"x":${deep}}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}]}]`;
  const translated = await call(fx, {
    path: '/v1/messages',
    body: `{"model":"claude-via-openai","max_tokens":16,"messages":${turns}}`,
    headers,
    auth: key,
  });
  assert.equal(translated.status, 400, translated.text.slice(0, 300));
  assert.equal(fx.up.requests.length, before, 'neither reached the upstream');
  // Refused at parse on every path (issue 39), before count_tokens could forward it upstream.
  const counted = await call(fx, {
    path: '/v1/messages/count_tokens',
    body: `{"model":"claude-via-openai","messages":${turns}}`,
    headers,
    auth: key,
  });
  assert.equal(counted.status, 400, counted.text.slice(0, 300));
  assert.match(counted.text, /more than 128 levels deep/);
  assert.equal(fx.up.requests.length, before, 'nothing reached the upstream');
});

test('chat completions → Anthropic upstream: streamed tool calls after text keep index 0, via the SDK stream helper', async () => {
  fx.up.configure({ toolPreambleText: 'Let me check.', chunkCount: 4 });
  try {
    const runner = oai.chat.completions.stream({
      model: 'gpt-via-anthropic',
      tools: [weatherTool],
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
    });
    runner.on('chunk', (c) => validateChatCompletionChunk(c));
    const final = await runner.finalChatCompletion();
    const msg = final.choices[0].message;
    assert.equal(final.choices[0].finish_reason, 'tool_calls');
    assert.equal(msg.content, 'Let me check.');
    assert.equal(msg.tool_calls!.length, 1);
    const tc = msg.tool_calls![0];
    assert.ok(tc.type === 'function');
    assert.deepEqual(Object.keys(JSON.parse(tc.function.arguments) as object), ['city']);
  } finally {
    fx.up.reset();
  }
});

test('chat completions → Anthropic upstream: streamed structured output arrives as JSON text', async () => {
  fx.up.configure({ toolArguments: { answer: 7 } });
  try {
    const stream = await oai.chat.completions.create({
      model: 'gpt-via-anthropic',
      stream: true,
      messages: [{ role: 'user', content: 'JSON please' }],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'a', schema: { type: 'object', properties: { answer: { type: 'number' } } } },
      },
    });
    let text = '';
    let finish: string | null | undefined;
    for await (const c of stream) {
      validateChatCompletionChunk(c);
      text += c.choices[0]?.delta?.content ?? '';
      finish = c.choices[0]?.finish_reason ?? finish;
      assert.equal(c.choices[0]?.delta?.tool_calls, undefined, 'the JSON tool never shows as a tool call');
    }
    assert.deepEqual(JSON.parse(text), { answer: 7 });
    assert.equal(finish, 'stop');
  } finally {
    fx.up.reset();
  }
});

test('messages → OpenAI upstream: native output_config.format becomes response_format json_schema', async () => {
  fx.up.configure({ replyText: '{"answer":3}' });
  try {
    const schema = { type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'] };
    const r = await fetch(`${fx.gw.url}/v1/messages`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${fx.key}`,
        'anthropic-version': '2023-06-01',
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        model: 'claude-via-openai',
        max_tokens: 100,
        output_config: { format: { type: 'json_schema', schema } },
        messages: [{ role: 'user', content: 'JSON' }],
      }),
    });
    const msg = (await r.json()) as Anthropic.Message;
    validateMessage(msg);
    const sent = fx.up.requests.at(-1)!.json as { response_format: { type: string; json_schema: { schema: unknown } } };
    assert.equal(sent.response_format.type, 'json_schema');
    assert.deepEqual(sent.response_format.json_schema.schema, schema);
    assert.ok(msg.content[0].type === 'text');
    assert.deepEqual(JSON.parse(msg.content[0].text), { answer: 3 });
  } finally {
    fx.up.reset();
  }
});

test('upstream errors are re-shaped into the caller’s dialect with the upstream text kept', async () => {
  fx.up.enqueue({
    kind: 'status',
    status: 400,
    body: { type: 'error', error: { type: 'invalid_request_error', message: 'messages.0.content: too many images' } },
  });
  await assert.rejects(
    oai.chat.completions.create({ model: 'gpt-via-anthropic', messages: [{ role: 'user', content: 'x' }] }),
    (e: { status?: number; message?: string }) => e.status === 400 && /too many images/.test(e.message ?? ''),
  );
  fx.up.enqueue({
    kind: 'status',
    status: 400,
    body: {
      error: {
        message: 'context_length_exceeded: 9000 > 8192',
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    },
  });
  await assert.rejects(
    ant.messages.create({ model: 'claude-via-openai', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }),
    (e: { status?: number; error?: { type: string; error: { type: string; message: string } } }) =>
      e.status === 400 &&
      e.error?.type === 'error' &&
      e.error.error.type === 'invalid_request_error' &&
      /context_length_exceeded/.test(e.error.error.message),
  );
});

// Issue 2: /v1/chat/completions to an OpenAI-style upstream through the official openai SDK, streamed
// and not, with tools and include_usage; bodies reach the upstream byte-identical but for `model`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startFixture, call, type Fixture } from './fixture.ts';
import { validateChatCompletion, validateChatCompletionChunk, validateModelList } from '../helpers/schemas.ts';

let fx: Fixture;
let client: OpenAI;
before(async () => {
  fx = await startFixture();
  client = new OpenAI({ baseURL: `${fx.gw.url}/v1`, apiKey: fx.key, maxRetries: 0 });
});
after(async () => fx.close());

test('non-streamed reply keeps the upstream body and shows the requested model name', async () => {
  const res = await client.chat.completions.create({ model: 'gpt-up', messages: [{ role: 'user', content: 'Hello' }] });
  validateChatCompletion(res);
  assert.equal(res.model, 'gpt-up');
  assert.ok(res.choices[0].message.content);
  assert.ok(res.usage && res.usage.prompt_tokens > 0 && res.usage.completion_tokens > 0);
  const seen = fx.up.requests.at(-1)!;
  assert.equal((seen.json as { model: string }).model, 'upstream-gpt');
  assert.equal(seen.headers.authorization, 'Bearer sk-upstream-secret-0123456789abcdefXYZ');
});

test('unknown fields and formatting reach the upstream byte-identical apart from the model name', async () => {
  const raw =
    '{ "model" : "gpt-up",\n  "messages":[{"role":"user","content":"hi \\"model\\": x"}],\n  "x_custom": {"deep": [1, 2.50, "ü"]}, "metadata": {"model": "keep"}, "top_k": 3, "logit_bias": {"50256": -100}\n}';
  const r = await call(fx, { path: '/v1/chat/completions', body: raw });
  assert.equal(r.status, 200);
  const seen = fx.up.requests.at(-1)!.body.toString('utf8');
  assert.equal(seen, raw.replace('"gpt-up"', '"upstream-gpt"'));
});

test('streamed reply: every chunk validates, usage chunk only when asked, [DONE] last', async () => {
  const stream = await client.chat.completions.create({
    model: 'gpt-up',
    stream: true,
    messages: [{ role: 'user', content: 'Hello' }],
  });
  let text = '';
  let usageChunks = 0;
  for await (const chunk of stream) {
    validateChatCompletionChunk(chunk);
    assert.equal(chunk.model, 'gpt-up');
    if (chunk.usage) usageChunks++;
    text += chunk.choices[0]?.delta?.content ?? '';
  }
  assert.ok(text.length > 0);
  assert.equal(usageChunks, 0, 'the usage chunk the gateway asked for is stripped when the client did not ask');
  // The gateway asked the upstream for usage anyway, so the row is exact.
  const sent = fx.up.requests.at(-1)!.json as { stream_options?: { include_usage?: boolean } };
  assert.equal(sent.stream_options?.include_usage, true);

  const withUsage = await client.chat.completions.create({
    model: 'gpt-up',
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: 'user', content: 'Hello' }],
  });
  let last: OpenAI.Chat.Completions.ChatCompletionChunk | undefined;
  for await (const chunk of withUsage) {
    validateChatCompletionChunk(chunk);
    last = chunk;
  }
  assert.ok(last?.usage && last.usage.total_tokens > 0);
  assert.deepEqual(last.choices, []);
});

test('raw stream ends with data: [DONE]', async () => {
  const r = await call(fx, {
    path: '/v1/chat/completions',
    body: { model: 'gpt-up', stream: true, messages: [{ role: 'user', content: 'x' }] },
  });
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type') ?? '', /text\/event-stream/);
  assert.ok(r.text.trimEnd().endsWith('data: [DONE]'));
  assert.ok(r.headers.get('x-request-id'));
});

test('tools: a tool call comes back, streamed through the SDK helper and not', async () => {
  const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
    {
      type: 'function',
      function: {
        name: 'get_weather',
        description: 'Weather',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    },
  ];
  const res = await client.chat.completions.create({
    model: 'gpt-up',
    tools,
    tool_choice: 'auto',
    messages: [{ role: 'user', content: 'Weather in Paris?' }],
  });
  validateChatCompletion(res);
  assert.equal(res.choices[0].finish_reason, 'tool_calls');
  const tc = res.choices[0].message.tool_calls![0];
  assert.equal(tc.type === 'function' && tc.function.name, 'get_weather');
  const sent = fx.up.requests.at(-1)!.json as { tools: unknown; tool_choice: unknown };
  assert.deepEqual(sent.tools, tools);
  assert.equal(sent.tool_choice, 'auto');

  const runner = client.chat.completions.stream({
    model: 'gpt-up',
    tools,
    messages: [{ role: 'user', content: 'Weather in Paris?' }],
  });
  const final = await runner.finalChatCompletion();
  const call0 = final.choices[0].message.tool_calls![0];
  assert.equal(call0.type === 'function' && call0.function.name, 'get_weather');
  assert.doesNotThrow(() => JSON.parse(call0.type === 'function' ? call0.function.arguments : ''));
});

test('models listing: exactly the models the key may use, valid for the OpenAI schema', async () => {
  const r = await call(fx, { path: '/v1/models' });
  validateModelList(r.json);
  const ids = (r.json as { data: { id: string }[] }).data.map((m) => m.id).sort();
  assert.deepEqual(ids, ['claude-mock', 'claude-up', 'gpt-mock', 'gpt-up']);
  const page = await client.models.list();
  assert.deepEqual(page.data.map((m) => m.id).sort(), ids);
});

test('a repeated model key: the upstream gets only the model that was routed and billed, streamed or not', async () => {
  // JSON.parse keeps the last of repeated keys; patching only the first left the caller's own string for
  // an upstream that keeps the last, as most parsers do.
  const messages = '"messages":[{"role":"user","content":"hi"}]';
  const bodies = [
    `{"model":"gpt-up","model":"gpt-up",${messages}}`,
    `{"model":"upstream-gpt","model":"gpt-up",${messages}}`,
    `{"model":"gpt-4o-real","mod\\u0065l":"gpt-up",${messages}}`,
    `{"model":"gpt-4o-real","model":"gpt-up",${messages},"stream":true}`,
  ];
  for (const body of bodies) {
    const r = await call(fx, { path: '/v1/chat/completions', body });
    assert.equal(r.status, 200, body);
    const seen = fx.up.requests.at(-1)!.body.toString('utf8');
    assert.equal(seen.match(/"model"|\\u00/g)?.length, 1, `one model key, spelled plainly: ${seen}`);
    const sent = JSON.parse(seen) as { model: string; stream_options?: { include_usage?: boolean } };
    assert.equal(sent.model, 'upstream-gpt');
    if (body.includes('"stream":true')) {
      assert.equal(sent.stream_options?.include_usage, true, 'a re-serialised stream still asks for usage');
      assert.match(r.text, /data: \[DONE\]/);
    }
  }
  // A sole model key spelled with escapes is the model: patched where it stands, the rest byte for byte.
  const escaped = `{"mod\\u0065l":"gpt-up",${messages},"x_custom":[1, 2]}`;
  assert.equal((await call(fx, { path: '/v1/chat/completions', body: escaped })).status, 200);
  assert.equal(fx.up.requests.at(-1)!.body.toString('utf8'), escaped.replace('"gpt-up"', '"upstream-gpt"'));
});

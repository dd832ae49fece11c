// Self-test: the mock upstream's OpenAI routes pass the official schemas and the official `openai` client.

import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { DEFAULT_REPLY_TEXT, countMockTokens, startMockUpstream } from '../helpers/mock-upstream.ts';
import type { MockUpstream } from '../helpers/mock-upstream.ts';
import {
  parseSseText,
  validateChatCompletion,
  validateChatCompletionChunk,
  validateModelList,
} from '../helpers/schemas.ts';

let mock: MockUpstream;
let client: OpenAI;

const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer' } },
      required: ['city', 'days'],
    },
  },
};

before(async () => {
  mock = await startMockUpstream();
  client = new OpenAI({ baseURL: `${mock.url}/v1`, apiKey: 'x', maxRetries: 0 });
});
after(() => mock.close());
beforeEach(() => mock.reset());

async function postRaw(body: unknown): Promise<Response> {
  return fetch(`${mock.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer x' },
    body: JSON.stringify(body),
  });
}

/** Parses a raw OpenAI stream: every chunk validated, `[DONE]` required last, no `event:` lines. */
function chunksOf(text: string): Record<string, unknown>[] {
  const events = parseSseText(text);
  assert.equal(events.at(-1)?.data, '[DONE]');
  return events.slice(0, -1).map((e) => {
    assert.equal(e.event, undefined);
    const chunk = JSON.parse(e.data) as Record<string, unknown>;
    validateChatCompletionChunk(chunk);
    return chunk;
  });
}

test('non-streaming reply through the SDK: text, usage, request id; raw body matches the schema', async () => {
  const { data, request_id } = await client.chat.completions
    .create({ model: 'gpt-test', messages: [{ role: 'user', content: 'say hello please' }] })
    .withResponse();
  assert.equal(data.choices[0].message.content, DEFAULT_REPLY_TEXT);
  assert.equal(data.choices[0].finish_reason, 'stop');
  assert.equal(data.model, 'gpt-test');
  assert.deepEqual(
    [data.usage?.prompt_tokens, data.usage?.completion_tokens, data.usage?.total_tokens],
    [3, countMockTokens(DEFAULT_REPLY_TEXT), 3 + countMockTokens(DEFAULT_REPLY_TEXT)],
  );
  assert.equal(request_id, 'req_mock_1');
  const raw = await postRaw({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(raw.headers.get('content-type'), 'application/json');
  validateChatCompletion(await raw.json());
});

test('stream with include_usage: role chunk, content chunks, finish chunk, usage chunk, [DONE]', async () => {
  const res = await postRaw({
    model: 'gpt-test',
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: 'user', content: 'one two' }],
  });
  assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
  const chunks = chunksOf(await res.text());
  type Choice = { delta: Record<string, unknown>; finish_reason: string | null };
  const choice = (c: Record<string, unknown>): Choice => (c.choices as Choice[])[0];
  assert.deepEqual(choice(chunks[0]).delta, { role: 'assistant', content: '', refusal: null });
  const content = chunks
    .slice(1, -2)
    .map((c) => choice(c).delta.content)
    .join('');
  assert.equal(content, DEFAULT_REPLY_TEXT);
  assert.equal(chunks.length, 1 + 3 + 1 + 1);
  assert.equal(choice(chunks.at(-2) ?? {}).finish_reason, 'stop');
  assert.deepEqual(chunks.at(-1)?.choices, []);
  assert.deepEqual((chunks.at(-1)?.usage as Record<string, number>).prompt_tokens, 2);
  for (const c of chunks.slice(0, -1)) assert.equal(c.usage, null);
  assert.equal(new Set(chunks.map((c) => c.id)).size, 1);
});

test('stream without include_usage has no usage chunk and no usage key', async () => {
  const res = await postRaw({ model: 'gpt-test', stream: true, messages: [{ role: 'user', content: 'hi' }] });
  const chunks = chunksOf(await res.text());
  assert.ok(chunks.every((c) => !('usage' in c)));
  assert.ok(chunks.every((c) => (c.choices as unknown[]).length === 1));
});

test('chunkCount controls the number of content deltas', async () => {
  mock.configure({ chunkCount: 7, replyText: 'abcdefghij' });
  const chunks = chunksOf(await (await postRaw({ model: 'm', stream: true, messages: [] })).text());
  assert.equal(chunks.length, 1 + 7 + 1);
});

test('tools: the SDK stream helper assembles a tool call from streamed fragments', async () => {
  const stream = client.chat.completions.stream({
    model: 'gpt-test',
    messages: [{ role: 'user', content: 'weather?' }],
    tools: [weatherTool],
  });
  const final = await stream.finalChatCompletion();
  const choice = final.choices[0];
  assert.equal(choice.finish_reason, 'tool_calls');
  const call = choice.message.tool_calls?.[0];
  assert.ok(call !== undefined && call.type === 'function');
  assert.equal(call.function.name, 'get_weather');
  assert.deepEqual(JSON.parse(call.function.arguments), { city: 'mock', days: 1 });
  assert.match(call.id, /^call_mock_/);
});

test('tools: raw stream and non-streaming body validate; a tool result as last message gets text', async () => {
  const messages = [{ role: 'user', content: 'weather?' }];
  const chunks = chunksOf(await (await postRaw({ model: 'm', stream: true, messages, tools: [weatherTool] })).text());
  const deltas = chunks.map(
    (c) => (c.choices as { delta: { tool_calls?: { function: { arguments?: string } }[] } }[])[0].delta,
  );
  const args = deltas.map((d) => d.tool_calls?.[0].function.arguments ?? '').join('');
  assert.deepEqual(JSON.parse(args), { city: 'mock', days: 1 });
  const body = await (await postRaw({ model: 'm', messages, tools: [weatherTool] })).json();
  validateChatCompletion(body);
  const after = await client.chat.completions.create({
    model: 'm',
    tools: [weatherTool],
    messages: [
      { role: 'user', content: 'weather?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
    ],
  });
  assert.equal(after.choices[0].message.content, DEFAULT_REPLY_TEXT);
  assert.equal(after.choices[0].finish_reason, 'stop');
});

test('stop and max_tokens end the reply early with the right finish_reason', async () => {
  const stopped = await client.chat.completions.create({
    model: 'm',
    stop: ['. '],
    messages: [{ role: 'user', content: 'x' }],
  });
  assert.equal(stopped.choices[0].message.content, 'Hello from the mock upstream');
  assert.equal(stopped.choices[0].finish_reason, 'stop');
  const cut = await client.chat.completions.create({
    model: 'm',
    max_tokens: 3,
    messages: [{ role: 'user', content: 'x' }],
  });
  assert.equal(cut.choices[0].message.content, 'Hello from the');
  assert.equal(cut.choices[0].finish_reason, 'length');
  assert.equal(cut.usage?.completion_tokens, 3);
});

test('cached tokens are reported inside prompt_tokens', async () => {
  mock.configure({ cacheReadTokens: 100 });
  const res = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'a b c' }] });
  assert.equal(res.usage?.prompt_tokens, 103);
  assert.equal(res.usage?.prompt_tokens_details?.cached_tokens, 100);
});

test('GET /v1/models lists the configured models', async () => {
  mock.configure({ models: ['gpt-a', 'gpt-b'] });
  const page = await client.models.list();
  assert.deepEqual(
    page.data.map((m) => m.id),
    ['gpt-a', 'gpt-b'],
  );
  validateModelList(await (await fetch(`${mock.url}/v1/models`)).json());
});

test('every request is recorded with method, path, headers, raw body and parsed JSON', async () => {
  await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'héllo' }] });
  const [req] = mock.requests;
  assert.equal(req.method, 'POST');
  assert.equal(req.path, '/v1/chat/completions');
  assert.equal(req.headers.authorization, 'Bearer x');
  assert.deepEqual(JSON.parse(req.body.toString('utf8')), req.json);
  assert.equal((req.json as { messages: { content: string }[] }).messages[0].content, 'héllo');
  await mock.waitFor(() => req.outcome === 'finished', 'the response to finish');
});

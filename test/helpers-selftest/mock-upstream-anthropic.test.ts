// Self-test: the mock upstream's Anthropic routes pass the official schemas and the official
// `@anthropic-ai/sdk` client, streaming and not, with tools.

import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { DEFAULT_REPLY_TEXT, countMockTokens, startMockUpstream } from '../helpers/mock-upstream.ts';
import type { MockUpstream } from '../helpers/mock-upstream.ts';
import { parseSseText, validateMessage, validateMessageStreamEvent } from '../helpers/schemas.ts';

let mock: MockUpstream;
let client: Anthropic;

const weatherTool = {
  name: 'get_weather',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};

before(async () => {
  mock = await startMockUpstream();
  client = new Anthropic({ baseURL: mock.url, apiKey: 'x', maxRetries: 0 });
});
after(() => mock.close());
beforeEach(() => mock.reset());

async function postRaw(body: unknown): Promise<Response> {
  return fetch(`${mock.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'x', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify(body),
  });
}

type Event = Record<string, unknown> & { type: string };

/** Parses a raw Anthropic stream: every event validated and its `event:` line equal to its `type`. */
function eventsOf(text: string): Event[] {
  return parseSseText(text).map((e) => {
    const data = JSON.parse(e.data) as Event;
    assert.equal(e.event, data.type);
    validateMessageStreamEvent(data);
    return data;
  });
}

test('non-streaming reply through the SDK: text, stop_reason, usage, request id; raw body validates', async () => {
  const { data, request_id } = await client.messages
    .create({ model: 'claude-test', max_tokens: 100, messages: [{ role: 'user', content: 'say hello please' }] })
    .withResponse();
  assert.deepEqual(data.content, [{ type: 'text', text: DEFAULT_REPLY_TEXT }]);
  assert.equal(data.stop_reason, 'end_turn');
  assert.equal(data.usage.input_tokens, 3);
  assert.equal(data.usage.output_tokens, countMockTokens(DEFAULT_REPLY_TEXT));
  assert.equal(request_id, 'req_mock_1');
  validateMessage(
    await (await postRaw({ model: 'c', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] })).json(),
  );
});

test('stream: event order, ping, cumulative usage; the SDK helper builds the same message', async () => {
  mock.configure({ cacheReadTokens: 5, cacheWriteTokens: 7 });
  const res = await postRaw({
    model: 'c',
    max_tokens: 100,
    stream: true,
    messages: [{ role: 'user', content: 'one two three' }],
  });
  assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
  assert.equal(res.headers.get('request-id'), 'req_mock_1');
  const events = eventsOf(await res.text());
  assert.deepEqual(
    events.map((e) => e.type),
    [
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ],
  );
  const start = events[0].message as { usage: Record<string, number> };
  assert.deepEqual([start.usage.input_tokens, start.usage.output_tokens], [3, 1]);
  const delta = events.at(-2) as unknown as { usage: Record<string, number>; delta: Record<string, unknown> };
  assert.deepEqual(delta.delta, { stop_reason: 'end_turn', stop_sequence: null });
  assert.equal(delta.usage.output_tokens, countMockTokens(DEFAULT_REPLY_TEXT));
  assert.deepEqual([delta.usage.cache_read_input_tokens, delta.usage.cache_creation_input_tokens], [5, 7]);

  const final = await client.messages
    .stream({ model: 'c', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] })
    .finalMessage();
  assert.deepEqual(final.content, [{ type: 'text', text: DEFAULT_REPLY_TEXT }]);
  assert.equal(final.usage.output_tokens, countMockTokens(DEFAULT_REPLY_TEXT));
});

test('tools: tool_use block streamed as input_json_delta fragments; SDK parses the input', async () => {
  const messages = [{ role: 'user' as const, content: 'weather?' }];
  const body = { model: 'c', max_tokens: 100, tools: [weatherTool], messages };
  const events = eventsOf(await (await postRaw({ ...body, stream: true })).text());
  const start = events.find((e) => e.type === 'content_block_start') as unknown as {
    content_block: Record<string, unknown>;
  };
  assert.deepEqual(
    { ...start.content_block, id: undefined },
    { type: 'tool_use', id: undefined, name: 'get_weather', input: {} },
  );
  const fragments = events
    .filter((e) => e.type === 'content_block_delta')
    .map((e) => (e.delta as { partial_json: string }).partial_json);
  assert.equal(fragments[0], '');
  assert.deepEqual(JSON.parse(fragments.join('')), { city: 'mock' });

  const final = await client.messages.stream(body).finalMessage();
  assert.equal(final.stop_reason, 'tool_use');
  const block = final.content[0];
  assert.ok(block.type === 'tool_use');
  assert.deepEqual(block.input, { city: 'mock' });
  const plain = await client.messages.create(body);
  validateMessage(plain);
});

test('tools: preamble text comes as its own block before the tool_use block', async () => {
  mock.configure({ toolPreambleText: 'Let me check.', toolArguments: { city: 'Paris' } });
  const final = await client.messages
    .stream({ model: 'c', max_tokens: 100, tools: [weatherTool], messages: [{ role: 'user', content: 'weather?' }] })
    .finalMessage();
  assert.deepEqual(
    final.content.map((b) => b.type),
    ['text', 'tool_use'],
  );
  assert.deepEqual(final.content[1].type === 'tool_use' ? final.content[1].input : undefined, { city: 'Paris' });
});

test('tools: a tool_result as last message is answered with text', async () => {
  const res = await client.messages.create({
    model: 'c',
    max_tokens: 100,
    tools: [weatherTool],
    messages: [
      { role: 'user', content: 'weather?' },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }] },
    ],
  });
  assert.equal(res.stop_reason, 'end_turn');
  assert.deepEqual(res.content, [{ type: 'text', text: DEFAULT_REPLY_TEXT }]);
});

test('stop_sequences and max_tokens: stop_reason, stop_sequence and truncated text', async () => {
  const stopped = await client.messages.create({
    model: 'c',
    max_tokens: 100,
    stop_sequences: ['upstream'],
    messages: [{ role: 'user', content: 'x' }],
  });
  assert.equal(stopped.stop_reason, 'stop_sequence');
  assert.equal(stopped.stop_sequence, 'upstream');
  assert.deepEqual(stopped.content, [{ type: 'text', text: 'Hello from the mock ' }]);
  const events = eventsOf(
    await (
      await postRaw({ model: 'c', max_tokens: 2, stream: true, messages: [{ role: 'user', content: 'x' }] })
    ).text(),
  );
  const delta = events.find((e) => e.type === 'message_delta') as unknown as {
    delta: { stop_reason: string };
    usage: { output_tokens: number };
  };
  assert.equal(delta.delta.stop_reason, 'max_tokens');
  assert.equal(delta.usage.output_tokens, 2);
});

test('count_tokens answers with the prompt word count', async () => {
  const res = await client.messages.countTokens({
    model: 'c',
    system: 'be brief',
    messages: [{ role: 'user', content: 'a b c' }],
  });
  assert.equal(res.input_tokens, 5);
  assert.equal(mock.requests[0].path, '/v1/messages/count_tokens');
});

test('requests are recorded with the SDK headers; unknown path is a 404 in the Anthropic shape', async () => {
  await client.messages.create({ model: 'c', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] });
  const [req] = mock.requests;
  // 0.x sends `x-api-key`; 1.x sends the apiKey as a Bearer token and a newer version date.
  assert.ok(req.headers['x-api-key'] === 'x' || req.headers.authorization === 'Bearer x');
  assert.match(String(req.headers['anthropic-version']), /^\d{4}-\d{2}-\d{2}$/);
  assert.equal((req.json as { max_tokens: number }).max_tokens, 5);
  const missing = await fetch(`${mock.url}/v1/messages/batches`, { method: 'POST', body: '{}' });
  assert.equal(missing.status, 404);
  assert.deepEqual(((await missing.json()) as { error: { type: string } }).error.type, 'not_found_error');
  const wrongMethod = await fetch(`${mock.url}/v1/messages`);
  assert.equal(wrongMethod.status, 405);
});

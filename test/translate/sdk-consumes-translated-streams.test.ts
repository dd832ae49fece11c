// The official SDK stream helpers read translated streams without complaint: a loopback server replays the
// translator's output, and MessageStream / ChatCompletionStream build their final objects from it.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { SseDecoder } from '../../src/core/sse.ts';
import { ChatStreamToMessagesStream, MessagesStreamToChatStream } from './hub-pairs.ts';
import { readFixture } from './golden.ts';

function translate(
  fixture: string,
  t: { push(ev: { event: string | undefined; data: string }): string; end(): string },
): string {
  const decoder = new SseDecoder();
  let out = '';
  for (const ev of decoder.push(readFixture(fixture))) out += t.push(ev);
  for (const ev of decoder.end()) out += t.push(ev);
  return out + t.end();
}

let body = '';
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.end(body);
  });
});
let base = '';

before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => server.close());

test('@anthropic-ai/sdk messages.stream().finalMessage() reads a translated OpenAI stream with text and two tools', async () => {
  body = translate(
    'openai-upstream/text-then-tools.sse',
    new ChatStreamToMessagesStream({ model: 'claude-sonnet-4-5', inputTokens: 137 }),
  );
  const client = new Anthropic({ apiKey: 'test-key', baseURL: base, maxRetries: 0 });
  const stream = client.messages.stream({
    model: 'claude-sonnet-4-5',
    max_tokens: 100,
    messages: [{ role: 'user', content: 'Hi' }],
  });
  let text = '';
  stream.on('text', (delta) => (text += delta));
  const msg = await stream.finalMessage();
  assert.equal(text, 'Let me check.');
  assert.deepEqual(
    msg.content.map((b) => (b.type === 'tool_use' ? [b.type, b.id, b.name, b.input] : [b.type])),
    [['text'], ['tool_use', 'call_a', 'get_weather', { city: 'Paris' }], ['tool_use', 'call_b', 'get_time', {}]],
  );
  assert.equal(msg.stop_reason, 'tool_use');
  assert.equal(msg.usage.input_tokens, 40);
  assert.equal(msg.usage.output_tokens, 33);
});

test('@anthropic-ai/sdk rejects with an APIError on a translated cut stream', async () => {
  body = translate(
    'openai-upstream/cut.sse',
    new ChatStreamToMessagesStream({ model: 'claude-sonnet-4-5', inputTokens: 5 }),
  );
  const client = new Anthropic({ apiKey: 'test-key', baseURL: base, maxRetries: 0 });
  const stream = client.messages.stream({
    model: 'claude-sonnet-4-5',
    max_tokens: 100,
    messages: [{ role: 'user', content: 'Hi' }],
  });
  await assert.rejects(
    stream.finalMessage(),
    (err: unknown) => err instanceof Anthropic.APIError && /ended before completion/.test(String(err.message)),
  );
});

test('openai chat.completions.stream().finalChatCompletion() reads a translated Anthropic stream with text and two tools', async () => {
  body = translate(
    'anthropic-upstream/text-then-two-tools.sse',
    new MessagesStreamToChatStream({ model: 'claude-sonnet-4-5', created: 1, includeUsage: true }),
  );
  const client = new OpenAI({ apiKey: 'test-key', baseURL: `${base}/v1`, maxRetries: 0 });
  const stream = client.chat.completions.stream({
    model: 'claude-sonnet-4-5',
    messages: [{ role: 'user', content: 'Hi' }],
    stream_options: { include_usage: true },
  });
  const done = await stream.finalChatCompletion();
  const choice = done.choices[0];
  assert.equal(choice.message.content, 'Let me check.');
  assert.deepEqual(
    choice.message.tool_calls?.map((c) => (c.type === 'function' ? [c.id, c.function.name, c.function.arguments] : [])),
    [
      ['toolu_01A', 'get_weather', '{"city": "Paris"}'],
      ['toolu_01B', 'get_time', '{}'],
    ],
  );
  assert.equal(choice.finish_reason, 'tool_calls');
  assert.equal(done.usage?.prompt_tokens, 132);
});

test('openai SDK throws on the error chunk of a translated Anthropic error event', async () => {
  body = translate(
    'anthropic-upstream/error-midstream.sse',
    new MessagesStreamToChatStream({ model: 'claude-sonnet-4-5', created: 1, includeUsage: false }),
  );
  const client = new OpenAI({ apiKey: 'test-key', baseURL: `${base}/v1`, maxRetries: 0 });
  const stream = client.chat.completions.stream({
    model: 'claude-sonnet-4-5',
    messages: [{ role: 'user', content: 'Hi' }],
  });
  await assert.rejects(
    stream.finalChatCompletion(),
    (err: unknown) => err instanceof OpenAI.APIError && /Overloaded/.test(err.message),
  );
});

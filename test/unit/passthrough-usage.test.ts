// What a pass-through stream bills when the upstream's own usage is missing: a stream cut early, or a
// server that never sends usage (it ignores stream_options) — the prompt estimate and one output token
// per delivered delta, never zero output for an answer the client received.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassthroughExchange } from '../../src/translate/passthrough-exchange.ts';
import type { Dialect } from '../../src/core/dialect.ts';

function relayOf(dialect: Dialect) {
  const body = { model: 'm', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'Hi' }] };
  const text = JSON.stringify(body);
  const exchange = new PassthroughExchange({
    dialect,
    raw: Buffer.from(text),
    text,
    parsed: body,
    facts: { model: 'm', stream: true, includeUsage: false } as never,
    upstreamModel: 'm',
    promptEstimate: () => 42,
  });
  return exchange.stream();
}

const chunk = (content: string): string =>
  `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"${content}"},"finish_reason":null}]}\n\n`;
const FINISH =
  'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n';

test('a whole OpenAI-style stream without usage bills the estimate and one token per chunk', () => {
  const relay = relayOf('openai');
  relay.push(Buffer.from(chunk('a') + chunk('b') + chunk('c') + FINISH + 'data: [DONE]\n\n'));
  relay.end();
  assert.ok(relay.finished);
  const u = relay.usage();
  assert.equal(u.inputTokens, 42);
  assert.equal(u.outputTokens, 4, 'three content chunks and the finish chunk');
});

test('a whole stream with the upstream usage bills that usage alone', () => {
  const relay = relayOf('openai');
  const usage =
    'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":2,"total_tokens":9}}\n\n';
  relay.push(Buffer.from(chunk('a') + chunk('b') + chunk('c') + FINISH + usage + 'data: [DONE]\n\n'));
  relay.end();
  assert.deepEqual(relay.usage(), { inputTokens: 7, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 });
});

test('a whole Anthropic-style stream without message_delta usage bills the deltas delivered', () => {
  const relay = relayOf('anthropic');
  const delta = (t: string): string =>
    `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${t}"}}\n\n`;
  relay.push(
    Buffer.from(
      `event: message_start\ndata: {"type":"message_start","message":{"id":"x","type":"message","role":"assistant","model":"m","content":[]}}\n\n${delta('a')}${delta('b')}event: message_stop\ndata: {"type":"message_stop"}\n\n`,
    ),
  );
  relay.end();
  assert.ok(relay.finished);
  const u = relay.usage();
  assert.equal(u.inputTokens, 42);
  assert.equal(u.outputTokens, 2);
});

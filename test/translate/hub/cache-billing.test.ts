// Prompt-cache tokens are read from the upstream and billed at their own prices on both translated
// routes, whole and streamed; refused parameters leave pass-through bodies too.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { costNanos } from '../../../src/core/budget.ts';
import { PassthroughExchange } from '../../../src/translate/passthrough-exchange.ts';
import { ChatToAnthropicExchange, MessagesToOpenAIExchange } from '../hub-pairs.ts';

const PRICE = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
const facts = { model: 'claude-x', stream: false, maxTokens: null, includeUsage: false };
const estimate = (): number => 1;

test('chat client, Anthropic-style upstream: cache read and write tokens are billed at their prices', () => {
  const ex = new ChatToAnthropicExchange({
    parsed: { model: 'claude-x', messages: [{ role: 'user', content: 'hi' }] },
    facts,
    upstreamModel: 'c',
    promptEstimate: estimate,
  });
  const reply = {
    type: 'message',
    role: 'assistant',
    content: [{ type: 'text', text: 'ok' }],
    stop_reason: 'end_turn',
    usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 1000, cache_creation_input_tokens: 200 },
  };
  const { body, usage } = ex.json(JSON.stringify(reply));
  assert.deepEqual(usage, { inputTokens: 10, outputTokens: 5, cacheReadTokens: 1000, cacheWriteTokens: 200 });
  assert.equal(costNanos(usage, PRICE), 10 * 3000 + 5 * 15000 + 1000 * 300 + 200 * 3750);
  assert.deepEqual(JSON.parse(body).usage.prompt_tokens_details, { cached_tokens: 1000 });
});

test('messages client, OpenAI-style upstream: cached and cache-written prompt tokens come apart, whole and streamed', () => {
  const parsed = { model: 'claude-x', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] };
  const usage = {
    prompt_tokens: 1300,
    completion_tokens: 5,
    total_tokens: 1305,
    prompt_tokens_details: { cached_tokens: 1000, cache_write_tokens: 200 },
  };
  const want = { inputTokens: 100, outputTokens: 5, cacheReadTokens: 1000, cacheWriteTokens: 200 };
  const ex = new MessagesToOpenAIExchange({ parsed, facts, upstreamModel: 'g', promptEstimate: estimate });
  const whole = ex.json(
    JSON.stringify({
      choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
      usage,
    }),
  );
  assert.deepEqual(whole.usage, want);
  const msg = JSON.parse(whole.body);
  assert.equal(msg.usage.cache_read_input_tokens, 1000);
  assert.equal(msg.usage.cache_creation_input_tokens, 200);

  const relay = new MessagesToOpenAIExchange({
    parsed: { ...parsed, stream: true },
    facts,
    upstreamModel: 'g',
    promptEstimate: estimate,
  }).stream();
  const sse =
    [
      'data: {"choices":[{"index":0,"delta":{"content":"ok"}}]}',
      'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}',
      `data: ${JSON.stringify({ choices: [], usage })}`,
      'data: [DONE]',
    ].join('\n\n') + '\n\n';
  const out = String(relay.push(Buffer.from(sse))) + String(relay.end());
  assert.deepEqual(relay.usage(), want);
  assert.match(out, /"cache_creation_input_tokens":200,"cache_read_input_tokens":1000/);
});

test('pass-through: a parameter the deployment refuses is left out of the forwarded body and named', () => {
  const body = {
    model: 'claude-x',
    max_tokens: 10,
    temperature: 0.2,
    top_k: 3,
    messages: [{ role: 'user', content: 'hi' }],
  };
  const text = JSON.stringify(body);
  const ex = new PassthroughExchange({
    dialect: 'anthropic',
    raw: Buffer.from(text),
    text,
    parsed: body,
    facts,
    upstreamModel: 'claude-up',
    promptEstimate: estimate,
    refusedParams: ['temperature', 'top_p'],
  });
  const sent = JSON.parse(String(ex.upstreamBody()));
  assert.equal(sent.temperature, undefined);
  assert.equal(sent.top_k, 3);
  assert.equal(sent.model, 'claude-up');
  assert.equal(ex.responseHeaders['x-modelgate-adjusted'], "temperature left out: the deployment's model refuses it");
  const plain = new PassthroughExchange({
    dialect: 'anthropic',
    raw: Buffer.from(text),
    text,
    parsed: body,
    facts,
    upstreamModel: 'claude-up',
    promptEstimate: estimate,
    refusedParams: ['top_p'],
  });
  assert.ok(Buffer.isBuffer(plain.upstreamBody()), 'a body that sets none of them keeps its bytes');
});

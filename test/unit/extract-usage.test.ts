// The bill of a non-streamed pass-through answer is its top-level usage, found without parsing the
// content — and never a `usage` key the model wrote into a tool's input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractUsage } from '../../src/dialects/json-text.ts';

const OPENAI = {
  id: 'c',
  object: 'chat.completion',
  model: 'm',
  choices: [
    { index: 0, message: { role: 'assistant', content: 'Hi "usage": {"prompt_tokens": 999}' }, finish_reason: 'stop' },
  ],
  usage: { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9, prompt_tokens_details: { cached_tokens: 3 } },
  service_tier: 'default',
  system_fingerprint: null,
};

test('the usage the official APIs write near the end is read, compact or spaced', () => {
  const want = { inputTokens: 4, outputTokens: 2, cacheReadTokens: 3, cacheWriteTokens: 0 };
  assert.deepEqual(extractUsage(JSON.stringify(OPENAI), 'openai'), want);
  assert.deepEqual(extractUsage(JSON.stringify(OPENAI, null, 2), 'openai'), want);
  const anthropic = {
    id: 'm',
    type: 'message',
    content: [{ type: 'text', text: 'x' }],
    usage: { input_tokens: 5, output_tokens: 8, cache_read_input_tokens: 1 },
  };
  assert.deepEqual(extractUsage(JSON.stringify(anthropic), 'anthropic'), {
    inputTokens: 5,
    outputTokens: 8,
    cacheReadTokens: 1,
    cacheWriteTokens: 0,
  });
});

test('usage written before the content is still the bill, not a usage key inside a tool input', () => {
  const body = {
    id: 'm',
    type: 'message',
    usage: { input_tokens: 5000, output_tokens: 800 },
    content: [
      {
        type: 'tool_use',
        id: 't',
        name: 'report',
        input: { usage: { input_tokens: 0, output_tokens: 0 }, note: ['a', { b: 1 }] },
      },
    ],
    stop_reason: 'tool_use',
  };
  assert.deepEqual(extractUsage(JSON.stringify(body), 'anthropic'), {
    inputTokens: 5000,
    outputTokens: 800,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
  });
  // No top-level usage at all: nothing to bill from, whatever the content holds.
  const none = {
    id: 'm',
    type: 'message',
    content: [{ type: 'tool_use', id: 't', name: 'r', input: { usage: { input_tokens: 1 } } }],
  };
  assert.equal(extractUsage(JSON.stringify(none), 'anthropic'), null);
  assert.equal(extractUsage('{"usage": 5}', 'openai'), null);
  assert.equal(extractUsage('not json "usage": {"prompt_tokens": 1}', 'openai'), null);
});

test('OpenAI-style cache writes (OpenRouter) are read on pass-through as on the translated route', () => {
  const body = {
    id: 'c',
    choices: [],
    usage: {
      prompt_tokens: 8000,
      completion_tokens: 10,
      prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 6000 },
    },
  };
  assert.deepEqual(extractUsage(JSON.stringify(body), 'openai'), {
    inputTokens: 2000,
    outputTokens: 10,
    cacheReadTokens: 0,
    cacheWriteTokens: 6000,
  });
});

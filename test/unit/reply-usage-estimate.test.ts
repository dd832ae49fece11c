// A whole answer that arrives without usage is billed the prompt estimate and its output at about four
// characters a token, on every route — never nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassthroughExchange } from '../../src/translate/passthrough-exchange.ts';
import { ChatToAnthropicExchange, MessagesToOpenAIExchange } from '../translate/hub-pairs.ts';
import { estimatedReplyUsage } from '../../src/dialects/reply-usage.ts';

const estimate = (): number => 42;

test('the output counted: text, reasoning, refusal and tool calls (OpenAI); text, thinking and tool input (Anthropic)', () => {
  const openai = {
    choices: [
      {
        message: {
          role: 'assistant',
          content: 'x'.repeat(40),
          reasoning_content: 'r'.repeat(20),
          tool_calls: [{ function: { name: 'ab', arguments: '{"c":1}' } }],
        },
      },
    ],
  };
  assert.deepEqual(estimatedReplyUsage(openai, 'openai', estimate), {
    inputTokens: 42,
    outputTokens: Math.ceil(69 / 4),
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
  });
  const anthropic = {
    content: [
      { type: 'text', text: 'x'.repeat(40) },
      { type: 'thinking', thinking: 't'.repeat(8) },
      { type: 'tool_use', name: 'ab', input: { c: 1 } },
    ],
  };
  assert.equal(estimatedReplyUsage(anthropic, 'anthropic', estimate).outputTokens, Math.ceil((40 + 8 + 2 + 7) / 4));
  assert.equal(estimatedReplyUsage({ weird: true }, 'openai', estimate).outputTokens, 0);
});

test('every exchange bills an answer without usage by the estimate', () => {
  const chatReply = JSON.stringify({
    id: 'c',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content: 'y'.repeat(400) }, finish_reason: 'stop' }],
  });
  const messageReply = JSON.stringify({
    id: 'm',
    type: 'message',
    role: 'assistant',
    model: 'm',
    content: [{ type: 'text', text: 'y'.repeat(400) }],
    stop_reason: 'end_turn',
  });
  const chatBody = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };
  const msgBody = { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] };
  const facts = { model: 'm', stream: false, includeUsage: false } as never;
  const pass = new PassthroughExchange({
    dialect: 'openai',
    raw: Buffer.from(JSON.stringify(chatBody)),
    text: JSON.stringify(chatBody),
    parsed: chatBody,
    facts,
    upstreamModel: 'm',
    promptEstimate: estimate,
  });
  const toAnthropic = new ChatToAnthropicExchange({
    parsed: chatBody,
    facts,
    upstreamModel: 'c',
    defaultMaxTokens: 64,
    promptEstimate: estimate,
  });
  const toOpenAi = new MessagesToOpenAIExchange({
    parsed: msgBody,
    facts,
    upstreamModel: 'g',
    promptEstimate: estimate,
  });
  for (const [label, usage] of [
    ['pass-through', pass.json(chatReply).usage],
    ['chat → messages upstream', toAnthropic.json(messageReply).usage],
    ['messages → chat upstream', toOpenAi.json(chatReply).usage],
  ] as const) {
    assert.deepEqual(usage, { inputTokens: 42, outputTokens: 100, cacheReadTokens: 0, cacheWriteTokens: 0 }, label);
  }
});

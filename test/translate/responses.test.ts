// Non-streaming replies both ways: Message → chat.completion and chat.completion → Message, validated by schema.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  chatResponseToMessages,
  messagesResponseToChat,
  RAW_ARGUMENTS_KEY,
  STOP_REASON_TO_FINISH_REASON,
  FINISH_REASON_TO_STOP_REASON,
} from './hub-pairs.ts';
import type { ChatCompletion, Message } from './hub-pairs.ts';
import { createValidator, validateChatCompletion, validateMessage } from '../helpers/schemas.ts';

const validateMessageStrict = createValidator('anthropic', 'Message', { requireNullable: true });

function message(
  content: unknown[],
  stop: string,
  usage: Record<string, number> = { input_tokens: 10, output_tokens: 5 },
): Message {
  return {
    id: 'msg_up',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5-20250929',
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage,
  } as Message;
}

function completion(msg: Record<string, unknown>, finish: string, extra: Record<string, unknown> = {}): ChatCompletion {
  return {
    id: 'chatcmpl-up',
    object: 'chat.completion',
    created: 1,
    model: 'anthropic/claude-sonnet-4.5',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', refusal: null, ...msg },
        logprobs: null,
        finish_reason: finish,
        ...extra,
      },
    ],
    usage: {
      prompt_tokens: 120,
      completion_tokens: 7,
      total_tokens: 127,
      prompt_tokens_details: { cached_tokens: 100 },
    },
  } as ChatCompletion;
}

test('Message → chat: text, tool calls with ids and arguments, usage with cache tokens, client model and created', () => {
  const out = messagesResponseToChat(
    message(
      [
        { type: 'text', text: 'Let me check.' },
        { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
        { type: 'tool_use', id: 'toolu_2', name: 'get_time', input: {} },
      ],
      'tool_use',
      { input_tokens: 25, output_tokens: 42, cache_read_input_tokens: 100, cache_creation_input_tokens: 7 },
    ),
    { model: 'claude-sonnet-4-5', created: 1700000000 },
  );
  validateChatCompletion(out);
  assert.match(out.id, /^chatcmpl-[A-Za-z0-9]{29}$/);
  assert.equal(out.model, 'claude-sonnet-4-5');
  assert.equal(out.created, 1700000000);
  assert.deepEqual(out.choices[0].message, {
    role: 'assistant',
    content: 'Let me check.',
    refusal: null,
    tool_calls: [
      { id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
      { id: 'toolu_2', type: 'function', function: { name: 'get_time', arguments: '{}' } },
    ],
  });
  assert.equal(out.choices[0].finish_reason, 'tool_calls');
  assert.deepEqual(out.usage, {
    prompt_tokens: 132,
    completion_tokens: 42,
    total_tokens: 174,
    prompt_tokens_details: { cached_tokens: 100 },
  });
});

test('Message → chat in JSON mode: the forced tool input is the content, finish_reason stop', () => {
  const msg = message([{ type: 'tool_use', id: 'toolu_j', name: 'json_response', input: { name: 'Ada' } }], 'tool_use');
  const out = messagesResponseToChat(msg, {
    model: 'm',
    created: 1,
    jsonMode: { toolName: 'json_response', wrapKey: null },
  });
  validateChatCompletion(out);
  assert.deepEqual(JSON.parse(out.choices[0].message.content ?? ''), { name: 'Ada' });
  assert.equal(out.choices[0].message.tool_calls, undefined);
  assert.equal(out.choices[0].finish_reason, 'stop');
  const wrapped = messagesResponseToChat(
    message([{ type: 'tool_use', id: 't', name: 'json_response', input: { value: ['a', 'b'] } }], 'tool_use'),
    {
      model: 'm',
      created: 1,
      jsonMode: { toolName: 'json_response', wrapKey: 'value' },
    },
  );
  assert.equal(wrapped.choices[0].message.content, '["a","b"]');
});

test('Message → chat: thinking as reasoning_content + reasoning_signature, and every block whole in thinking_blocks', () => {
  const blocks = [
    { type: 'thinking', thinking: 'hmm', signature: 'sigA' },
    { type: 'redacted_thinking', data: 'xx' },
    { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} },
    { type: 'thinking', thinking: 'then', signature: 'sigB' },
    { type: 'text', text: '4' },
  ];
  const out = messagesResponseToChat(message(blocks as Message['content'], 'end_turn'), { model: 'm', created: 1 });
  validateChatCompletion(out);
  const m = out.choices[0].message;
  assert.equal(m.content, '4');
  assert.equal(m.reasoning_content, 'hmmthen');
  assert.equal(m.reasoning_signature, 'sigB');
  // Each block keeps its own signature, and redacted thinking is no longer lost.
  assert.deepEqual(m.thinking_blocks, [blocks[0], blocks[1], blocks[3]]);
});

test('stop reason tables follow STREAMING.md §4', () => {
  assert.deepEqual(STOP_REASON_TO_FINISH_REASON, {
    end_turn: 'stop',
    stop_sequence: 'stop',
    max_tokens: 'length',
    model_context_window_exceeded: 'length',
    tool_use: 'tool_calls',
    refusal: 'content_filter',
    pause_turn: 'stop',
  });
  assert.deepEqual(FINISH_REASON_TO_STOP_REASON, {
    stop: 'end_turn',
    length: 'max_tokens',
    tool_calls: 'tool_use',
    function_call: 'tool_use',
    content_filter: 'refusal',
  });
  for (const [stop, finish] of Object.entries(STOP_REASON_TO_FINISH_REASON)) {
    assert.equal(
      messagesResponseToChat(message([{ type: 'text', text: 'x' }], stop), { model: 'm', created: 1 }).choices[0]
        .finish_reason,
      finish,
    );
  }
});

test('chat → Message: text, tool_use blocks with parsed input, usage split into uncached and cache read', () => {
  const out = chatResponseToMessages(
    completion(
      {
        content: 'Let me check.',
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '' } },
        ],
      },
      'tool_calls',
    ),
    { model: 'claude-sonnet-4-5' },
  );
  validateMessage(out);
  validateMessageStrict(out);
  assert.match(out.id, /^msg_/);
  assert.equal(out.model, 'claude-sonnet-4-5');
  assert.deepEqual(out.content, [
    { type: 'text', text: 'Let me check.', citations: null },
    { type: 'tool_use', id: 'call_a', name: 'get_weather', input: { city: 'Paris' }, caller: { type: 'direct' } },
    { type: 'tool_use', id: 'call_b', name: 'get_time', input: {}, caller: { type: 'direct' } },
  ]);
  assert.equal(out.stop_reason, 'tool_use');
  assert.equal(out.usage.input_tokens, 20);
  assert.equal(out.usage.cache_read_input_tokens, 100);
  assert.equal(out.usage.output_tokens, 7);
});

test('chat → Message: stop sequence detected from vLLM stop_reason; length → max_tokens; refusal → refusal', () => {
  const seq = chatResponseToMessages(completion({ content: 'Answer' }, 'stop', { stop_reason: '###' }), {
    model: 'm',
    stopSequences: ['###'],
  });
  assert.equal(seq.stop_reason, 'stop_sequence');
  assert.equal(seq.stop_sequence, '###');
  const plain = chatResponseToMessages(completion({ content: 'Answer' }, 'stop'), {
    model: 'm',
    stopSequences: ['###'],
  });
  assert.equal(plain.stop_reason, 'end_turn');
  assert.equal(plain.stop_sequence, null);
  assert.equal(
    chatResponseToMessages(completion({ content: 'x' }, 'length'), { model: 'm' }).stop_reason,
    'max_tokens',
  );
  const refused = chatResponseToMessages(completion({ content: null, refusal: 'I cannot help.' }, 'stop'), {
    model: 'm',
  });
  assert.equal(refused.stop_reason, 'refusal');
  assert.deepEqual(refused.content, [{ type: 'text', text: 'I cannot help.', citations: null }]);
});

test('chat → Message: reasoning becomes a leading thinking block; bad tool arguments are kept, not dropped', () => {
  const out = chatResponseToMessages(
    completion(
      {
        content: 'x',
        reasoning_content: 'hmm',
        tool_calls: [{ id: 'functions.f:0', type: 'function', function: { name: 'f', arguments: '{oops' } }],
      },
      'stop',
    ),
    { model: 'm' },
  );
  validateMessage(out);
  assert.deepEqual(out.content[0], { type: 'thinking', thinking: 'hmm', signature: '' });
  assert.deepEqual(out.content[2], {
    type: 'tool_use',
    id: 'functions_f_0_465b9878',
    name: 'f',
    input: { [RAW_ARGUMENTS_KEY]: '{oops' },
    caller: { type: 'direct' },
  });
  assert.equal(out.stop_reason, 'tool_use', 'tool calls reported with finish_reason stop still end in tool_use');
});

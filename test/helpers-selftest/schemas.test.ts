// Self-test of the spec validators: they accept the documented wire examples and reject broken bodies.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  createValidator,
  parseSseText,
  validateAnthropicError,
  validateChatCompletion,
  validateChatCompletionChunk,
  validateMessage,
  validateMessageStreamEvent,
  validateModelList,
  validateOpenAIError,
} from '../helpers/schemas.ts';

const chunk = {
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1723031665,
  model: 'gpt-4o',
  choices: [
    { index: 0, delta: { role: 'assistant', content: '', refusal: null }, logprobs: null, finish_reason: null },
  ],
  usage: null,
};

const messageStart = {
  type: 'message_start',
  message: {
    id: 'msg_01',
    type: 'message',
    role: 'assistant',
    model: 'claude-x',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 25, output_tokens: 1 },
  },
};

test('OpenAI chunk examples from STREAMING.md §1.2 pass, nullable finish_reason and usage included', () => {
  validateChatCompletionChunk(chunk);
  validateChatCompletionChunk({
    ...chunk,
    choices: [],
    usage: { prompt_tokens: 17, completion_tokens: 10, total_tokens: 27 },
  });
  validateChatCompletionChunk({ ...chunk, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }] });
});

test('a chunk without choices, or with an unknown finish_reason, is rejected with ajv errors listed', () => {
  const { choices: _dropped, ...noChoices } = chunk;
  assert.throws(() => validateChatCompletionChunk(noChoices), /must have required property 'choices'/);
  const badFinish = { ...chunk, choices: [{ index: 0, delta: {}, finish_reason: 'done' }] };
  assert.throws(
    () => validateChatCompletionChunk(badFinish),
    /\/choices\/0\/finish_reason must be equal to one of the allowed values/,
  );
});

test('chat completion: a tool call without arguments is rejected through the discriminated union', () => {
  const body = {
    id: 'x',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [
      {
        index: 0,
        logprobs: null,
        finish_reason: 'tool_calls',
        message: {
          role: 'assistant',
          content: null,
          refusal: null,
          tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
        },
      },
    ],
  };
  validateChatCompletion(body);
  const broken = structuredClone(body);
  delete (broken.choices[0].message.tool_calls[0].function as { arguments?: string }).arguments;
  assert.throws(
    () => validateChatCompletion(broken),
    /tool_calls\/0\/function must have required property 'arguments'/,
  );
});

test('OpenAI error and model list bodies', () => {
  validateOpenAIError({ error: { message: 'm', type: 'server_error', param: null, code: null } });
  assert.throws(
    () => validateOpenAIError({ error: { type: 'server_error', param: null, code: null } }),
    /required property 'message'/,
  );
  // Lenient by default: nullable `param`/`code` may be missing; the strict reading demands them.
  validateOpenAIError({ error: { message: 'm', type: 'server_error' } });
  const strict = createValidator('openai', 'ErrorResponse', { requireNullable: true });
  assert.throws(() => strict({ error: { message: 'm', type: 'server_error' } }), /required property 'param'/);
  validateModelList({
    object: 'list',
    data: [{ id: 'gpt-4o', object: 'model', created: 1715367049, owned_by: 'system' }],
  });
  assert.throws(() => validateModelList({ object: 'list', data: [{ id: 'gpt-4o', object: 'model' }] }), /owned_by/);
});

test('Anthropic stream events from STREAMING.md §2.1 pass in the default lenient mode', () => {
  const events = [
    messageStart,
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    { type: 'ping' },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Let me check.' } },
    { type: 'content_block_stop', index: 0 },
    {
      type: 'content_block_start',
      index: 1,
      content_block: { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: {} },
    },
    { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '' } },
    { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 42 } },
    { type: 'message_stop' },
  ];
  for (const event of events) validateMessageStreamEvent(event);
});

test('strict mode demands the nullable-but-required Stainless fields; lenient does not', () => {
  const strict = createValidator('anthropic', 'MessageStreamEvent', { requireNullable: true });
  assert.throws(() => strict(messageStart), /must have required property 'stop_details'/);
  validateMessageStreamEvent(messageStart);
});

test('message_start without message, or an unknown event type, is rejected', () => {
  assert.throws(() => validateMessageStreamEvent({ type: 'message_start' }), /must have required property 'message'/);
  assert.throws(
    () => validateMessageStreamEvent({ type: 'message_begin' }),
    /\/type must be equal to one of the allowed values/,
  );
  assert.throws(
    () => validateMessageStreamEvent({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta' } }),
    /must have required property 'text'/,
  );
});

test('Anthropic message and error bodies', () => {
  validateMessage({
    id: 'msg',
    type: 'message',
    role: 'assistant',
    model: 'c',
    content: [{ type: 'text', text: 'hi' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 3, output_tokens: 1 },
  });
  assert.throws(() => validateMessage({ id: 'msg', type: 'message', role: 'user', content: [] }), /role|model/);
  validateAnthropicError({
    type: 'error',
    error: { type: 'overloaded_error', message: 'Overloaded' },
    request_id: 'req_1',
  });
  // Not in the official union (STREAMING.md §5 caveat 4).
  assert.throws(
    () => validateAnthropicError({ type: 'error', error: { type: 'request_too_large', message: 'big' } }),
    /allowed values/,
  );
});

test('the error message carries the value, truncated when long', () => {
  const long = { ...chunk, id: 'x'.repeat(5000), choices: undefined };
  assert.throws(
    () => validateChatCompletionChunk(long),
    (err: Error) => {
      assert.match(err.message, /^openai CreateChatCompletionStreamResponse: value does not match the schema/);
      assert.match(err.message, /value: \{"id":"xxxx/);
      assert.match(err.message, /… \(\d+ chars\)$/);
      return true;
    },
  );
});

test('an unknown schema name fails clearly', () => {
  assert.throws(() => createValidator('openai', 'NoSuchSchema')({}), /no schema NoSuchSchema in the openai document/);
});

test('parseSseText frames events as the SDKs do (CRLF, comments, multi-line data)', () => {
  const text =
    ': keep-alive\r\n\r\nevent: ping\r\ndata: {"type":"ping"}\r\n\r\ndata: a\ndata: b\n\ndata: [DONE]\n\ndata: partial';
  assert.deepEqual(parseSseText(text), [
    { event: 'ping', data: '{"type":"ping"}' },
    { event: undefined, data: 'a\nb' },
    { event: undefined, data: '[DONE]' },
  ]);
});

// The request schemas per dialect: a literal body each dialect accepts, and refusals that name the
// parameter the way that API does (brackets for OpenAI and Gemini, dots for Anthropic).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GatewayError } from '../../src/core/errors.ts';
import { validateChatRequest } from '../../src/dialects/openai-chat/validate.ts';
import { validateMessagesRequest } from '../../src/dialects/anthropic-messages/validate.ts';
import { checkItem, validateResponsesRequest } from '../../src/dialects/openai-responses/validate.ts';
import { embeddingInputs, validateEmbeddingsRequest } from '../../src/dialects/embeddings/validate.ts';
import { validateGeminiRequest } from '../../src/dialects/gemini/validate.ts';

function refusal(f: () => unknown): { param: string | null; message: string } {
  try {
    f();
  } catch (err) {
    assert.ok(err instanceof GatewayError);
    assert.equal(err.status, 400);
    return { param: err.param, message: err.message };
  }
  assert.fail('accepted');
}

test('chat: facts of a valid body; refusals name the parameter', () => {
  const facts = validateChatRequest({
    model: 'm',
    messages: [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: null, tool_calls: [] },
    ],
    stream: true,
    stream_options: { include_usage: true },
    max_tokens: 1e308,
    extra_field: { anything: true },
  });
  assert.deepEqual(facts, { model: 'm', stream: true, maxTokens: 1e308, includeUsage: true });
  assert.deepEqual(
    refusal(() => validateChatRequest({ model: 'm', messages: [{ role: 'user', content: 'a' }, { role: 'robot' }] })),
    { param: 'messages[1].role', message: 'messages[1].role must be one of system, developer, user, assistant, tool.' },
  );
  assert.deepEqual(
    refusal(() => validateChatRequest({ model: 'm', messages: [{ role: 'user' }] })),
    {
      param: 'messages[0].content',
      message: 'messages[0].content is required for role user.',
    },
  );
  assert.deepEqual(
    refusal(() => validateChatRequest({ messages: [] })),
    {
      param: 'model',
      message: '`model` is required and must be a non-empty string.',
    },
  );
  assert.equal(
    refusal(() => validateChatRequest({ model: 'm', messages: [{ role: 'user', content: 'a' }], top_p: 2 })).param,
    'top_p',
  );
  assert.equal(
    refusal(() => validateChatRequest({ model: 'm', messages: [{ role: 'user', content: 'a' }], response_format: {} }))
      .param,
    'response_format',
  );
  assert.deepEqual(
    refusal(() => validateChatRequest([])),
    { param: '', message: 'The request body must be a JSON object.' },
  );
});

test('messages: alternation, system items and max_tokens in Anthropic’s words', () => {
  const ok = validateMessagesRequest({
    model: 'c',
    max_tokens: 10,
    messages: [
      { role: 'user', content: 'a' },
      { role: 'system', content: [{ type: 'text', text: 'note' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'b' }] },
    ],
  });
  assert.deepEqual(ok, { model: 'c', stream: false, maxTokens: 10, includeUsage: false });
  assert.deepEqual(
    refusal(() => validateMessagesRequest({ model: 'c', messages: [{ role: 'user', content: 'a' }] })),
    {
      param: 'max_tokens',
      message: 'max_tokens: Field required.',
    },
  );
  assert.deepEqual(
    refusal(() =>
      validateMessagesRequest({
        model: 'c',
        max_tokens: 5,
        messages: [
          { role: 'user', content: 'a' },
          { role: 'user', content: 'b' },
        ],
      }),
    ),
    {
      param: 'messages.1.role',
      message:
        'messages.1.role: roles must alternate between "user" and "assistant"; found two "user" messages in a row.',
    },
  );
  assert.equal(
    refusal(() => validateMessagesRequest({ model: 'c', max_tokens: 0, messages: [] })).message,
    'max_tokens: must be a positive integer.',
  );
});

test('responses: items checked one by one, input required unless a previous response continues', () => {
  assert.equal(
    validateResponsesRequest({ model: 'm', previous_response_id: 'resp_1' }).responses.previousResponseId,
    'resp_1',
  );
  assert.deepEqual(
    refusal(() => validateResponsesRequest({ model: 'm' })),
    {
      param: 'input',
      message: '`input` is required: a string or an array of input items.',
    },
  );
  assert.deepEqual(
    refusal(() => validateResponsesRequest({ model: 'm', input: [{ role: 'user', content: 'a' }, { type: 'bogus' }] })),
    { param: 'input[1].type', message: 'input[1].type `bogus` is not an input item type.' },
  );
  assert.deepEqual(
    refusal(() => validateResponsesRequest({ model: 'm', input: 'x', metadata: { a: 1 } })),
    {
      param: 'metadata.a',
      message: 'metadata.a must be a string.',
    },
  );
  assert.deepEqual(
    refusal(() => checkItem({ type: 'function_call', name: 'f' }, 'items[2]')),
    {
      param: 'items[2].call_id',
      message: 'items[2].call_id is required.',
    },
  );
});

test('embeddings and Gemini: their own shapes and words', () => {
  assert.deepEqual(embeddingInputs([[1, 2], [3]]), { kind: 'tokens', tokens: [[1, 2], [3]] });
  assert.equal(validateEmbeddingsRequest({ model: 'e', input: ['a', 'b'] }).model, 'e');
  assert.equal(refusal(() => validateEmbeddingsRequest({ model: 'e', input: ['a', 1] })).param, 'input');
  assert.equal(
    refusal(() => validateEmbeddingsRequest({ model: 'e', input: 'a', encoding_format: 'hex' })).param,
    'encoding_format',
  );
  const call = { model: 'g', stream: false };
  assert.equal(
    validateGeminiRequest(
      { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: { maxOutputTokens: 7 } },
      call,
    ).maxTokens,
    7,
  );
  assert.deepEqual(
    refusal(() => validateGeminiRequest({ contents: [{ role: 'bot', parts: [{}] }] }, call)),
    {
      param: 'contents[0].role',
      message: 'Please use a valid role: user, model. (contents[0].role)',
    },
  );
  assert.deepEqual(
    refusal(() => validateGeminiRequest({ contents: [{ parts: [] }] }, call)),
    {
      param: 'contents[0].parts',
      message: '* contents[0].parts: contents.parts must not be empty.',
    },
  );
});

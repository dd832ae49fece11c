// What a stage sees of a request: each dialect's texts in order, replaced in place in the parsed body,
// and the hub form decoded on demand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Dialect } from '../../src/core/dialect.ts';
import { DIALECT_TEXTS } from '../../src/stages/dialect-texts.ts';
import { RequestTexts } from '../../src/stages/texts-context.ts';

function ctxOf(dialect: Dialect, body: Record<string, unknown>): RequestTexts {
  return new RequestTexts({
    dialect,
    body,
    collect: DIALECT_TEXTS[dialect].request,
    counter: { count() {} },
    stream: false,
  });
}

test('chat: message contents as strings and text parts; images left alone', () => {
  const body = {
    model: 'm',
    messages: [
      { role: 'system', content: 'sys' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'one' },
          { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
        ],
      },
      { role: 'tool', tool_call_id: 't', content: 'result' },
    ],
  };
  const ctx = ctxOf('openai', body);
  assert.deepEqual(ctx.texts, ['sys', 'one', 'result']);
  ctx.setText(1, 'ONE');
  assert.equal(ctx.changed, true);
  assert.deepEqual(body.messages[1].content, [
    { type: 'text', text: 'ONE' },
    { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
  ]);
  assert.equal(ctx.hub().messages.length, 2);
  assert.deepEqual(ctx.hub().system, [{ type: 'text', text: 'sys' }]);
});

test('messages: system blocks, text blocks and tool results', () => {
  const body = {
    model: 'm',
    max_tokens: 5,
    system: [{ type: 'text', text: 'sys' }],
    messages: [
      { role: 'user', content: 'hi' },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'u', content: [{ type: 'text', text: 'out' }] },
          { type: 'text', text: 'more' },
        ],
      },
    ],
  };
  assert.deepEqual(ctxOf('anthropic', body).texts, ['sys', 'hi', 'more', 'out']);
});

test('Responses: instructions, string input, message items and function outputs', () => {
  assert.deepEqual(ctxOf('responses', { model: 'm', instructions: 'be brief', input: 'hello' }).texts, [
    'be brief',
    'hello',
  ]);
  const items = {
    model: 'm',
    input: [
      { role: 'user', content: [{ type: 'input_text', text: 'q' }] },
      { type: 'function_call_output', call_id: 'c', output: 'r' },
    ],
  };
  assert.deepEqual(ctxOf('responses', items).texts, ['q', 'r']);
});

test('Gemini: the system instruction and every content part with text', () => {
  const body = {
    systemInstruction: { parts: [{ text: 'sys' }] },
    contents: [{ role: 'user', parts: [{ text: 'a' }, { inlineData: { mimeType: 'image/png', data: 'x' } }] }],
  };
  assert.deepEqual(ctxOf('gemini', body).texts, ['sys', 'a']);
});

test('embeddings: a string input or a list of strings', () => {
  assert.deepEqual(ctxOf('openai', { model: 'e', input: ['a', 'b'] }).texts, ['a', 'b']);
  assert.deepEqual(ctxOf('openai', { model: 'e', input: [1, 2] }).texts, []);
});

test('an unchanged text leaves the body unchanged', () => {
  const ctx = ctxOf('openai', { model: 'm', messages: [{ role: 'user', content: 'x' }] });
  ctx.setText(0, 'x');
  assert.equal(ctx.changed, false);
});

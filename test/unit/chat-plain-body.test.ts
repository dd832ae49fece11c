// The hand check of the common chat body (plain-body.ts) never accepts what the schema refuses: every
// field's edge cases, one field at a time and in messages, are put to both.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { plainChatBody } from '../../src/dialects/openai-chat/plain-body.ts';
import { chatRequestSchema } from '../../src/dialects/openai-chat/schema.ts';

const BASE = { model: 'm', messages: [{ role: 'user', content: 'hi' }], max_tokens: 64 };

/** Values each top-level field is tried with (undefined: the field absent). */
const VALUES: unknown[] = [
  undefined,
  null,
  true,
  false,
  0,
  -1,
  0.5,
  1,
  1.5,
  2,
  2.5,
  64,
  1e308,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  '',
  'auto',
  [],
  [1],
  {},
  { type: 'json_object' },
  { type: 1 },
  { include_usage: true },
];
const FIELDS = [
  'model',
  'messages',
  'stream',
  'stream_options',
  'max_completion_tokens',
  'max_tokens',
  'temperature',
  'top_p',
  'tools',
  'tool_choice',
  'response_format',
  'anything_else',
];
const ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function', 'robot', '', undefined, 1];
const CONTENTS = [undefined, null, '', 'hi', [], [{ type: 'text', text: 'hi' }], {}, 1, true];

function agree(body: unknown): boolean {
  const plain = plainChatBody(body);
  const valid = chatRequestSchema.safeParse(body).success;
  assert.ok(!plain || valid, `accepted by hand but refused by the schema: ${JSON.stringify(body)}`);
  return plain;
}

test('the hand check accepts only what the schema accepts, field by field', () => {
  let plain = 0;
  for (const field of FIELDS)
    for (const value of VALUES) {
      const body: Record<string, unknown> = { ...BASE };
      if (value === undefined) delete body[field];
      else body[field] = value;
      if (agree(body)) plain++;
    }
  for (const role of ROLES)
    for (const content of CONTENTS) {
      const message: Record<string, unknown> = { role, content };
      if (content === undefined) delete message.content;
      if (role === undefined) delete message.role;
      if (agree({ ...BASE, messages: [{ role: 'system', content: 'terse' }, message] })) plain++;
    }
  for (const body of [null, [], 'x', 1, {}, { model: 'm', messages: [] }, { model: 'm', messages: [null] }])
    agree(body);
  // The fast path is taken for the shapes clients send, or it saves nothing.
  assert.ok(plain > 50, `${plain} bodies told by hand`);
});

test('the shapes clients send are told by hand', () => {
  for (const body of [
    BASE,
    {
      model: 'gpt-5',
      messages: [
        { role: 'developer', content: 'be brief' },
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function' }] },
        { role: 'tool', tool_call_id: 'c', content: '42' },
      ],
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 1000,
      temperature: 0.2,
      top_p: 1,
      tools: [{ type: 'function', function: { name: 'f' } }],
      tool_choice: 'auto',
      response_format: { type: 'json_object' },
      user: 'u-1',
    },
  ])
    assert.equal(agree(body), true);
});

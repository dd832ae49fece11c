// Anthropic messages request → chat-completions request for an OpenAI-compatible upstream.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { messagesRequestToChat, TranslationError } from './hub-pairs.ts';
import type { MessagesRequest } from './hub-pairs.ts';
import { createValidator } from '../helpers/schemas.ts';

const validateRequest = createValidator('openai', 'CreateChatCompletionRequest');

function tr(body: Partial<MessagesRequest>) {
  const result = messagesRequestToChat(
    {
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      messages: [{ role: 'user', content: 'Hi' }],
      ...body,
    } as MessagesRequest,
    { upstreamModel: 'anthropic/claude-sonnet-4.5' },
  );
  validateRequest(result.body);
  return result;
}

test('system string or blocks → one leading system message, blocks joined in order', () => {
  assert.deepEqual(tr({ system: 'Be brief.' }).body.messages[0], { role: 'system', content: 'Be brief.' });
  const r = tr({
    system: [
      { type: 'text', text: 'A' },
      { type: 'text', text: 'B', cache_control: { type: 'ephemeral' } },
    ],
  });
  assert.deepEqual(r.body.messages.slice(0, 2), [
    { role: 'system', content: 'A\n\nB' },
    { role: 'user', content: 'Hi' },
  ]);
});

test('tool round trip: tool_use → tool_calls (ids kept, input → arguments), tool_result → role tool before the user text', () => {
  const r = tr({
    messages: [
      { role: 'user', content: 'Weather?' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'x', signature: 's' },
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'toolu_2', name: 'get_time', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: '18C' },
          {
            type: 'tool_result',
            tool_use_id: 'toolu_2',
            content: [
              { type: 'text', text: 'noon' },
              { type: 'text', text: 'UTC+1' },
            ],
            is_error: true,
          },
          { type: 'text', text: 'Thanks' },
        ],
      },
    ],
  });
  assert.deepEqual(r.body.messages, [
    { role: 'user', content: 'Weather?' },
    {
      role: 'assistant',
      content: 'Checking.',
      tool_calls: [
        { id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        { id: 'toolu_2', type: 'function', function: { name: 'get_time', arguments: '{}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'toolu_1', content: '18C' },
    // Separate result blocks stay apart, one per line.
    { role: 'tool', tool_call_id: 'toolu_2', content: '[tool error] noon\nUTC+1' },
    { role: 'user', content: 'Thanks' },
  ]);
});

test('tools and tool_choice map; disable_parallel_tool_use → parallel_tool_calls false', () => {
  const r = tr({
    tools: [
      { name: 'get_time', input_schema: { type: 'object', properties: {} } },
      { name: 'noschema', description: 'd' },
    ],
    tool_choice: { type: 'any', disable_parallel_tool_use: true },
  });
  assert.deepEqual(r.body.tools, [
    { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: {} } } },
    {
      type: 'function',
      function: { name: 'noschema', parameters: { type: 'object', properties: {} }, description: 'd' },
    },
  ]);
  assert.equal(r.body.tool_choice, 'required');
  assert.equal(r.body.parallel_tool_calls, false);
  const tools = [{ name: 'f', input_schema: { type: 'object' } }];
  assert.equal(tr({ tools, tool_choice: { type: 'auto' } }).body.tool_choice, 'auto');
  assert.equal(tr({ tools, tool_choice: { type: 'none' } }).body.tool_choice, 'none');
  assert.deepEqual(tr({ tools, tool_choice: { type: 'tool', name: 'f' } }).body.tool_choice, {
    type: 'function',
    function: { name: 'f' },
  });
});

test('images: base64 source → data URL, url source → URL', () => {
  const r = tr({
    messages: [
      {
        role: 'user',
        content: [
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBO' } },
          { type: 'image', source: { type: 'url', url: 'https://example.com/a.jpg' } },
          { type: 'text', text: 'Same?' },
        ],
      },
    ],
  });
  assert.deepEqual(r.body.messages[0].content, [
    { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBO' } },
    { type: 'image_url', image_url: { url: 'https://example.com/a.jpg' } },
    { type: 'text', text: 'Same?' },
  ]);
});

test('sampling, limits, stop, stream usage, top_k dropped with no error', () => {
  const r = tr({
    max_tokens: 333,
    temperature: 0.2,
    top_p: 0.8,
    top_k: 5,
    stop_sequences: ['###'],
    stream: true,
    metadata: { user_id: 'u' },
  });
  assert.equal(r.body.max_tokens, 333);
  assert.equal(r.body.temperature, 0.2);
  assert.equal(r.body.top_p, 0.8);
  assert.equal('top_k' in r.body, false);
  assert.deepEqual(r.adjustments, ['top_k dropped']);
  assert.deepEqual(r.body.stop, ['###']);
  assert.equal(r.body.stream, true);
  assert.deepEqual(r.body.stream_options, { include_usage: true });
  assert.equal(r.body.user, 'u');
  assert.equal(r.body.model, 'anthropic/claude-sonnet-4.5');
  assert.equal(tr({}).body.stream_options, undefined);
});

test('thinking and effort → reasoning_effort; output_config.format → response_format json_schema', () => {
  assert.equal(tr({ thinking: { type: 'enabled', budget_tokens: 1024 } }).body.reasoning_effort, 'minimal');
  assert.equal(tr({ thinking: { type: 'enabled', budget_tokens: 10000 } }).body.reasoning_effort, 'medium');
  assert.equal(tr({ thinking: { type: 'enabled', budget_tokens: 32000 } }).body.reasoning_effort, 'high');
  assert.equal(tr({ thinking: { type: 'adaptive' } }).body.reasoning_effort, 'medium');
  assert.equal(tr({ thinking: { type: 'disabled' } }).body.reasoning_effort, undefined);
  assert.equal(tr({ output_config: { effort: 'low' } }).body.reasoning_effort, 'low');
  const schema = { type: 'object', properties: { a: { type: 'string' } } };
  assert.deepEqual(tr({ output_config: { format: { type: 'json_schema', schema } } }).body.response_format, {
    type: 'json_schema',
    json_schema: { name: 'output', schema },
  });
});

test('server tools and unknown blocks are a TranslationError naming the field', () => {
  const cases: Array<[Partial<MessagesRequest>, string]> = [
    [{ tools: [{ type: 'web_search_20250305', name: 'web_search' }] }, 'tools[0].type'],
    [
      { messages: [{ role: 'user', content: [{ type: 'search_result', source: 'x' }] }] },
      'messages[0].content[0].type',
    ],
    [
      {
        messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'url', url: 'https://x/y.pdf' } }] }],
      },
      'messages[0].content[0].type',
    ],
  ];
  for (const [body, param] of cases) {
    assert.throws(
      () => tr(body),
      (err: unknown) => err instanceof TranslationError && err.param === param,
      param,
    );
  }
});

test('a prefill (final assistant turn) is sent as history and the caller is told the upstream will not continue it', () => {
  const r = tr({
    messages: [
      { role: 'user', content: 'JSON please' },
      { role: 'assistant', content: '{' },
    ],
  });
  assert.deepEqual(r.body.messages.at(-1), { role: 'assistant', content: '{' });
  assert.ok(
    r.adjustments.some((a) => a.startsWith('final assistant message sent as history')),
    r.adjustments.join('; '),
  );
  assert.ok(!tr({}).adjustments.some((a) => a.startsWith('final assistant')));
});

test('a system message inside the conversation (Claude Code sends one) becomes a system message at that position', () => {
  const r = tr({
    system: 'Top.',
    messages: [
      { role: 'user', content: 'Hi' },
      { role: 'system', content: 'Use the tools.' } as never,
      { role: 'assistant', content: 'Hello' },
      { role: 'user', content: 'Go' },
    ],
  });
  assert.deepEqual(r.body.messages, [
    { role: 'system', content: 'Top.' },
    { role: 'user', content: 'Hi' },
    { role: 'system', content: 'Use the tools.' },
    { role: 'assistant', content: 'Hello' },
    { role: 'user', content: 'Go' },
  ]);
  assert.deepEqual(r.adjustments, []);
});

test('a deployment that refuses temperature and top_p gets neither, and the caller is told', () => {
  const r = messagesRequestToChat(
    {
      model: 'claude-x',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'Hi' }],
      temperature: 0.3,
      top_p: 0.5,
    } as MessagesRequest,
    { upstreamModel: 'o3', refusedParams: ['temperature', 'top_p'] },
  );
  assert.equal(r.body.temperature, undefined);
  assert.equal(r.body.top_p, undefined);
  assert.deepEqual(r.adjustments, [
    "temperature left out: the deployment's model refuses it",
    "top_p left out: the deployment's model refuses it",
  ]);
});

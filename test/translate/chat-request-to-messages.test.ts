// Chat-completions request → Anthropic messages request: one table row per bullet of issue 3.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chatRequestToMessages, LEADING_USER_PLACEHOLDER, TranslationError } from './hub-pairs.ts';
import type { ChatRequest, ChatToMessagesOptions } from './hub-pairs.ts';
import { createValidator } from '../helpers/schemas.ts';

const validateRequest = createValidator('anthropic', 'CreateMessageParams');
const OPTS: ChatToMessagesOptions = { upstreamModel: 'claude-sonnet-4-5-20250929', defaultMaxTokens: 4096 };

function tr(body: Partial<ChatRequest>, opts: Partial<ChatToMessagesOptions> = {}) {
  const result = chatRequestToMessages(
    { model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'Hi' }], ...body } as ChatRequest,
    { ...OPTS, ...opts },
  );
  validateRequest(result.body);
  return result;
}

test('system and developer items are joined in order into the top-level system; a single one stays a string', () => {
  assert.equal(
    tr({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
    }).body.system,
    'Be brief.',
  );
  const r = tr({
    messages: [
      { role: 'system', content: 'A' },
      { role: 'developer', content: [{ type: 'text', text: 'B' }] },
      { role: 'user', content: 'Hi' },
      { role: 'system', content: 'C' },
    ],
  });
  assert.deepEqual(r.body.system, [
    { type: 'text', text: 'A' },
    { type: 'text', text: 'B' },
    { type: 'text', text: 'C' },
  ]);
  assert.deepEqual(r.body.messages, [{ role: 'user', content: 'Hi' }]);
  assert.ok(r.adjustments.some((a) => a.includes('moved to the top-level system')));
});

test('history repair: consecutive same roles merged, tool results become tool_result blocks first in a user turn', () => {
  const r = tr({
    messages: [
      { role: 'user', content: 'Weather in Paris and Oslo?' },
      { role: 'user', content: 'Quickly.' },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          {
            id: 'functions.get_weather:1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Oslo"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: '18C' },
      { role: 'tool', tool_call_id: 'functions.get_weather:1', content: [{ type: 'text', text: '4C' }] },
      { role: 'user', content: 'Thanks' },
    ],
  });
  assert.deepEqual(r.body.messages, [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Weather in Paris and Oslo?' },
        { type: 'text', text: 'Quickly.' },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Checking.' },
        { type: 'tool_use', id: 'call_a', name: 'get_weather', input: { city: 'Paris' } },
        { type: 'tool_use', id: 'functions_get_weather_1_2198bdfa', name: 'get_weather', input: { city: 'Oslo' } },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'call_a', content: '18C' },
        {
          type: 'tool_result',
          tool_use_id: 'functions_get_weather_1_2198bdfa',
          content: [{ type: 'text', text: '4C' }],
        },
        { type: 'text', text: 'Thanks' },
      ],
    },
  ]);
});

test('a leading assistant turn gets a user turn before it; a whitespace-ended prefill is trimmed', () => {
  const r = tr({
    messages: [
      { role: 'assistant', content: 'Hello!' },
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Sure: ' },
    ],
  });
  assert.deepEqual(r.body.messages[0], { role: 'user', content: LEADING_USER_PLACEHOLDER });
  assert.deepEqual(r.body.messages[3], { role: 'assistant', content: 'Sure:' });
  assert.ok(r.adjustments.includes('user turn inserted before leading assistant message'));
});

test('tools: parameterless tool gets an empty object schema; tool_choice and parallel_tool_calls map', () => {
  const r = tr({
    tools: [
      { type: 'function', function: { name: 'get_time' } },
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Weather',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
    ],
    tool_choice: 'required',
    parallel_tool_calls: false,
  });
  assert.deepEqual(r.body.tools, [
    { name: 'get_time', input_schema: { type: 'object', properties: {} } },
    {
      name: 'get_weather',
      description: 'Weather',
      input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  ]);
  assert.deepEqual(r.body.tool_choice, { type: 'any', disable_parallel_tool_use: true });
  const cases: Array<[ChatRequest['tool_choice'] | undefined, unknown]> = [
    ['auto', undefined],
    ['none', { type: 'none' }],
    [
      { type: 'function', function: { name: 'get_time' } },
      { type: 'tool', name: 'get_time' },
    ],
  ];
  for (const [choice, want] of cases) {
    assert.deepEqual(
      tr({ tools: [{ type: 'function', function: { name: 'get_time' } }], tool_choice: choice }).body.tool_choice,
      want,
    );
  }
  assert.equal(tr({ tool_choice: 'required' }).body.tool_choice, undefined, 'no tools → no tool_choice');
});

test('images: data URL → base64 source, http URL → url source, several parts kept in order', () => {
  const r = tr({
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Compare' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
        ],
      },
    ],
  });
  assert.deepEqual(r.body.messages[0].content, [
    { type: 'text', text: 'Compare' },
    { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
    { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
  ]);
});

test('limits and sampling: default max_tokens, max_completion_tokens wins, temperature clamped and recorded, stop → stop_sequences', () => {
  assert.equal(tr({}).body.max_tokens, 4096);
  assert.equal(tr({ max_tokens: 100 }).body.max_tokens, 100);
  assert.equal(tr({ max_tokens: 100, max_completion_tokens: 200 }).body.max_tokens, 200);
  const hot = tr({ temperature: 1.7, top_p: 0.9, top_k: 40, stop: 'END' });
  assert.equal(hot.body.temperature, 1);
  assert.deepEqual(hot.adjustments, ['temperature clamped to 1']);
  assert.equal(hot.body.top_p, 0.9);
  assert.equal(hot.body.top_k, 40);
  assert.deepEqual(hot.body.stop_sequences, ['END']);
  assert.equal(tr({ temperature: 0.3 }).body.temperature, 0.3);
  assert.deepEqual(tr({ stop: ['a', 'b'] }).body.stop_sequences, ['a', 'b']);
  assert.deepEqual(tr({ seed: 1, frequency_penalty: 0.5 }).adjustments, ['frequency_penalty dropped', 'seed dropped']);
});

test('structured output: json_schema → forced tool with that schema; json_object → forced object tool; native on request', () => {
  const schema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
  const r = tr({ response_format: { type: 'json_schema', json_schema: { name: 'person', schema } } });
  assert.deepEqual(r.jsonMode, { toolName: 'json_response', wrapKey: null });
  assert.deepEqual(r.body.tools?.[0].input_schema, schema);
  assert.deepEqual(r.body.tool_choice, { type: 'tool', name: 'json_response' });
  const obj = tr({ response_format: { type: 'json_object' } });
  assert.deepEqual(obj.body.tools?.[0].input_schema, { type: 'object', additionalProperties: true });
  const arr = tr({
    response_format: {
      type: 'json_schema',
      json_schema: { name: 'list', schema: { type: 'array', items: { type: 'string' } } },
    },
  });
  assert.deepEqual(arr.jsonMode, { toolName: 'json_response', wrapKey: 'value' });
  const native = tr(
    { response_format: { type: 'json_schema', json_schema: { name: 'person', schema } } },
    { structuredOutput: 'native' },
  );
  assert.equal(native.jsonMode, null);
  assert.deepEqual(native.body.output_config, { format: { type: 'json_schema', schema } });
  assert.equal(native.body.tools, undefined);
  assert.equal(tr({ response_format: { type: 'text' } }).jsonMode, null);
});

test("structured output with the client's own tools keeps the model free to call them; the name never collides", () => {
  const r = tr({
    tools: [{ type: 'function', function: { name: 'json_response' } }],
    response_format: { type: 'json_object' },
  });
  assert.equal(r.jsonMode?.toolName, 'json_response_2');
  assert.equal(r.body.tool_choice, undefined);
  assert.equal(r.body.tools?.length, 2);
});

test('reasoning_effort → thinking budget; temperature dropped; budget fits max_tokens; JSON goes native with thinking', () => {
  const r = tr({ reasoning_effort: 'medium', max_tokens: 20000, temperature: 0.5 });
  assert.deepEqual(r.body.thinking, { type: 'enabled', budget_tokens: 8192 });
  assert.equal(r.body.temperature, undefined);
  assert.ok(r.adjustments.includes('temperature dropped: thinking requires the default'));
  assert.deepEqual(tr({ reasoning_effort: 'high', max_tokens: 5000 }).body.thinking, {
    type: 'enabled',
    budget_tokens: 4999,
  });
  assert.equal(tr({ reasoning_effort: 'low', max_tokens: 500 }).body.thinking, undefined);
  assert.equal(tr({ reasoning_effort: 'none' }).body.thinking, undefined);
  const json = tr({ reasoning_effort: 'low', response_format: { type: 'json_object' } });
  assert.equal(json.jsonMode, null);
  assert.ok(json.body.output_config?.format);
});

test('a forced tool_choice wins over reasoning_effort: Anthropic refuses thinking with forced tool use', () => {
  const tools = [{ type: 'function', function: { name: 'get_time' } }];
  const choices: ChatRequest['tool_choice'][] = ['required', { type: 'function', function: { name: 'get_time' } }];
  for (const tool_choice of choices) {
    const r = tr({ reasoning_effort: 'medium', max_tokens: 20000, temperature: 0.5, tools, tool_choice });
    assert.equal(r.body.thinking, undefined, JSON.stringify(tool_choice));
    assert.ok(['any', 'tool'].includes(r.body.tool_choice?.type ?? ''));
    assert.equal(r.body.temperature, 0.5, 'without thinking the temperature is kept');
    assert.ok(
      r.adjustments.includes('reasoning_effort ignored: thinking cannot be combined with a forced tool_choice'),
      r.adjustments.join('; '),
    );
  }
  // auto leaves the model free: thinking stays on.
  assert.deepEqual(tr({ reasoning_effort: 'medium', max_tokens: 20000, tools, tool_choice: 'auto' }).body.thinking, {
    type: 'enabled',
    budget_tokens: 8192,
  });
  // An unsupported effort is still the caller's 400, forced or not.
  assert.throws(
    () => tr({ reasoning_effort: 'extreme' as ChatRequest['reasoning_effort'], tools, tool_choice: 'required' }),
    { name: 'TranslationError' },
  );
});

test('thinking round trip: reasoning_content + reasoning_signature on an assistant turn become a thinking block', () => {
  const r = tr({
    messages: [
      { role: 'user', content: 'Q' },
      { role: 'assistant', content: 'A', reasoning_content: 'hmm', reasoning_signature: 'sig' },
      { role: 'user', content: 'Q2' },
    ],
  });
  assert.deepEqual(r.body.messages[1].content, [
    { type: 'thinking', thinking: 'hmm', signature: 'sig' },
    { type: 'text', text: 'A' },
  ]);
});

test('thinking round trip: thinking_blocks, when the client kept them, come back exactly and win over reasoning_content', () => {
  const thinking_blocks: ChatRequest['messages'][number]['thinking_blocks'] = [
    { type: 'thinking', thinking: 'hmm', signature: 'sigA' },
    { type: 'redacted_thinking', data: 'xx' },
    { type: 'thinking', thinking: 'then', signature: 'sigB' },
  ];
  const r = tr({
    messages: [
      { role: 'user', content: 'Q' },
      { role: 'assistant', content: 'A', reasoning_content: 'hmmthen', reasoning_signature: 'sigB', thinking_blocks },
      { role: 'user', content: 'Q2' },
    ],
  });
  assert.deepEqual(r.body.messages[1].content, [...(thinking_blocks ?? []), { type: 'text', text: 'A' }]);
  const bad = { role: 'assistant' as const, content: 'A', thinking_blocks: [{ type: 'thinking', thinking: 'x' }] };
  assert.throws(
    () => tr({ messages: [{ role: 'user', content: 'Q' }, bad as never, { role: 'user', content: 'Q2' }] }),
    (e: unknown) => (e as { param?: string }).param === 'messages[1].thinking_blocks[0]',
  );
});

test('stream and user pass through; model is the upstream model', () => {
  const r = tr({ stream: true, stream_options: { include_usage: true }, user: 'u-1' });
  assert.equal(r.body.stream, true);
  assert.equal(r.body.model, 'claude-sonnet-4-5-20250929');
  assert.deepEqual(r.body.metadata, { user_id: 'u-1' });
  assert.equal('stream_options' in r.body, false);
});

test('what cannot be translated is a TranslationError naming the field', () => {
  const cases: Array<[Partial<ChatRequest>, string]> = [
    [{ n: 2 }, 'n'],
    [
      { messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'x', format: 'wav' } }] }] },
      'messages[0].content[0].type',
    ],
    [
      {
        messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/bmp;base64,AA' } }] }],
      },
      'messages[0].content[0].image_url.url',
    ],
    [
      {
        messages: [
          { role: 'user', content: 'x' },
          { role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '[1' } }] },
        ],
      },
      'messages[1].tool_calls[0].function.arguments',
    ],
    [{ messages: [{ role: 'tool', content: 'x' }] }, 'messages[0].tool_call_id'],
    [{ messages: [{ role: 'system', content: 'only system' }] }, 'messages'],
    [{ tools: [{ type: 'custom', custom: { name: 'x' } }] }, 'tools[0].type'],
    [
      {
        tools: [{ type: 'function', function: { name: 'f' } }],
        tool_choice: { type: 'allowed_tools', allowed_tools: {} },
      },
      'tool_choice',
    ],
    [{ response_format: { type: 'grammar' } }, 'response_format.type'],
  ];
  for (const [body, param] of cases) {
    assert.throws(
      () => tr(body),
      (err: unknown) => err instanceof TranslationError && err.param === param && err.status === 400,
      param,
    );
  }
});

test('history repair: an unanswered tool call gets an error result; an orphan tool result becomes text', () => {
  const r = tr({
    messages: [
      { role: 'user', content: 'Go' },
      { role: 'assistant', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'user', content: 'Never mind.' },
      { role: 'assistant', content: 'OK.' },
      { role: 'tool', tool_call_id: 'call_zz', content: 'late' },
    ],
  });
  assert.deepEqual(r.body.messages[2], {
    role: 'user',
    content: [
      {
        type: 'tool_result',
        tool_use_id: 'call_1',
        content: 'No result was provided for this tool call.',
        is_error: true,
      },
      { type: 'text', text: 'Never mind.' },
    ],
  });
  assert.deepEqual(r.body.messages[4], { role: 'user', content: 'Result of tool call call_zz: late' });
  assert.ok(r.adjustments.some((a) => a.includes('call_1 had no result')));
  assert.ok(r.adjustments.some((a) => a.includes('call_zz has no matching tool call')));
});

test('tool ids repaired for Anthropic stay distinct and pair up: call.1 and call:1 are two ids', () => {
  const r = tr({
    messages: [
      { role: 'user', content: 'Q' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call.1', type: 'function', function: { name: 'a', arguments: '{}' } },
          { id: 'call:1', type: 'function', function: { name: 'b', arguments: '{}' } },
          { id: 'call_ok-2', type: 'function', function: { name: 'c', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call:1', content: 'B' },
      { role: 'tool', tool_call_id: 'call.1', content: 'A' },
      { role: 'tool', tool_call_id: 'call_ok-2', content: 'C' },
    ],
  });
  const uses = (r.body.messages[1].content as Array<{ id: string }>).map((b) => b.id);
  assert.equal(new Set(uses).size, 3, uses.join(', '));
  for (const id of uses) assert.match(id, /^[a-zA-Z0-9_-]+$/);
  assert.equal(uses[2], 'call_ok-2', 'a valid id is kept as it is');
  const results = (r.body.messages[2].content as Array<{ tool_use_id: string; content: string }>).map((b) => [
    b.tool_use_id,
    b.content,
  ]);
  assert.deepEqual(results, [
    [uses[1], 'B'],
    [uses[0], 'A'],
    [uses[2], 'C'],
  ]);
});

test('what has no Anthropic field is said: user names dropped (recorded); an assistant refusal kept as its text', () => {
  const r = tr({
    messages: [
      { role: 'user', content: 'Hi', name: 'alice' },
      { role: 'user', content: 'Hello', name: 'bob' },
      { role: 'assistant', content: null, refusal: 'I cannot help with that.' },
      { role: 'user', content: 'Why?' },
    ],
  });
  assert.ok(r.adjustments.includes('name dropped from 2 user messages'), r.adjustments.join('; '));
  assert.deepEqual(r.body.messages[1], { role: 'assistant', content: 'I cannot help with that.' });
});

test('prompt caching survives translation: cache_control on system, tools, parts and messages reaches the Anthropic body', () => {
  const eph = { type: 'ephemeral' };
  const r = tr({
    messages: [
      { role: 'system', content: [{ type: 'text', text: 'Long rules.', cache_control: eph }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Doc', cache_control: { type: 'ephemeral', ttl: '1h' } },
          { type: 'text', text: 'Question' },
        ],
      },
      { role: 'assistant', content: 'Answer', cache_control: eph },
      { role: 'user', content: 'Next' },
    ] as never,
    tools: [{ type: 'function', function: { name: 'f' }, cache_control: eph } as never],
  });
  assert.deepEqual(r.body.system, [{ type: 'text', text: 'Long rules.', cache_control: eph }]);
  assert.deepEqual(r.body.tools?.[0].cache_control, eph);
  assert.deepEqual(r.body.messages, [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Doc', cache_control: { type: 'ephemeral', ttl: '1h' } },
        { type: 'text', text: 'Question' },
      ],
    },
    { role: 'assistant', content: [{ type: 'text', text: 'Answer', cache_control: eph }] },
    { role: 'user', content: 'Next' },
  ]);
});

test('refused parameters are left out of the Anthropic body and named', () => {
  const r = tr({ temperature: 0.5, top_p: 0.9, top_k: 4 }, { refusedParams: ['temperature', 'top_p', 'top_k'] });
  assert.equal(r.body.temperature, undefined);
  assert.equal(r.body.top_p, undefined);
  assert.equal(r.body.top_k, undefined);
  assert.deepEqual(r.adjustments, [
    "temperature left out: the deployment's model refuses it",
    "top_p left out: the deployment's model refuses it",
    "top_k left out: the deployment's model refuses it",
  ]);
});

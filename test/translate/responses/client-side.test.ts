// The Responses dialect's client side on literal inputs: a Codex-shaped request decoded into the hub
// form, hub replies and hub event streams encoded into response objects and raw SSE text, every event
// checked against the official schema.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { responsesClient } from '../../../src/dialects/openai-responses/index.ts';
import type { ClientReplyContext } from '../../../src/spec/codec.ts';
import type { HubEvent } from '../../../src/spec/events.ts';
import type { HubRequest } from '../../../src/spec/form.ts';
import { ResponsesStreamEncoder } from '../../../src/dialects/openai-responses/encode-stream.ts';
import { parseSseText, validateResponse, validateResponseStreamEvent } from '../../helpers/schemas.ts';

const CODEX_BODY = {
  model: 'gpt-5-codex',
  instructions: 'You are Codex.',
  input: [
    { type: 'message', role: 'developer', content: [{ type: 'input_text', text: '<permissions>none</permissions>' }] },
    {
      type: 'message',
      role: 'user',
      content: [
        { type: 'input_text', text: 'List the files.' },
        { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'high' },
      ],
    },
    {
      type: 'reasoning',
      id: 'rs_1',
      summary: [{ type: 'summary_text', text: 'Run ls.' }],
      encrypted_content: 'gAAAAopaque',
    },
    { type: 'function_call', call_id: 'call_1', name: 'shell', arguments: '{"command":["ls"]}' },
    { type: 'function_call_output', call_id: 'call_1', output: 'a.txt\nb.txt' },
    { type: 'custom_tool_call', call_id: 'call_2', name: 'apply_patch', input: '*** Begin Patch\n*** End Patch' },
    { type: 'custom_tool_call_output', call_id: 'call_2', output: 'Done' },
    { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Two files.', annotations: [] }] },
    { role: 'user', content: 'Thanks' },
  ],
  tools: [
    {
      type: 'function',
      name: 'shell',
      description: 'Runs a command',
      strict: false,
      parameters: {
        type: 'object',
        properties: { command: { type: 'array', items: { type: 'string' } } },
        required: ['command'],
      },
    },
    {
      type: 'custom',
      name: 'apply_patch',
      description: 'Edits files',
      format: { type: 'grammar', syntax: 'lark', definition: 'start: /.+/' },
    },
    { type: 'web_search' },
  ],
  tool_choice: 'auto',
  parallel_tool_calls: false,
  reasoning: { effort: 'high', summary: 'auto' },
  store: false,
  stream: true,
  include: ['reasoning.encrypted_content'],
  prompt_cache_key: 'abc',
  text: { format: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true }, verbosity: 'low' },
  max_output_tokens: 1000,
  temperature: 0.5,
  top_p: 0.9,
  metadata: { app: 'codex' },
};

test('decode: a Codex-shaped request, item by item, into the hub form', () => {
  const req = responsesClient.decodeRequest(structuredClone(CODEX_BODY));
  const expected: HubRequest = {
    system: [
      { type: 'text', text: 'You are Codex.' },
      { type: 'text', text: '<permissions>none</permissions>' },
    ],
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'List the files.' },
          { type: 'file', mediaType: 'image/png', data: { base64: 'iVBORw0KGgo=' }, detail: 'high' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'Run ls.', origin: 'responses', encrypted: 'gAAAAopaque', id: 'rs_1' },
          { type: 'tool-call', id: 'call_1', name: 'shell', input: '{"command":["ls"]}', kind: 'function' },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', callId: 'call_1', content: [{ type: 'text', text: 'a.txt\nb.txt' }], name: 'shell' },
        ],
      },
      {
        role: 'assistant',
        content: [
          {
            type: 'tool-call',
            id: 'call_2',
            name: 'apply_patch',
            input: '*** Begin Patch\n*** End Patch',
            kind: 'custom',
          },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', callId: 'call_2', content: [{ type: 'text', text: 'Done' }], name: 'apply_patch' },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'Two files.' }] },
      { role: 'user', content: [{ type: 'text', text: 'Thanks' }] },
    ],
    tools: [
      {
        name: 'shell',
        kind: 'function',
        inputSchema: CODEX_BODY.tools[0].parameters as Record<string, unknown>,
        description: 'Runs a command',
        strict: false,
      },
      {
        name: 'apply_patch',
        kind: 'custom',
        description: 'Edits files',
        format: { type: 'grammar', syntax: 'lark', definition: 'start: /.+/' },
      },
    ],
    stream: true,
    extra: { 'tools[2] (web_search)': { type: 'web_search' }, 'text.verbosity': 'low', prompt_cache_key: 'abc' },
    from: 'responses',
    toolChoice: { type: 'auto' },
    parallelToolCalls: false,
    maxOutputTokens: 1000,
    temperature: 0.5,
    topP: 0.9,
    responseFormat: { type: 'json', schema: { type: 'object' }, name: 'out', strict: true },
    reasoning: { effort: 'high', summary: 'auto', includeEncrypted: true },
    metadata: { app: 'codex' },
  };
  assert.deepEqual(req, expected);
});

test('decode: what cannot be carried is a 400 naming the item', () => {
  assert.throws(
    () => responsesClient.decodeRequest({ model: 'm', input: [{ type: 'item_reference', id: 'msg_1' }] }),
    (e: Error & { param?: string }) => e.param === 'input[0].type',
  );
  assert.throws(
    () => responsesClient.decodeRequest({ model: 'm', input: [{ role: 'user', content: [{ type: 'input_audio' }] }] }),
    (e: Error & { param?: string }) => e.param === 'input[0].content[0].type',
  );
  assert.throws(
    () => responsesClient.decodeRequest({ model: 'm', input: 'x', reasoning: { effort: 'extreme' } }),
    (e: Error & { param?: string }) => e.param === 'reasoning.effort',
  );
});

function ctxFor(body: Record<string, unknown>): ClientReplyContext {
  return {
    model: 'claude-via-gw',
    created: 1_800_000_000,
    request: responsesClient.decodeRequest(body),
    promptEstimate: () => 10,
  };
}

test('encode reply: reasoning carried in encrypted_content, text, a custom tool restored to free-form input; schema-valid', () => {
  const ctx = ctxFor(structuredClone(CODEX_BODY));
  const text = responsesClient.encodeReply(
    {
      content: [
        { type: 'reasoning', text: 'Thinking about it', origin: 'messages', signature: 'sig-abc' },
        { type: 'text', text: 'Patching now.' },
        { type: 'tool-call', id: 'toolu_9', name: 'apply_patch', input: '{"input":"*** Begin Patch\\n*** End Patch"}' },
      ],
      finish: 'tool-calls',
      usage: { inputTokens: 100, outputTokens: 40, cacheReadTokens: 20, cacheWriteTokens: 5, reasoningTokens: 12 },
    },
    ctx,
  );
  const res = JSON.parse(text) as {
    status: string;
    model: string;
    output: Record<string, unknown>[];
    usage: Record<string, unknown>;
    store: boolean;
    tools: unknown[];
  };
  validateResponse(res);
  assert.equal(res.status, 'completed');
  assert.equal(res.model, 'claude-via-gw');
  assert.deepEqual(
    res.output.map((o) => o.type),
    ['reasoning', 'message', 'custom_tool_call'],
  );
  assert.deepEqual(res.output[0].summary, [{ type: 'summary_text', text: 'Thinking about it' }]);
  assert.match(String(res.output[0].encrypted_content), /^mgw1\./);
  assert.equal(res.output[2].input, '*** Begin Patch\n*** End Patch');
  assert.equal(res.output[2].call_id, 'toolu_9');
  assert.deepEqual(res.usage, {
    input_tokens: 125,
    input_tokens_details: { cached_tokens: 20, cache_write_tokens: 5 },
    output_tokens: 40,
    output_tokens_details: { reasoning_tokens: 12 },
    total_tokens: 165,
  });
  assert.equal(res.store, false, 'the request is echoed');
  // The carried thinking comes back as Anthropic's own signed block on the next turn.
  const next = responsesClient.decodeRequest({
    model: 'm',
    input: [res.output[0], { role: 'user', content: 'go on' }],
  });
  assert.deepEqual(next.messages[0], {
    role: 'assistant',
    content: [{ type: 'reasoning', text: 'Thinking about it', origin: 'messages', signature: 'sig-abc' }],
  });
});

test('encode reply: a cut reply is incomplete with its reason; without include, no encrypted content', () => {
  const res = JSON.parse(
    responsesClient.encodeReply(
      {
        content: [
          { type: 'reasoning', text: 'x', origin: 'messages', signature: 's' },
          { type: 'text', text: 'Half' },
        ],
        finish: 'length',
        usage: { inputTokens: 1, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 },
      },
      ctxFor({ model: 'm', input: 'x' }),
    ),
  ) as Record<string, unknown>;
  validateResponse(res);
  assert.equal(res.status, 'incomplete');
  assert.deepEqual(res.incomplete_details, { reason: 'max_output_tokens' });
  assert.equal((res.output as Record<string, unknown>[])[0].encrypted_content, undefined);
});

const STREAM_EVENTS: HubEvent[] = [
  { type: 'start', id: 'msg_up' },
  { type: 'reasoning-start', index: 0 },
  { type: 'reasoning-delta', index: 0, text: 'Let me ' },
  { type: 'reasoning-delta', index: 0, text: 'think.' },
  { type: 'reasoning-signature', index: 0, signature: 'sig' },
  { type: 'reasoning-end', index: 0 },
  { type: 'text-start', index: 1 },
  { type: 'text-delta', index: 1, text: 'Hi' },
  { type: 'text-delta', index: 1, text: ' there' },
  { type: 'text-end', index: 1 },
  { type: 'tool-call-start', index: 2, id: 'call_a', name: 'shell' },
  { type: 'tool-call-delta', index: 2, input: '{"command":' },
  { type: 'tool-call-delta', index: 2, input: '["ls"]}' },
  { type: 'tool-call-end', index: 2 },
  { type: 'tool-call-start', index: 3, id: 'call_b', name: 'apply_patch' },
  { type: 'tool-call-delta', index: 3, input: '{"input":"*** Begin' },
  { type: 'tool-call-delta', index: 3, input: ' Patch"}' },
  { type: 'tool-call-end', index: 3 },
  {
    type: 'usage',
    usage: { inputTokens: 7, outputTokens: 9, cacheReadTokens: 3, cacheWriteTokens: 0, reasoningTokens: 2 },
  },
  { type: 'finish', reason: 'tool-calls' },
];

test('encode stream: the full event grammar in order, numbered, each event schema-valid; the final response kept', () => {
  const enc = new ResponsesStreamEncoder(ctxFor(structuredClone(CODEX_BODY)));
  const sse = STREAM_EVENTS.map((e) => enc.push(e)).join('');
  const events = parseSseText(sse);
  const types = events.map((e) => e.event);
  assert.deepEqual(types, [
    'response.created',
    'response.in_progress',
    'response.output_item.added',
    'response.reasoning_summary_part.added',
    'response.reasoning_summary_text.delta',
    'response.reasoning_summary_text.delta',
    'response.reasoning_summary_text.done',
    'response.reasoning_summary_part.done',
    'response.output_item.done',
    'response.output_item.added',
    'response.content_part.added',
    'response.output_text.delta',
    'response.output_text.delta',
    'response.output_text.done',
    'response.content_part.done',
    'response.output_item.done',
    'response.output_item.added',
    'response.function_call_arguments.delta',
    'response.function_call_arguments.delta',
    'response.function_call_arguments.done',
    'response.output_item.done',
    'response.output_item.added',
    'response.custom_tool_call_input.delta',
    'response.custom_tool_call_input.done',
    'response.output_item.done',
    'response.completed',
  ]);
  events.forEach((e, i) => {
    const data = JSON.parse(e.data) as { type: string; sequence_number: number };
    assert.equal(data.type, e.event);
    assert.equal(data.sequence_number, i);
    validateResponseStreamEvent(data);
  });
  const completed = JSON.parse(events.at(-1)!.data) as {
    response: { output: Record<string, unknown>[]; usage: { total_tokens: number } };
  };
  assert.equal(completed.response.output[3].input, '*** Begin Patch');
  assert.equal(completed.response.usage.total_tokens, 19);
  assert.deepEqual(JSON.parse(enc.final()!), completed.response);
});

test('encode stream: an upstream failure midway ends with response.failed carrying the output so far', () => {
  const enc = new ResponsesStreamEncoder(ctxFor({ model: 'm', input: 'x' }));
  const sse = [
    enc.push({ type: 'start' }),
    enc.push({ type: 'text-start', index: 0 }),
    enc.push({ type: 'text-delta', index: 0, text: 'Par' }),
    enc.push({ type: 'error', status: 529, errorType: 'overloaded_error', message: 'Overloaded' }),
  ].join('');
  const events = parseSseText(sse);
  const last = JSON.parse(events.at(-1)!.data) as {
    type: string;
    response: { status: string; error: { code: string; message: string } };
  };
  for (const e of events) validateResponseStreamEvent(JSON.parse(e.data));
  assert.equal(last.type, 'response.failed');
  assert.equal(last.response.status, 'failed');
  assert.deepEqual(last.response.error, { code: 'server_error', message: 'Overloaded' });
  assert.equal(enc.final(), null, 'a failed response is not stored');
});

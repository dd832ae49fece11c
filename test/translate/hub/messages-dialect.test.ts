// The messages dialect's decoders and encoders alone, on literal inputs: a request body, a hub request,
// a whole Message, raw SSE text, hub events.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SseDecoder } from '../../../src/core/sse.ts';
import { decodeMessagesRequest } from '../../../src/dialects/anthropic-messages/decode-request.ts';
import { encodeMessagesRequest } from '../../../src/dialects/anthropic-messages/encode-request.ts';
import { decodeMessagesReply } from '../../../src/dialects/anthropic-messages/decode-reply.ts';
import { encodeMessagesReply } from '../../../src/dialects/anthropic-messages/encode-reply.ts';
import { MessagesStreamDecoder } from '../../../src/dialects/anthropic-messages/decode-stream.ts';
import { MessagesStreamEncoder } from '../../../src/dialects/anthropic-messages/encode-stream.ts';
import type { HubEvent } from '../../../src/spec/events.ts';
import type { HubRequest } from '../../../src/spec/form.ts';
import { createValidator, parseSseText, validateMessage } from '../../helpers/schemas.ts';
import { readFixture } from '../golden.ts';
import { rebuildAnthropic } from '../anthropic-stream-check.ts';

const validateRequest = createValidator('anthropic', 'CreateMessageParams');
const OPTS = { upstreamModel: 'claude-x', defaultMaxTokens: 1000, refusedParams: [] as string[] };

function hubRequest(over: Partial<HubRequest>): HubRequest {
  return {
    system: [],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
    tools: [],
    stream: false,
    extra: {},
    from: 'chat',
    ...over,
  };
}

function decodeStream(text: string, jsonMode: { toolName: string; wrapKey: string | null } | null = null): HubEvent[] {
  const decoder = new MessagesStreamDecoder({ jsonMode });
  const sse = new SseDecoder();
  const out: HubEvent[] = [];
  for (const ev of [...sse.push(text), ...sse.end()]) out.push(...decoder.push(ev));
  out.push(...decoder.end());
  return out;
}

test('decode request: a mid-conversation system message stays at its position; tool results before the turn text; cache markers', () => {
  const req = decodeMessagesRequest({
    model: 'claude-x',
    max_tokens: 100,
    system: [{ type: 'text', text: 'S', cache_control: { type: 'ephemeral' } }],
    messages: [
      { role: 'user', content: 'Q' },
      { role: 'system', content: 'Reminder.' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 't', signature: 'sig' },
          { type: 'tool_use', id: 'toolu_1', name: 'f', input: { a: 1 } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'r', is_error: true },
          { type: 'text', text: 'more', cache_control: { type: 'ephemeral' } },
        ],
      },
    ],
    thinking: { type: 'enabled', budget_tokens: 9000 },
    top_k: 5,
    service_tier: 'auto',
  });
  assert.deepEqual(req.system, [{ type: 'text', text: 'S', cache: { type: 'ephemeral' } }]);
  assert.deepEqual(req.messages, [
    { role: 'user', content: [{ type: 'text', text: 'Q' }] },
    { role: 'system', content: [{ type: 'text', text: 'Reminder.' }] },
    {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 't', signature: 'sig', origin: 'messages' },
        { type: 'tool-call', id: 'toolu_1', name: 'f', input: '{"a":1}' },
      ],
    },
    {
      role: 'tool',
      content: [{ type: 'tool-result', callId: 'toolu_1', content: [{ type: 'text', text: 'r' }], isError: true }],
    },
    { role: 'user', content: [{ type: 'text', text: 'more', cache: { type: 'ephemeral' } }] },
  ]);
  assert.deepEqual(req.reasoning, { budgetTokens: 9000, effort: 'medium' });
  assert.equal(req.topK, 5);
  assert.deepEqual(req.extra, { service_tier: 'auto' });
});

test('encode request: cache markers land on system, tools, blocks and tool results; a valid Anthropic body', () => {
  const out = encodeMessagesRequest(
    hubRequest({
      system: [{ type: 'text', text: 'Rules.', cache: { type: 'ephemeral' } }],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look', cache: { type: 'ephemeral', ttl: '1h' } },
            { type: 'file', mediaType: 'image/png', data: { base64: 'AA' } },
          ],
        },
        { role: 'assistant', content: [{ type: 'tool-call', id: 'call.1', name: 'f', input: '{}' }] },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              callId: 'call.1',
              content: [{ type: 'text', text: 'ok' }],
              plainText: true,
              cache: { type: 'ephemeral' },
            },
          ],
        },
      ],
      tools: [{ name: 'f', kind: 'function', cache: { type: 'ephemeral' } }],
    }),
    OPTS,
  );
  const body = JSON.parse(out.body);
  validateRequest(body);
  assert.deepEqual(body.system, [{ type: 'text', text: 'Rules.', cache_control: { type: 'ephemeral' } }]);
  assert.deepEqual(body.tools, [
    { name: 'f', input_schema: { type: 'object', properties: {} }, cache_control: { type: 'ephemeral' } },
  ]);
  assert.deepEqual(body.messages[0].content, [
    { type: 'text', text: 'Look', cache_control: { type: 'ephemeral', ttl: '1h' } },
    { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AA' } },
  ]);
  const id = body.messages[1].content[0].id;
  assert.match(id, /^call_1_[0-9a-f]{8}$/);
  assert.deepEqual(body.messages[2].content, [
    { type: 'tool_result', tool_use_id: id, content: 'ok', cache_control: { type: 'ephemeral' } },
  ]);
});

test('encode request: a system message inside the conversation is hoisted, and said so; refused sampling left out', () => {
  const out = encodeMessagesRequest(
    hubRequest({
      system: [{ type: 'text', text: 'A' }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Q' }] },
        { role: 'system', content: [{ type: 'text', text: 'B' }] },
        { role: 'user', content: [{ type: 'text', text: 'Q2' }] },
      ],
      temperature: 0.5,
      topP: 0.9,
    }),
    { ...OPTS, refusedParams: ['temperature', 'top_p'] },
  );
  const body = JSON.parse(out.body);
  assert.deepEqual(body.system, [
    { type: 'text', text: 'A' },
    { type: 'text', text: 'B' },
  ]);
  assert.deepEqual(body.messages, [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Q' },
        { type: 'text', text: 'Q2' },
      ],
    },
  ]);
  assert.equal(body.temperature, undefined);
  assert.equal(body.top_p, undefined);
  assert.deepEqual(out.adjustments, [
    '1 system message inside the conversation moved to the top-level system prompt',
    "temperature left out: the deployment's model refuses it",
    "top_p left out: the deployment's model refuses it",
  ]);
});

test('decode reply: thinking with its signature, redacted thinking, tool input as JSON text, cache usage', () => {
  const reply = decodeMessagesReply(
    {
      id: 'msg_1',
      content: [
        { type: 'thinking', thinking: 'h', signature: 'S' },
        { type: 'redacted_thinking', data: 'R' },
        { type: 'text', text: 'x' },
        { type: 'tool_use', id: 'toolu_1', name: 'f', input: { a: [1] } },
      ],
      stop_reason: 'tool_use',
      usage: { input_tokens: 3, output_tokens: 4, cache_read_input_tokens: 50, cache_creation_input_tokens: 20 },
    },
    { jsonMode: null },
  );
  assert.deepEqual(reply, {
    id: 'msg_1',
    content: [
      { type: 'reasoning', text: 'h', signature: 'S', origin: 'messages' },
      { type: 'reasoning', text: '', redacted: 'R', origin: 'messages' },
      { type: 'text', text: 'x' },
      { type: 'tool-call', id: 'toolu_1', name: 'f', input: '{"a":[1]}' },
    ],
    finish: 'tool-calls',
    usage: { inputTokens: 3, outputTokens: 4, cacheReadTokens: 50, cacheWriteTokens: 20 },
  });
});

test('encode reply: a Message the schema accepts, with cache usage and the matched stop sequence', () => {
  const text = encodeMessagesReply(
    {
      content: [
        { type: 'reasoning', text: 'r', origin: 'chat' },
        { type: 'text', text: 'Hi' },
        { type: 'tool-call', id: 'a:b', name: 'f', input: 'not json' },
      ],
      finish: 'stop-sequence',
      stopSequence: '###',
      usage: { inputTokens: 1, outputTokens: 2, cacheReadTokens: 30, cacheWriteTokens: 7 },
    },
    { model: 'claude-x', created: 0, request: hubRequest({ from: 'messages' }), promptEstimate: () => 0 },
  );
  const msg = JSON.parse(text);
  validateMessage(msg);
  assert.deepEqual(msg.content[0], { type: 'thinking', thinking: 'r', signature: '' });
  assert.deepEqual(msg.content[2].input, { _raw_arguments: 'not json' });
  assert.match(msg.content[2].id, /^a_b_[0-9a-f]{8}$/);
  assert.equal(msg.stop_reason, 'stop_sequence');
  assert.equal(msg.stop_sequence, '###');
  assert.equal(msg.usage.cache_read_input_tokens, 30);
  assert.equal(msg.usage.cache_creation_input_tokens, 7);
});

test('decode stream: raw SSE text → hub events (golden thinking), the output count final only at message_delta', () => {
  const events = decodeStream(readFixture('anthropic-upstream/thinking.sse'));
  assert.deepEqual(events, [
    { type: 'start' },
    {
      type: 'usage',
      usage: { inputTokens: 10, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
      partial: true,
    },
    { type: 'reasoning-start', index: 0 },
    { type: 'reasoning-delta', index: 0, text: '2+2 is 4.' },
    { type: 'reasoning-signature', index: 0, signature: 'EqQBsig' },
    { type: 'reasoning-end', index: 0 },
    { type: 'text-start', index: 1 },
    { type: 'text-delta', index: 1, text: '4', json: '"4"' },
    { type: 'text-end', index: 1 },
    { type: 'usage', usage: { inputTokens: 10, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 } },
    { type: 'finish', reason: 'length' },
  ]);
});

test('decode stream: JSON mode turns the forced tool into text; an error event and a cut stream are errors', () => {
  const events = decodeStream(readFixture('anthropic-upstream/json-mode.sse'), {
    toolName: 'json_response',
    wrapKey: null,
  });
  const text = events.flatMap((e) => (e.type === 'text-delta' ? [e.text] : [])).join('');
  assert.doesNotThrow(() => JSON.parse(text), text);
  assert.equal(
    events.some((e) => e.type === 'tool-call-start'),
    false,
  );
  assert.deepEqual(events.at(-1), { type: 'finish', reason: 'stop' });
  const err = decodeStream(
    'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
  );
  assert.deepEqual(err, [
    { type: 'error', status: 529, errorType: 'overloaded_error', message: 'Overloaded', from: 'messages' },
  ]);
  assert.equal(decodeStream(readFixture('anthropic-upstream/cut.sse')).at(-1)?.type, 'error');
});

test('encode stream: hub events → a well-formed Anthropic stream, blocks numbered on the wire, ids repaired', () => {
  const enc = new MessagesStreamEncoder({
    model: 'claude-x',
    created: 0,
    request: hubRequest({ from: 'messages' }),
    promptEstimate: () => 12,
  });
  const events: HubEvent[] = [
    { type: 'start' },
    { type: 'reasoning-start', index: 4 },
    { type: 'reasoning-delta', index: 4, text: 'hm' },
    { type: 'reasoning-end', index: 4 },
    { type: 'text-start', index: 7 },
    { type: 'text-delta', index: 7, text: 'Hi', json: '"Hi"' },
    { type: 'text-end', index: 7 },
    { type: 'tool-call-start', index: 9, id: 'functions.f:0', name: 'f' },
    { type: 'tool-call-delta', index: 9, input: '{"a":1}' },
    { type: 'tool-call-end', index: 9 },
    { type: 'usage', usage: { inputTokens: 12, outputTokens: 5, cacheReadTokens: 3, cacheWriteTokens: 2 } },
    { type: 'finish', reason: 'tool-calls' },
  ];
  const text = events.map((e) => enc.push(e)).join('');
  const msg = rebuildAnthropic(parseSseText(text));
  assert.equal(msg.stopped, true);
  assert.deepEqual(
    msg.blocks.map((b) => b.type),
    ['thinking', 'text', 'tool_use'],
  );
  assert.equal(msg.blocks[1].text, 'Hi');
  assert.match(msg.blocks[2].id ?? '', /^functions_f_0_[0-9a-f]{8}$/);
  assert.deepEqual(JSON.parse(msg.blocks[2].json ?? ''), { a: 1 });
  assert.equal(msg.stopReason, 'tool_use');
  assert.equal(msg.startUsage.input_tokens, 12);
  assert.equal(msg.deltaUsage?.cache_creation_input_tokens, 2);
  assert.equal(msg.deltaUsage?.cache_read_input_tokens, 3);
  const failed = new MessagesStreamEncoder({
    model: 'm',
    created: 0,
    request: hubRequest({}),
    promptEstimate: () => 1,
  }).push({ type: 'error', status: 429, errorType: 'rate_limit_error', message: 'slow', from: 'chat' });
  assert.equal(failed, 'event: error\ndata: {"type":"error","error":{"type":"rate_limit_error","message":"slow"}}\n\n');
});

test('encode request: past four cache breakpoints the earliest are dropped and named; TTLs stay', () => {
  const text = (t: string, ttl?: string) => ({
    type: 'text' as const,
    text: t,
    cache: ttl === undefined ? { type: 'ephemeral' as const } : { type: 'ephemeral' as const, ttl },
  });
  const out = encodeMessagesRequest(
    hubRequest({
      system: [text('Rules.', '1h')],
      messages: [
        { role: 'user', content: [text('one'), text('two')] },
        { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
        { role: 'user', content: [text('three', '1h'), text('four'), text('five')] },
      ],
    }),
    OPTS,
  );
  const body = JSON.parse(out.body) as {
    system: { cache_control?: unknown }[];
    messages: { content: { text: string; cache_control?: unknown }[] }[];
  };
  validateRequest(body);
  assert.equal(body.system[0].cache_control, undefined, 'the earliest breakpoint (system) dropped');
  assert.equal(body.messages[0].content[0].cache_control, undefined);
  assert.deepEqual(body.messages[0].content[1].cache_control, { type: 'ephemeral' }, 'the fourth from the end is kept');
  assert.deepEqual(body.messages[2].content[0].cache_control, { type: 'ephemeral', ttl: '1h' });
  assert.deepEqual(body.messages[2].content[2].cache_control, { type: 'ephemeral' });
  assert.ok(out.adjustments.some((a) => /cache_control dropped from the 2 earliest of 6 breakpoints/.test(a)));
});

// The chat-completions dialect's decoders and encoders alone, on literal inputs: a request body, a
// hub request, a whole reply, raw SSE text, hub events.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SseDecoder } from '../../../src/core/sse.ts';
import { decodeChatRequest } from '../../../src/dialects/openai-chat/decode-request.ts';
import { encodeChatRequest } from '../../../src/dialects/openai-chat/encode-request.ts';
import { decodeChatReply } from '../../../src/dialects/openai-chat/decode-reply.ts';
import { encodeChatReply } from '../../../src/dialects/openai-chat/encode-reply.ts';
import { ChatStreamDecoder } from '../../../src/dialects/openai-chat/decode-stream.ts';
import { ChatStreamEncoder } from '../../../src/dialects/openai-chat/encode-stream.ts';
import type { HubEvent } from '../../../src/spec/events.ts';
import type { HubRequest } from '../../../src/spec/form.ts';
import { parseSseText, validateChatCompletion, validateChatCompletionChunk } from '../../helpers/schemas.ts';
import { readFixture } from '../golden.ts';

const OPTS = { upstreamModel: 'gpt-x', defaultMaxTokens: 1000, refusedParams: [] as string[] };

function hubRequest(over: Partial<HubRequest>): HubRequest {
  return {
    system: [],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
    tools: [],
    stream: false,
    extra: {},
    from: 'messages',
    ...over,
  };
}

function decodeStream(text: string, stopSequences?: string[]): HubEvent[] {
  const decoder = new ChatStreamDecoder({ stopSequences });
  const sse = new SseDecoder();
  const out: HubEvent[] = [];
  for (const ev of [...sse.push(text), ...sse.end()]) out.push(...decoder.push(ev));
  out.push(...decoder.end());
  return out;
}

test('decode request: leading system is the prompt, a later one stays in place; cache markers on parts, messages and tools', () => {
  const req = decodeChatRequest({
    model: 'm',
    messages: [
      { role: 'system', content: [{ type: 'text', text: 'Rules.', cache_control: { type: 'ephemeral' } }] },
      { role: 'user', content: 'Hi', name: 'ann', cache_control: { type: 'ephemeral', ttl: '1h' } },
      { role: 'system', content: 'Now be brief.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'ok' },
    ],
    tools: [
      {
        type: 'function',
        function: { name: 'f', parameters: { type: 'object' } },
        cache_control: { type: 'ephemeral' },
      },
    ],
    tool_choice: 'required',
    parallel_tool_calls: false,
    max_completion_tokens: 50,
    reasoning_effort: 'low',
    stream: true,
    stream_options: { include_usage: true },
    seed: 7,
    response_format: { type: 'json_schema', json_schema: { name: 'p', schema: { type: 'object' } } },
  });
  assert.deepEqual(req.system, [{ type: 'text', text: 'Rules.', cache: { type: 'ephemeral' } }]);
  assert.deepEqual(req.messages, [
    { role: 'user', content: [{ type: 'text', text: 'Hi', cache: { type: 'ephemeral', ttl: '1h' } }], name: 'ann' },
    { role: 'system', content: [{ type: 'text', text: 'Now be brief.' }] },
    { role: 'assistant', content: [{ type: 'tool-call', id: 'c1', name: 'f', input: '{}' }] },
    {
      role: 'tool',
      content: [{ type: 'tool-result', callId: 'c1', content: [{ type: 'text', text: 'ok' }], plainText: true }],
    },
  ]);
  assert.deepEqual(req.tools, [
    { name: 'f', kind: 'function', inputSchema: { type: 'object' }, cache: { type: 'ephemeral' } },
  ]);
  assert.deepEqual(req.toolChoice, { type: 'required' });
  assert.equal(req.parallelToolCalls, false);
  assert.equal(req.maxOutputTokens, 50);
  assert.deepEqual(req.reasoning, { effort: 'low' });
  assert.equal(req.streamUsage, true);
  assert.deepEqual(req.extra, { seed: 7 });
  assert.deepEqual(req.responseFormat, { type: 'json', name: 'p', schema: { type: 'object' } });
  assert.equal(req.from, 'chat');
});

test('encode request: a system message inside the conversation stays at its position; tool results and their images', () => {
  const out = encodeChatRequest(
    hubRequest({
      system: [
        { type: 'text', text: 'A' },
        { type: 'text', text: 'B' },
      ],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Q' }] },
        { role: 'system', content: [{ type: 'text', text: 'Mid.' }] },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'x', signature: 's', origin: 'messages' },
            { type: 'tool-call', id: 't1', name: 'f', input: '{"a":1}' },
          ],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              callId: 't1',
              isError: true,
              content: [
                { type: 'text', text: 'bad' },
                { type: 'file', mediaType: 'image/png', data: { base64: 'AA' } },
              ],
            },
          ],
        },
        { role: 'user', content: [{ type: 'text', text: 'And?' }] },
      ],
      stream: true,
      topK: 3,
      maxOutputTokens: 77,
      stopSequences: ['END'],
    }),
    { ...OPTS, maxTokensField: 'max_completion_tokens' },
  );
  const body = JSON.parse(out.body);
  assert.deepEqual(body.messages, [
    { role: 'system', content: 'A\n\nB' },
    { role: 'user', content: 'Q' },
    { role: 'system', content: 'Mid.' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 't1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
    },
    { role: 'tool', tool_call_id: 't1', content: '[tool error] bad' },
    {
      role: 'user',
      content: [
        { type: 'image_url', image_url: { url: 'data:image/png;base64,AA' } },
        { type: 'text', text: 'And?' },
      ],
    },
  ]);
  assert.equal(body.max_completion_tokens, 77);
  assert.equal('max_tokens' in body, false);
  assert.deepEqual(body.stream_options, { include_usage: true });
  assert.deepEqual(body.stop, ['END']);
  assert.deepEqual(out.adjustments, ['tool_result images moved to a user message', 'top_k dropped']);
  assert.deepEqual(out.replyState, { stopSequences: ['END'] });
});

test('encode request: refused parameters are left out and named', () => {
  const out = encodeChatRequest(hubRequest({ temperature: 0.2, topP: 0.9, reasoning: { effort: 'high' } }), {
    ...OPTS,
    refusedParams: ['temperature', 'reasoning_effort'],
  });
  const body = JSON.parse(out.body);
  assert.equal(body.temperature, undefined);
  assert.equal(body.reasoning_effort, undefined);
  assert.equal(body.top_p, 0.9);
  assert.deepEqual(out.adjustments, [
    "temperature left out: the deployment's model refuses it",
    "reasoning_effort left out: the deployment's model refuses it",
  ]);
});

test('decode reply: reasoning first, text, tool calls as JSON text, cache usage, stop sequence found at the end of the text', () => {
  const reply = decodeChatReply(
    {
      id: 'c',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'done END',
            reasoning: 'think',
            tool_calls: [{ id: 'x', function: { name: 'f', arguments: '{"q":1}' } }],
          },
          finish_reason: 'stop',
        },
      ],
      usage: {
        prompt_tokens: 120,
        completion_tokens: 9,
        prompt_tokens_details: { cached_tokens: 100, cache_write_tokens: 15 },
      },
    },
    { stopSequences: ['END'] },
  );
  assert.deepEqual(reply.content, [
    { type: 'reasoning', text: 'think', origin: 'chat' },
    { type: 'text', text: 'done END' },
    { type: 'tool-call', id: 'x', name: 'f', input: '{"q":1}' },
  ]);
  assert.equal(reply.finish, 'stop-sequence');
  assert.equal(reply.stopSequence, 'END');
  assert.deepEqual(reply.usage, { inputTokens: 5, outputTokens: 9, cacheReadTokens: 100, cacheWriteTokens: 15 });
  assert.equal(reply.usageMissing, undefined);
  assert.equal(decodeChatReply({ choices: [] }, undefined).usageMissing, true);
});

test('encode reply: a chat.completion the schema accepts, with thinking blocks only for Anthropic reasoning', () => {
  const text = encodeChatReply(
    {
      content: [
        { type: 'reasoning', text: 'a', signature: 'sig', origin: 'messages' },
        { type: 'text', text: 'Hello' },
        { type: 'tool-call', id: 't', name: 'f', input: '' },
      ],
      finish: 'tool-calls',
      usage: { inputTokens: 3, outputTokens: 4, cacheReadTokens: 2, cacheWriteTokens: 1 },
    },
    { model: 'claude-x', created: 9, request: hubRequest({}), promptEstimate: () => 0 },
  );
  const out = JSON.parse(text);
  validateChatCompletion(out);
  assert.equal(out.model, 'claude-x');
  assert.deepEqual(out.choices[0].message, {
    role: 'assistant',
    content: 'Hello',
    refusal: null,
    tool_calls: [{ id: 't', type: 'function', function: { name: 'f', arguments: '{}' } }],
    reasoning_content: 'a',
    reasoning_signature: 'sig',
    thinking_blocks: [{ type: 'thinking', thinking: 'a', signature: 'sig' }],
  });
  assert.equal(out.choices[0].finish_reason, 'tool_calls');
  assert.deepEqual(out.usage, {
    prompt_tokens: 6,
    completion_tokens: 4,
    total_tokens: 10,
    prompt_tokens_details: { cached_tokens: 2 },
  });
});

test('decode stream: raw SSE text → start, one block at a time, usage, finish (golden text-then-tools)', () => {
  const events = decodeStream(readFixture('openai-upstream/text-then-tools.sse'));
  assert.deepEqual(
    events.map((e) => e.type),
    [
      'start',
      'text-start',
      'text-delta',
      'text-end',
      'tool-call-start',
      'tool-call-delta',
      'tool-call-delta',
      'tool-call-end',
      'tool-call-start',
      'tool-call-delta',
      'tool-call-end',
      'usage',
      'finish',
    ],
  );
  assert.deepEqual(events[2], { type: 'text-delta', index: 0, text: 'Let me check.', json: '"Let me check."' });
  assert.deepEqual(events[4], { type: 'tool-call-start', index: 1, id: 'call_a', name: 'get_weather' });
  assert.deepEqual(events.at(-2), {
    type: 'usage',
    usage: { inputTokens: 40, outputTokens: 33, cacheReadTokens: 100, cacheWriteTokens: 0 },
  });
  assert.deepEqual(events.at(-1), { type: 'finish', reason: 'tool-calls' });
});

test('decode stream: interleaved parallel calls come out one block at a time, none lost', () => {
  const events = decodeStream(readFixture('openai-upstream/interleaved-parallel.sse'));
  let open = -1;
  const inputs = new Map<number, string>();
  for (const e of events) {
    if (e.type === 'tool-call-start') {
      assert.equal(open, -1, 'a block starts only after the previous ended');
      open = e.index;
      inputs.set(e.index, '');
    } else if (e.type === 'tool-call-delta') {
      assert.equal(e.index, open);
      inputs.set(e.index, (inputs.get(e.index) ?? '') + e.input);
    } else if (e.type === 'tool-call-end') open = -1;
  }
  assert.ok(inputs.size >= 2);
  for (const input of inputs.values()) assert.doesNotThrow(() => JSON.parse(input), input);
});

test('decode stream: an error chunk is an error event from chat; a stream cut before its finish is one too', () => {
  const err = decodeStream(
    'data: {"error":{"message":"slow down","type":"rate_limit_error","code":"rate_limit_exceeded"}}\n\n',
  );
  assert.deepEqual(err, [
    {
      type: 'error',
      status: 429,
      errorType: 'rate_limit_error',
      message: 'slow down',
      code: 'rate_limit_exceeded',
      from: 'chat',
    },
  ]);
  const cut = decodeStream('data: {"choices":[{"index":0,"delta":{"content":"Hel"}}]}\n\n');
  assert.equal(cut.at(-1)?.type, 'error');
  assert.equal((cut.at(-1) as { status: number }).status, 502);
});

test('encode stream: hub events → chunks the schema accepts; usage chunk when asked; error chunk then [DONE]', () => {
  const enc = new ChatStreamEncoder({
    model: 'claude-x',
    created: 5,
    request: hubRequest({ streamUsage: true }),
    promptEstimate: () => 0,
  });
  const events: HubEvent[] = [
    { type: 'start' },
    { type: 'reasoning-start', index: 0 },
    { type: 'reasoning-delta', index: 0, text: 'hm' },
    { type: 'reasoning-signature', index: 0, signature: 'S' },
    { type: 'reasoning-end', index: 0 },
    { type: 'text-start', index: 1 },
    { type: 'text-delta', index: 1, text: 'Hi', json: '"Hi"' },
    { type: 'text-delta', index: 1, text: 'a "quote"' },
    { type: 'text-end', index: 1 },
    { type: 'tool-call-start', index: 2, id: 't', name: 'f' },
    { type: 'tool-call-end', index: 2 },
    { type: 'usage', usage: { inputTokens: 1, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 } },
    { type: 'finish', reason: 'tool-calls' },
  ];
  const text = events.map((e) => enc.push(e)).join('');
  const chunks = parseSseText(text)
    .filter((e) => e.data !== '[DONE]')
    .map((e) => JSON.parse(e.data));
  for (const c of chunks) validateChatCompletionChunk(c);
  const deltas = chunks.flatMap((c) => c.choices.map((ch: { delta: unknown }) => ch.delta));
  assert.deepEqual(deltas, [
    { role: 'assistant', content: '', refusal: null },
    { reasoning_content: 'hm' },
    { reasoning_signature: 'S' },
    { content: 'Hi' },
    { content: 'a "quote"' },
    { tool_calls: [{ index: 0, id: 't', type: 'function', function: { name: 'f', arguments: '' } }] },
    { tool_calls: [{ index: 0, function: { arguments: '{}' } }] },
    { thinking_blocks: [{ type: 'thinking', thinking: 'hm', signature: 'S' }] },
    {},
  ]);
  assert.equal(chunks.at(-2).choices[0].finish_reason, 'tool_calls');
  assert.deepEqual(chunks.at(-1).usage, {
    prompt_tokens: 1,
    completion_tokens: 2,
    total_tokens: 3,
    prompt_tokens_details: { cached_tokens: 0 },
  });
  assert.ok(text.endsWith('data: [DONE]\n\n'));
  const failed = new ChatStreamEncoder({
    model: 'm',
    created: 5,
    request: hubRequest({}),
    promptEstimate: () => 0,
  }).push({ type: 'error', status: 529, errorType: 'overloaded_error', message: 'busy', from: 'messages' });
  assert.equal(
    failed,
    'data: {"error":{"message":"busy","type":"server_error","param":null,"code":"overloaded_error"}}\n\ndata: [DONE]\n\n',
  );
});

// The Converse client face without the network: a Converse body read into the hub's request (tool results
// apart from the user's text, cache points on the part before them, what the gateway cannot carry refused
// by name), the Messages body it becomes, a whole reply and a stream written back in Converse's shapes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeConverseRequest } from '../../../src/dialects/bedrock-converse/decode-request.ts';
import { encodeConverseReply } from '../../../src/dialects/bedrock-converse/encode-reply.ts';
import { ConverseStreamEncoder } from '../../../src/dialects/bedrock-converse/encode-stream.ts';
import { converseClient } from '../../../src/dialects/bedrock-converse/index.ts';
import { clientAsMessages } from '../../../src/translate/client-over-messages.ts';
import { startsHttp2 } from '../../../src/http/http2.ts';
import { SseDecoder } from '../../../src/core/sse.ts';
import { TranslationError } from '../../../src/spec/translation-error.ts';
import type { ClientReplyContext } from '../../../src/spec/codec.ts';

const CTX = { model: 'm', created: 0, request: undefined, promptEstimate: () => 0 } as unknown as ClientReplyContext;

test('a Converse body: system, turns, a tool result beside text, cache points, inference settings', () => {
  const req = decodeConverseRequest(
    {
      system: [{ text: 'Be brief.' }, { cachePoint: { type: 'default' } }],
      messages: [
        { role: 'user', content: [{ text: 'Weather?' }] },
        { role: 'assistant', content: [{ toolUse: { toolUseId: 't1', name: 'w', input: { city: 'Oslo' } } }] },
        {
          role: 'user',
          content: [
            { toolResult: { toolUseId: 't1', content: [{ json: { f: 'sun' } }], status: 'error' } },
            { text: 'thanks' },
          ],
        },
      ],
      inferenceConfig: { maxTokens: 100, temperature: 0.5, stopSequences: ['END'] },
      toolConfig: {
        tools: [{ toolSpec: { name: 'w', inputSchema: { json: { type: 'object' } } } }],
        toolChoice: { any: {} },
      },
      additionalModelRequestFields: { top_k: 5, thinking: { type: 'enabled', budget_tokens: 1024 } },
    },
    { stream: true },
  );
  assert.deepEqual(req.system, [{ type: 'text', text: 'Be brief.', cache: { type: 'ephemeral' } }]);
  assert.deepEqual(
    req.messages.map((m) => m.role),
    ['user', 'assistant', 'tool', 'user'],
  );
  const tool = req.messages[2];
  assert.equal(tool.role === 'tool' && tool.content[0].isError, true);
  assert.equal(
    tool.role === 'tool' && tool.content[0].content[0].type === 'text' && tool.content[0].content[0].text,
    '{"f":"sun"}',
  );
  assert.equal(req.maxOutputTokens, 100);
  assert.equal(req.temperature, 0.5);
  assert.deepEqual(req.stopSequences, ['END']);
  assert.deepEqual(req.toolChoice, { type: 'required' });
  assert.equal(req.topK, 5);
  assert.deepEqual(req.reasoning, { budgetTokens: 1024 });
  assert.equal(req.stream, true);
});

test('what the gateway cannot carry is refused by name, never dropped', () => {
  const base = { messages: [{ role: 'user', content: [{ text: 'hi' }] }] };
  for (const [body, param] of [
    [{ ...base, guardrailConfig: {} }, 'guardrailConfig'],
    [{ ...base, additionalModelRequestFields: { foo: 1 } }, 'additionalModelRequestFields.foo'],
    [{ messages: [{ role: 'user', content: [{ video: {} }] }] }, 'messages[0].content[0]'],
    [
      { messages: [{ role: 'user', content: [{ image: { format: 'png', source: { s3Location: {} } } }] }] },
      'messages[0].content[0].image.source',
    ],
  ] as const) {
    assert.throws(
      () => decodeConverseRequest(body as Record<string, unknown>),
      (err: unknown) => err instanceof TranslationError && err.param === param,
      param,
    );
  }
});

test('the Messages body names the gateway model and says what it left out', () => {
  const out = clientAsMessages(
    converseClient,
    { messages: [{ role: 'user', content: [{ text: 'hi' }] }], requestMetadata: { team: 'a' } },
    { model: 'claude-x', stream: false, defaultMaxTokens: 4096 },
  );
  assert.equal(out.body.model, 'claude-x');
  assert.equal(out.body.max_tokens, 4096);
  assert.deepEqual(out.body.messages, [{ role: 'user', content: 'hi' }]);
  assert.ok(out.adjusted.some((a) => a.includes('requestMetadata')));
  assert.deepEqual(out.forward, { 'anthropic-version': '2023-06-01' });
});

test("a whole reply in Converse's shape: blocks, stop reason, usage with its total, latency", () => {
  const text = encodeConverseReply(
    {
      content: [
        { type: 'reasoning', text: 'hmm', signature: 'sig' },
        { type: 'text', text: 'Calling.' },
        { type: 'tool-call', id: 't1', name: 'w', input: '{"city":"Oslo"}' },
      ],
      finish: 'tool-calls',
      usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 2, cacheWriteTokens: 0 },
    },
    { ...CTX, latencyMs: () => 42 },
  );
  assert.deepEqual(JSON.parse(text), {
    output: {
      message: {
        role: 'assistant',
        content: [
          { reasoningContent: { reasoningText: { text: 'hmm', signature: 'sig' } } },
          { text: 'Calling.' },
          { toolUse: { toolUseId: 't1', name: 'w', input: { city: 'Oslo' } } },
        ],
      },
    },
    stopReason: 'tool_use',
    usage: { inputTokens: 10, outputTokens: 5, totalTokens: 17, cacheReadInputTokens: 2 },
    metrics: { latencyMs: 42 },
  });
});

test('a stream in ConverseStream order: messageStart, blocks by index, messageStop, then metadata', () => {
  const enc = new ConverseStreamEncoder({ ...CTX, latencyMs: () => 7 });
  let sse = '';
  for (const ev of [
    { type: 'start' },
    { type: 'text-start', index: 0 },
    { type: 'text-delta', index: 0, text: 'Hi' },
    { type: 'text-end', index: 0 },
    { type: 'tool-call-start', index: 1, id: 't1', name: 'w' },
    { type: 'tool-call-delta', index: 1, input: '{"a":1}' },
    { type: 'tool-call-end', index: 1 },
    { type: 'usage', usage: { inputTokens: 3, outputTokens: 4, cacheReadTokens: 0, cacheWriteTokens: 0 } },
    { type: 'finish', reason: 'tool-calls' },
  ] as const)
    sse += enc.push(ev);
  const events = new SseDecoder().push(sse).map((e) => [e.event, JSON.parse(e.data)]);
  assert.deepEqual(events, [
    ['messageStart', { role: 'assistant' }],
    ['contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hi' } }],
    ['contentBlockStop', { contentBlockIndex: 0 }],
    ['contentBlockStart', { contentBlockIndex: 1, start: { toolUse: { toolUseId: 't1', name: 'w' } } }],
    ['contentBlockDelta', { contentBlockIndex: 1, delta: { toolUse: { input: '{"a":1}' } } }],
    ['contentBlockStop', { contentBlockIndex: 1 }],
    ['messageStop', { stopReason: 'tool_use' }],
    ['metadata', { usage: { inputTokens: 3, outputTokens: 4, totalTokens: 7 }, metrics: { latencyMs: 7 } }],
  ]);
});

test('the HTTP/2 preface is told from every HTTP/1.1 request line', () => {
  assert.equal(startsHttp2(Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n')), true);
  assert.equal(startsHttp2(Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x12\x04')), true);
  assert.equal(startsHttp2(Buffer.from('PRI ')), true);
  assert.equal(startsHttp2(Buffer.from('POST /v1/chat/completions HTTP/1.1\r\n')), false);
  assert.equal(startsHttp2(Buffer.from('PUT / HTTP/1.1\r\n')), false);
  assert.equal(startsHttp2(Buffer.from('PR')), false);
});

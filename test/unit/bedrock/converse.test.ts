import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bedrockErrorStatus, bedrockErrorType } from '../../../src/providers/bedrock/converse-errors.ts';
import { decodeConverseReply } from '../../../src/providers/bedrock/converse-reply.ts';
import { encodeConverseRequest } from '../../../src/providers/bedrock/converse-request.ts';
import { ConverseStreamDecoder } from '../../../src/providers/bedrock/converse-stream.ts';
import { EventStreamDecoder, encodeEvent, encodeException } from '../../../src/providers/aws/event-stream.ts';
import type { HubRequest } from '../../../src/spec/form.ts';
import { TranslationError } from '../../../src/spec/translation-error.ts';

const opts = { upstreamModel: 'us.anthropic.claude-sonnet-4-6', defaultMaxTokens: 4096, refusedParams: [] };

function request(over: Partial<HubRequest>): HubRequest {
  return { system: [], messages: [], tools: [], stream: false, extra: {}, from: 'chat', ...over };
}

test('a tool round trip encodes as Converse turns, tools and inference settings', () => {
  const enc = encodeConverseRequest(
    request({
      system: [{ type: 'text', text: 'Be brief.', cache: { type: 'ephemeral' } }],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Weather in Paris?' },
            { type: 'file', mediaType: 'image/png', data: { base64: 'iVBO' } },
          ],
        },
        { role: 'assistant', content: [{ type: 'tool-call', id: 'tu_1', name: 'weather', input: '{"city":"Paris"}' }] },
        { role: 'tool', content: [{ type: 'tool-result', callId: 'tu_1', content: [{ type: 'text', text: '18C' }] }] },
        { role: 'user', content: [{ type: 'text', text: 'Thanks' }] },
      ],
      tools: [
        {
          name: 'weather',
          description: 'Weather now',
          kind: 'function',
          inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
        },
      ],
      toolChoice: { type: 'required' },
      maxOutputTokens: 100,
      temperature: 0.2,
      topP: 0.9,
      topK: 40,
      stopSequences: ['END'],
    }),
    opts,
  );
  assert.deepEqual(JSON.parse(enc.body), {
    messages: [
      {
        role: 'user',
        content: [{ text: 'Weather in Paris?' }, { image: { format: 'png', source: { bytes: 'iVBO' } } }],
      },
      { role: 'assistant', content: [{ toolUse: { toolUseId: 'tu_1', name: 'weather', input: { city: 'Paris' } } }] },
      // The tool result and the next user message are one user turn: Converse wants roles in turn.
      {
        role: 'user',
        content: [{ toolResult: { toolUseId: 'tu_1', content: [{ text: '18C' }] } }, { text: 'Thanks' }],
      },
    ],
    system: [{ text: 'Be brief.' }, { cachePoint: { type: 'default' } }],
    inferenceConfig: { maxTokens: 100, temperature: 0.2, topP: 0.9, stopSequences: ['END'] },
    additionalModelRequestFields: { top_k: 40 },
    toolConfig: {
      tools: [
        {
          toolSpec: {
            name: 'weather',
            description: 'Weather now',
            inputSchema: { json: { type: 'object', properties: { city: { type: 'string' } } } },
          },
        },
      ],
      toolChoice: { any: {} },
    },
  });
  assert.deepEqual(enc.adjustments, []);
});

test('what Converse cannot carry is named or refused', () => {
  const enc = encodeConverseRequest(
    request({
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      responseFormat: { type: 'json' },
      extra: { logit_bias: {} },
    }),
    opts,
  );
  assert.equal(JSON.parse(enc.body).inferenceConfig.maxTokens, 4096);
  assert.deepEqual(enc.adjustments, [
    'response_format left out: Converse has no JSON mode',
    'logit_bias left out: Converse has no field for it',
  ]);
  assert.throws(
    () =>
      encodeConverseRequest(
        request({
          messages: [
            { role: 'user', content: [{ type: 'file', mediaType: 'image/png', data: { url: 'https://x/y.png' } }] },
          ],
        }),
        opts,
      ),
    (e: unknown) => e instanceof TranslationError && e.param === 'messages[0].content[0]',
  );
});

test('a whole Converse reply folds to text, a tool call, the stop reason and cache usage', () => {
  const reply = decodeConverseReply({
    output: {
      message: {
        role: 'assistant',
        content: [{ text: 'Checking.' }, { toolUse: { toolUseId: 'tu_9', name: 'weather', input: { city: 'Oslo' } } }],
      },
    },
    stopReason: 'tool_use',
    usage: { inputTokens: 12, outputTokens: 7, totalTokens: 29, cacheReadInputTokens: 8, cacheWriteInputTokens: 2 },
  });
  assert.equal(reply.finish, 'tool-calls');
  assert.deepEqual(reply.content, [
    { type: 'text', text: 'Checking.' },
    { type: 'tool-call', id: 'tu_9', name: 'weather', input: '{"city":"Oslo"}' },
  ]);
  assert.deepEqual(
    {
      i: reply.usage.inputTokens,
      o: reply.usage.outputTokens,
      r: reply.usage.cacheReadTokens,
      w: reply.usage.cacheWriteTokens,
    },
    { i: 12, o: 7, r: 8, w: 2 },
  );
});

test('a ConverseStream event sequence in the binary framing decodes to hub events, finishing after metadata', () => {
  const wire = Buffer.concat([
    encodeEvent('messageStart', { role: 'assistant' }),
    encodeEvent('contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { text: 'hmm' } } }),
    encodeEvent('contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { signature: 'sig' } } }),
    encodeEvent('contentBlockStop', { contentBlockIndex: 0 }),
    encodeEvent('contentBlockDelta', { contentBlockIndex: 1, delta: { text: 'Hel' } }),
    encodeEvent('contentBlockDelta', { contentBlockIndex: 1, delta: { text: 'lo' } }),
    encodeEvent('contentBlockStop', { contentBlockIndex: 1 }),
    encodeEvent('contentBlockStart', { contentBlockIndex: 2, start: { toolUse: { toolUseId: 'tu_1', name: 'sh' } } }),
    encodeEvent('contentBlockDelta', { contentBlockIndex: 2, delta: { toolUse: { input: '{"cmd":' } } }),
    encodeEvent('contentBlockDelta', { contentBlockIndex: 2, delta: { toolUse: { input: '"ls"}' } } }),
    encodeEvent('contentBlockStop', { contentBlockIndex: 2 }),
    encodeEvent('messageStop', { stopReason: 'tool_use' }),
    encodeEvent('metadata', {
      usage: { inputTokens: 5, outputTokens: 9, totalTokens: 14 },
      metrics: { latencyMs: 10 },
    }),
  ]);
  const frames = new EventStreamDecoder();
  const d = new ConverseStreamDecoder();
  const events = [];
  for (let i = 0; i < wire.length; i += 5)
    for (const f of frames.push(wire.subarray(i, i + 5))) events.push(...d.push(f));
  events.push(...d.end());
  assert.deepEqual(events, [
    { type: 'start' },
    { type: 'reasoning-start', index: 0 },
    { type: 'reasoning-delta', index: 0, text: 'hmm' },
    { type: 'reasoning-signature', index: 0, signature: 'sig' },
    { type: 'reasoning-end', index: 0 },
    { type: 'text-start', index: 1 },
    { type: 'text-delta', index: 1, text: 'Hel' },
    { type: 'text-delta', index: 1, text: 'lo' },
    { type: 'text-end', index: 1 },
    { type: 'tool-call-start', index: 2, id: 'tu_1', name: 'sh' },
    { type: 'tool-call-delta', index: 2, input: '{"cmd":' },
    { type: 'tool-call-delta', index: 2, input: '"ls"}' },
    { type: 'tool-call-end', index: 2 },
    { type: 'usage', usage: { inputTokens: 5, outputTokens: 9, cacheReadTokens: 0, cacheWriteTokens: 0 } },
    { type: 'finish', reason: 'tool-calls' },
  ]);
});

test('a mid-stream exception ends the stream as an error with its status; a cut stream is an error', () => {
  const frames = new EventStreamDecoder();
  const d = new ConverseStreamDecoder();
  const events = [];
  for (const f of frames.push(
    Buffer.concat([
      encodeEvent('messageStart', { role: 'assistant' }),
      encodeException('ThrottlingException', 'Too many tokens'),
    ]),
  ))
    events.push(...d.push(f));
  assert.deepEqual(events.at(-1), {
    type: 'error',
    status: 429,
    errorType: 'ThrottlingException',
    message: 'Too many tokens',
  });
  const cut = new ConverseStreamDecoder();
  cut.push({ event: 'messageStart', data: '{"role":"assistant"}' });
  assert.equal(cut.end().at(-1)?.type, 'error');
});

test('Bedrock error types map to the statuses the gateway classifies by', () => {
  assert.equal(bedrockErrorStatus('ThrottlingException'), 429);
  assert.equal(bedrockErrorStatus('ValidationException'), 400);
  assert.equal(bedrockErrorStatus('ModelNotReadyException'), 503);
  assert.equal(bedrockErrorStatus('ServiceUnavailableException'), 503);
  assert.equal(bedrockErrorStatus('com.amazon.bedrock#ThrottlingException'), 429);
  assert.equal(bedrockErrorType('ValidationException:http://internal.amazon.com/coral/'), 'ValidationException');
  assert.equal(bedrockErrorStatus('SomethingNew'), 500);
});

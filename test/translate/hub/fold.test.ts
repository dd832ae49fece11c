// A whole reply is the fold of its stream's events: the fold itself, each upstream's stream folded
// against the same reply sent whole, and the stream translator's bill.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SseDecoder } from '../../../src/core/sse.ts';
import { foldEvents } from '../../../src/spec/fold.ts';
import { HubStreamTranslator } from '../../../src/translate/hub/stream-translator.ts';
import type { HubEvent } from '../../../src/spec/events.ts';
import type { UpstreamStreamDecoder } from '../../../src/spec/codec.ts';
import { MessagesStreamDecoder } from '../../../src/dialects/anthropic-messages/decode-stream.ts';
import { decodeMessagesReply } from '../../../src/dialects/anthropic-messages/decode-reply.ts';
import { ChatStreamDecoder } from '../../../src/dialects/openai-chat/decode-stream.ts';
import { decodeChatReply } from '../../../src/dialects/openai-chat/decode-reply.ts';
import { routeFor } from '../../../src/translate/exchange-for.ts';
import { upstreamDialectFor } from '../../../src/registry.ts';
import { readFixture } from '../golden.ts';

function decode(decoder: UpstreamStreamDecoder, text: string): HubEvent[] {
  const sse = new SseDecoder();
  const out: HubEvent[] = [];
  for (const ev of [...sse.push(text), ...sse.end()]) out.push(...decoder.push(ev));
  return [...out, ...decoder.end()];
}

test('fold: parts in block order, deltas joined, signature kept, last usage and the finish', () => {
  const reply = foldEvents([
    { type: 'start', id: 'r1' },
    { type: 'reasoning-start', index: 0 },
    { type: 'reasoning-delta', index: 0, text: 'a' },
    { type: 'reasoning-delta', index: 0, text: 'b' },
    { type: 'reasoning-signature', index: 0, signature: 'S' },
    { type: 'reasoning-end', index: 0 },
    { type: 'text-start', index: 1 },
    { type: 'text-delta', index: 1, text: 'Hel' },
    { type: 'text-delta', index: 1, text: 'lo', json: '"lo"' },
    { type: 'text-end', index: 1 },
    { type: 'tool-call-start', index: 2, id: 't', name: 'f' },
    { type: 'tool-call-delta', index: 2, input: '{"a"' },
    { type: 'tool-call-delta', index: 2, input: ':1}' },
    { type: 'tool-call-end', index: 2 },
    {
      type: 'usage',
      usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
      partial: true,
    },
    { type: 'usage', usage: { inputTokens: 1, outputTokens: 9, cacheReadTokens: 0, cacheWriteTokens: 0 } },
    { type: 'finish', reason: 'tool-calls' },
    { type: 'text-delta', index: 1, text: 'after the end' },
  ]);
  assert.deepEqual(reply, {
    id: 'r1',
    content: [
      { type: 'reasoning', text: 'ab', signature: 'S' },
      { type: 'text', text: 'Hello' },
      { type: 'tool-call', id: 't', name: 'f', input: '{"a":1}' },
    ],
    finish: 'tool-calls',
    usage: { inputTokens: 1, outputTokens: 9, cacheReadTokens: 0, cacheWriteTokens: 0 },
  });
  assert.equal(foldEvents([{ type: 'start' }, { type: 'finish', reason: 'stop' }]).usageMissing, true);
});

test('an Anthropic stream folds to what the same Message decodes to whole', () => {
  const streamed = foldEvents(
    decode(new MessagesStreamDecoder({ jsonMode: null }), readFixture('anthropic-upstream/thinking.sse')),
    'messages',
  );
  const whole = decodeMessagesReply(
    {
      id: 'msg_up3',
      content: [
        { type: 'thinking', thinking: '2+2 is 4.', signature: 'EqQBsig' },
        { type: 'text', text: '4' },
      ],
      stop_reason: 'max_tokens',
      usage: { input_tokens: 10, output_tokens: 20 },
    },
    { jsonMode: null },
  );
  assert.deepEqual(streamed.content, whole.content);
  assert.equal(streamed.finish, whole.finish);
  assert.deepEqual(streamed.usage, whole.usage);
});

test('a chat stream with parallel tools folds to what the same completion decodes to whole', () => {
  const streamed = foldEvents(
    decode(new ChatStreamDecoder({ stopSequences: undefined }), readFixture('openai-upstream/text-then-tools.sse')),
    'chat',
  );
  const whole = decodeChatReply(
    {
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Let me check.',
            tool_calls: [
              { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
              { id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '{}' } },
            ],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 140, completion_tokens: 33, prompt_tokens_details: { cached_tokens: 100 } },
    },
    undefined,
  );
  assert.deepEqual(streamed.content, whole.content);
  assert.equal(streamed.finish, whole.finish);
  assert.deepEqual(streamed.usage, whole.usage);
});

test('the stream translator bills the upstream figures, what was delivered when a stream is cut, and passes the bill before finish', () => {
  const seen: HubEvent[] = [];
  const scripted = (events: HubEvent[]): UpstreamStreamDecoder => ({ push: () => events.splice(0), end: () => [] });
  const t = new HubStreamTranslator({
    decoder: scripted([
      { type: 'start' },
      {
        type: 'usage',
        usage: { inputTokens: 7, outputTokens: 1, cacheReadTokens: 2, cacheWriteTokens: 3 },
        partial: true,
      },
      { type: 'text-start', index: 0 },
      { type: 'text-delta', index: 0, text: 'x'.repeat(40) },
    ]),
    encoder: { push: (ev) => (seen.push(ev), '') },
    promptEstimate: () => 99,
  });
  t.push({ event: undefined, data: 'x' });
  assert.deepEqual(
    t.usage,
    { inputTokens: 7, outputTokens: 10, cacheReadTokens: 2, cacheWriteTokens: 3 },
    'a partial count yields to what was delivered',
  );
  assert.equal(t.finished, false);

  const none = new HubStreamTranslator({
    decoder: scripted([{ type: 'start' }, { type: 'finish', reason: 'stop' }]),
    encoder: { push: (ev) => (seen.push(ev), '') },
    promptEstimate: () => 99,
  });
  seen.length = 0;
  none.push({ event: undefined, data: 'x' });
  assert.deepEqual(
    seen.map((e) => e.type),
    ['start', 'usage', 'finish'],
  );
  assert.deepEqual(
    none.usage,
    { inputTokens: 99, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    'no usage: the prompt estimate',
  );
  assert.equal(none.finished, true);
  assert.equal(none.failed, false);
});

test('the switch: same dialect passes through, every other pair meets in the hub, the mock is always same-dialect', () => {
  const provider = (kind: string, options: unknown) => ({
    name: kind,
    kind,
    baseUrl: 'http://x',
    apiKeys: [],
    headers: {},
    options,
    system: kind,
    inProcess: kind === 'mock',
  });
  const openai = provider('openai', { apis: ['chat', 'embeddings'] });
  const mock = provider('mock', {});
  const anthropic = provider('anthropic', {});
  assert.deepEqual(routeFor('openai', upstreamDialectFor('openai', openai)), {
    kind: 'passthrough',
    upstream: 'openai',
  });
  assert.deepEqual(routeFor('anthropic', upstreamDialectFor('anthropic', mock)), {
    kind: 'passthrough',
    upstream: 'anthropic',
  });
  const hub = routeFor('openai', upstreamDialectFor('openai', anthropic));
  assert.equal(hub.kind, 'hub');
  if (hub.kind === 'hub') assert.deepEqual([hub.client.dialect, hub.side.dialect], ['chat', 'messages']);
  const back = routeFor('anthropic', upstreamDialectFor('anthropic', openai));
  if (back.kind === 'hub') assert.deepEqual([back.client.dialect, back.side.dialect], ['messages', 'chat']);
  else assert.fail('messages → openai goes through the hub');
});

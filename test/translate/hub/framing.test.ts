// A provider's own framing reaches the hub's stream decoders as frames: a binary event stream (here a
// length-prefixed one, the shape of AWS's) is translated as SSE is, across chunk boundaries, and a
// same-dialect stream in such a framing goes through the hub instead of passing through as bytes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chatClient } from '../../../src/dialects/openai-chat/index.ts';
import { messagesUpstream } from '../../../src/dialects/anthropic-messages/index.ts';
import type { Frame, FrameDecoder } from '../../../src/spec/framing.ts';
import { TranslatedExchange } from '../../../src/translate/hub/translated-exchange.ts';
import { routeFor } from '../../../src/translate/exchange-for.ts';

/** Each message: a 4-byte big-endian length, then `{"event":…,"data":…}` as UTF-8 JSON. */
class LengthPrefixedFrames implements FrameDecoder {
  #buf = Buffer.alloc(0);

  push(chunk: Uint8Array): Frame[] {
    this.#buf = Buffer.concat([this.#buf, chunk]);
    const out: Frame[] = [];
    while (this.#buf.length >= 4 && this.#buf.length >= 4 + this.#buf.readUInt32BE(0)) {
      const len = this.#buf.readUInt32BE(0);
      out.push(JSON.parse(this.#buf.subarray(4, 4 + len).toString('utf8')) as Frame);
      this.#buf = this.#buf.subarray(4 + len);
    }
    return out;
  }

  end(): Frame[] {
    return [];
  }
}

function message(event: string, data: unknown): Buffer {
  const body = Buffer.from(JSON.stringify({ event, data: JSON.stringify(data) }));
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length);
  return Buffer.concat([head, body]);
}

test('a binary-framed Anthropic stream is translated for a chat caller, split anywhere', () => {
  const exchange = new TranslatedExchange({
    client: chatClient,
    upstream: messagesUpstream,
    clientDialect: 'openai',
    upstreamDialect: 'anthropic',
    parsed: { model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] },
    model: 'm',
    stream: true,
    promptEstimate: () => 3,
    upstreamOptions: { upstreamModel: 'claude', defaultMaxTokens: 100, refusedParams: [] },
    frames: () => new LengthPrefixedFrames(),
  });
  const wire = Buffer.concat([
    message('message_start', {
      type: 'message_start',
      message: { id: 'msg_1', model: 'claude', usage: { input_tokens: 3, output_tokens: 1 } },
    }),
    message('content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'text', text: '' },
    }),
    message('content_block_delta', {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'text_delta', text: 'Hello there' },
    }),
    message('content_block_stop', { type: 'content_block_stop', index: 0 }),
    message('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn' },
      usage: { output_tokens: 2 },
    }),
    message('message_stop', { type: 'message_stop' }),
  ]);
  const relay = exchange.stream();
  let out = '';
  // Cut into 7-byte chunks: lengths and payloads split across pushes.
  for (let i = 0; i < wire.length; i += 7) out += String(relay.push(wire.subarray(i, i + 7)));
  out += String(relay.end());
  assert.match(out, /"content":"Hello there"/);
  assert.match(out, /"finish_reason":"stop"/);
  assert.match(out, /data: \[DONE\]/);
  assert.equal(relay.finished, true);
  assert.equal(relay.failed, false);
  assert.deepEqual(relay.usage(), { inputTokens: 3, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 });
});

test('same dialect passes through unless its stream must be read through the hub', () => {
  assert.deepEqual(routeFor('anthropic', 'anthropic'), { kind: 'passthrough', upstream: 'anthropic' });
  const hub = routeFor('anthropic', 'anthropic', true);
  assert.equal(hub.kind, 'hub');
  if (hub.kind === 'hub') assert.deepEqual([hub.client.dialect, hub.side.dialect], ['messages', 'messages']);
});

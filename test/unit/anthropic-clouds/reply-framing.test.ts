// Bedrock's reply framing over the /v1/messages relay: each Anthropic SSE event, however the relay's
// output is cut, becomes one event-stream `chunk` carrying its JSON; an error event too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BEDROCK_EVENT_STREAM } from '../../../src/pipeline/reply-framing.ts';
import { EventStreamDecoder, unwrapChunk } from '../../../src/providers/aws/event-stream.ts';
import { GatewayError } from '../../../src/core/errors.ts';
import type { StreamRelay } from '../../../src/spec/exchange.ts';

function fakeRelay(): StreamRelay {
  return {
    push: (chunk) => chunk,
    end: () => 'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    finished: true,
    failed: false,
    usage: () => ({ inputTokens: 1, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 }),
    errorEvent: (err) =>
      `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'api_error', message: err.message } })}\n\n`,
  } as StreamRelay;
}

test('events cut anywhere come out whole, one chunk each, in order', () => {
  const relay = BEDROCK_EVENT_STREAM.wrap(fakeRelay());
  const sse = Buffer.from(
    'event: message_start\ndata: {"type":"message_start"}\n\nevent: ping\ndata: {"type":"ping"}\n\nevent: content_block_delta\ndata: {"type":"content_block_delta","delta":{"text":"hé"}}\n\n',
  );
  const out: Uint8Array[] = [];
  for (let i = 0; i < sse.length; i += 7) out.push(relay.push(sse.subarray(i, i + 7)) as Uint8Array);
  out.push(relay.end() as Uint8Array);
  const frames = new EventStreamDecoder().push(Buffer.concat(out));
  assert.deepEqual(
    frames.map((f) => [f.event, JSON.parse(unwrapChunk(f.data)).type]),
    [
      ['chunk', 'message_start'],
      ['chunk', 'ping'],
      ['chunk', 'content_block_delta'],
      ['chunk', 'message_stop'],
    ],
  );
  assert.equal(JSON.parse(unwrapChunk(frames[2].data)).delta.text, 'hé');
  assert.equal(relay.usage().outputTokens, 2);
  assert.equal(BEDROCK_EVENT_STREAM.contentType, 'application/vnd.amazon.eventstream');
});

test('an in-stream error is an Anthropic error event in a chunk', () => {
  const relay = BEDROCK_EVENT_STREAM.wrap(fakeRelay());
  const bytes = relay.errorEvent(new GatewayError('upstream_error', { message: 'upstream broke' }), 'req_1');
  const [frame] = new EventStreamDecoder().push(bytes as Uint8Array);
  assert.deepEqual(JSON.parse(unwrapChunk(frame.data)), {
    type: 'error',
    error: { type: 'api_error', message: 'upstream broke' },
  });
});

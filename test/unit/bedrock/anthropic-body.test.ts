import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  anthropicFrameOfChunk,
  BEDROCK_ANTHROPIC_VERSION,
  cloudAnthropicBody,
  VERTEX_ANTHROPIC_VERSION,
} from '../../../src/providers/bedrock/anthropic-body.ts';
import { EventStreamDecoder, encodeChunk, encodeEvent } from '../../../src/providers/aws/event-stream.ts';
import { BedrockFrameDecoder } from '../../../src/providers/bedrock/frames.ts';

const body = {
  model: 'claude-sonnet-4-6',
  max_tokens: 100,
  stream: true,
  anthropic_beta: ['context-1m-2025-08-07'],
  messages: [{ role: 'user', content: 'hi' }],
};

test('Bedrock InvokeModel body: no model, no stream, its anthropic_version, betas from header and body', () => {
  assert.deepEqual(
    JSON.parse(
      cloudAnthropicBody(
        body,
        BEDROCK_ANTHROPIC_VERSION,
        'interleaved-thinking-2025-05-14, context-1m-2025-08-07',
        false,
      ),
    ),
    {
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
      anthropic_beta: ['context-1m-2025-08-07', 'interleaved-thinking-2025-05-14'],
    },
  );
});

test('Vertex rawPredict body keeps stream and has its own anthropic_version', () => {
  const out = JSON.parse(
    cloudAnthropicBody(
      { model: 'm', max_tokens: 1, stream: true, messages: [] },
      VERTEX_ANTHROPIC_VERSION,
      undefined,
      true,
    ),
  );
  assert.deepEqual(out, { anthropic_version: 'vertex-2023-10-16', max_tokens: 1, stream: true, messages: [] });
});

test('an InvokeModelWithResponseStream chunk decodes to the Anthropic SSE event it carries', () => {
  const inner = { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hé' } };
  const [f] = new EventStreamDecoder().push(encodeChunk(JSON.stringify(inner)));
  const ev = anthropicFrameOfChunk(f.data);
  assert.equal(ev.event, 'content_block_delta');
  assert.deepEqual(JSON.parse(ev.data), inner);
});

test("Bedrock's framing unwraps InvokeModel chunks and passes Converse events as they are", () => {
  const wire = Buffer.concat([
    encodeChunk('{"type":"message_stop"}'),
    encodeEvent('messageStop', { stopReason: 'end_turn' }),
  ]);
  assert.deepEqual(new BedrockFrameDecoder(true).push(wire), [
    { event: 'message_stop', data: '{"type":"message_stop"}' },
    { event: 'messageStop', data: '{"stopReason":"end_turn"}' },
  ]);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  EventStreamDecoder,
  encodeChunk,
  encodeEvent,
  encodeException,
  unwrapChunk,
} from '../../../src/providers/aws/event-stream.ts';

function concat(parts: Uint8Array[]): Uint8Array {
  return Buffer.concat(parts.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength)));
}

const body = concat([
  encodeEvent('messageStart', { role: 'assistant' }),
  encodeEvent('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'héllo ✓' } }),
  encodeEvent('messageStop', { stopReason: 'end_turn' }),
]);

test('a body cut into chunks of any size decodes to the same messages', () => {
  for (const size of [1, 2, 3, 7, 16, 50, body.length]) {
    const d = new EventStreamDecoder();
    const frames = [];
    for (let i = 0; i < body.length; i += size) frames.push(...d.push(body.subarray(i, i + size)));
    assert.deepEqual(
      frames.map((f) => f.event),
      ['messageStart', 'contentBlockDelta', 'messageStop'],
      `chunk size ${size}`,
    );
    assert.deepEqual(JSON.parse(frames[1].data), { contentBlockIndex: 0, delta: { text: 'héllo ✓' } });
    assert.equal(d.pendingBytes, 0);
  }
});

test('an exception message names its exception type and keeps its message', () => {
  const d = new EventStreamDecoder();
  const [m] = d.pushMessages(encodeException('ThrottlingException', 'Too many requests'));
  assert.equal(m.messageType, 'exception');
  assert.equal(m.type, 'ThrottlingException');
  assert.deepEqual(JSON.parse(m.data), { message: 'Too many requests' });
});

test('a message cut short at the end of the body is held, then dropped', () => {
  const d = new EventStreamDecoder();
  assert.deepEqual(d.push(body.subarray(0, body.length - 3)).length, 2);
  assert.ok(d.pendingBytes > 0);
  assert.deepEqual(d.end(), []);
  assert.equal(d.pendingBytes, 0);
});

test('a corrupt message is refused, not read', () => {
  const bad = Buffer.from(encodeEvent('messageStart', { role: 'assistant' }));
  bad[bad.length - 6] ^= 0xff;
  assert.throws(() => new EventStreamDecoder().push(bad));
  const hugeLength = Buffer.alloc(16);
  hugeLength.writeUInt32BE(0xffffffff, 0);
  assert.throws(() => new EventStreamDecoder().push(hugeLength), /length/);
});

test('an InvokeModel stream chunk carries the model event as base64 JSON', () => {
  const inner = '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}';
  const [f] = new EventStreamDecoder().push(encodeChunk(inner));
  assert.equal(f.event, 'chunk');
  assert.match(f.data, /^\{"bytes":"[A-Za-z0-9+/=]+"\}$/);
  assert.equal(unwrapChunk(f.data), inner);
  assert.throws(() => unwrapChunk('{}'), /no bytes/);
});

// The line splitter shared by the pass-through taps: whole lines out, byte for byte, wherever the
// upstream's chunks are cut.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SseLineBlocks } from '../../src/dialects/sse-line-blocks.ts';

const STREAM = Buffer.from('event: a\ndata: {"t":"héllo €"}\r\n\r\ndata: [DONE]\n\n', 'utf8');

test('every cut of a stream gives back its bytes, in blocks of whole lines', () => {
  for (let cut = 0; cut <= STREAM.length; cut++) {
    const lines = new SseLineBlocks();
    const blocks = [lines.push(STREAM.subarray(0, cut)), lines.push(STREAM.subarray(cut)), lines.end()];
    assert.deepEqual(Buffer.concat(blocks), STREAM, `cut at ${cut}`);
    for (const block of blocks.slice(0, 2))
      if (block.length > 0) assert.equal(block.at(-1), 10, `cut at ${cut}: a block ends a line`);
  }
});

test('a chunk that ends at a line end goes on uncopied; a line cut in three is joined once', () => {
  const lines = new SseLineBlocks();
  const chunk = Buffer.from('data: 1\n\n');
  assert.equal(lines.push(chunk), chunk);
  assert.equal(lines.push(Buffer.from('data: ')).length, 0);
  assert.equal(lines.push(Buffer.from('2')).length, 0);
  assert.equal(lines.push(new Uint8Array(Buffer.from('\n\ndata: 3'))).toString(), 'data: 2\n\n');
  assert.equal(lines.end().toString(), 'data: 3');
  assert.equal(lines.end().length, 0);
});

test('lines ending in a lone CR are whole lines too', () => {
  const lines = new SseLineBlocks();
  assert.equal(lines.push(Buffer.from('data: 1\r\rdata: 2')).toString(), 'data: 1\r\r');
  assert.equal(lines.end().toString(), 'data: 2');
});

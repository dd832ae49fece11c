// Issue 39, item 8: images are estimated by their dimensions through their provider's formula (read from
// the headers of base64 PNG, JPEG, GIF and WebP data), documents by their pages or size: an upper bound
// of what the upstream bills, so a prompt with media cannot beat its reservation many times over.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { imageSize } from '../../src/admission/image-size.ts';
import { estimatePromptTokens, MEDIA_TOKENS } from '../../src/admission/estimate-tokens.ts';

function png(w: number, h: number): string {
  const b = Buffer.alloc(40);
  b.writeUInt32BE(0x89504e47, 0);
  b.writeUInt32BE(0x0d0a1a0a, 4);
  b.writeUInt32BE(13, 8);
  b.write('IHDR', 12, 'latin1');
  b.writeUInt32BE(w, 16);
  b.writeUInt32BE(h, 20);
  return b.toString('base64');
}

function gif(w: number, h: number): string {
  const b = Buffer.alloc(16);
  b.write('GIF89a', 0, 'latin1');
  b.writeUInt16LE(w, 6);
  b.writeUInt16LE(h, 8);
  return b.toString('base64');
}

function jpeg(w: number, h: number): string {
  // SOI, an APP1 segment of 1,000 bytes (metadata before the frame), then SOF0.
  const app = Buffer.alloc(4 + 1000);
  app.writeUInt16BE(0xffe1, 0);
  app.writeUInt16BE(1002, 2);
  const sof = Buffer.alloc(11);
  sof.writeUInt16BE(0xffc0, 0);
  sof.writeUInt16BE(17, 2);
  sof[4] = 8;
  sof.writeUInt16BE(h, 5);
  sof.writeUInt16BE(w, 7);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app, sof, Buffer.alloc(20)]).toString('base64');
}

function webp(w: number, h: number): string {
  const b = Buffer.alloc(32);
  b.write('RIFF', 0, 'latin1');
  b.write('WEBP', 8, 'latin1');
  b.write('VP8X', 12, 'latin1');
  b.writeUIntLE(w - 1, 24, 3);
  b.writeUIntLE(h - 1, 27, 3);
  return b.toString('base64');
}

test('image sizes are read from PNG, GIF, JPEG and WebP headers in base64', () => {
  assert.deepEqual(imageSize(png(2048, 768)), { width: 2048, height: 768 });
  assert.deepEqual(imageSize(gif(300, 200)), { width: 300, height: 200 });
  assert.deepEqual(imageSize(jpeg(1024, 4000)), { width: 1024, height: 4000 });
  assert.deepEqual(imageSize(webp(640, 480)), { width: 640, height: 480 });
  assert.equal(imageSize('AAAA'.repeat(100)), null);
});

const withImage = (model: string, data: string, mime = 'image/png'): Record<string, unknown> => ({
  model,
  messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:${mime};base64,${data}` } }] }],
});
const plain = (model: string): number => estimatePromptTokens({ model, messages: [{ role: 'user', content: [] }] });

test("an image costs what its provider's formula says for its size, and the largest image when the size is unknown", () => {
  // gpt-4o-mini: 2,833 + 5,667 a 512-px tile; 2048 × 768 is 4 × 2 tiles.
  assert.equal(estimatePromptTokens(withImage('gpt-4o-mini', png(2048, 768))) - plain('gpt-4o-mini'), 2833 + 8 * 5667);
  // gpt-4o: 85 + 170 a tile; 1024 × 1024 is brought down to 768 × 768, 2 × 2 tiles.
  assert.equal(
    estimatePromptTokens(withImage('gpt-4o', jpeg(1024, 1024), 'image/jpeg')) - plain('gpt-4o'),
    85 + 4 * 170,
  );
  // Claude: width × height / 750 (the non-OpenAI margin on top), a small image costs little.
  const claude = estimatePromptTokens(withImage('claude-sonnet-4', png(300, 300))) - plain('claude-sonnet-4');
  assert.ok(claude >= 120 && claude <= 150, `${claude}`);
  // gpt-4.1-mini: 32-px patches times 1.62.
  assert.equal(
    estimatePromptTokens(withImage('gpt-4.1-mini', webp(640, 480), 'image/webp')) - plain('gpt-4.1-mini'),
    Math.ceil(20 * 15 * 1.62),
  );
  // A URL: the family's largest image.
  const url = {
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }] }],
  };
  assert.equal(estimatePromptTokens(url) - plain('gpt-4o-mini'), 2833 + 8 * 5667);
  assert.equal(estimatePromptTokens({ ...url, model: 'gpt-4o' }) - plain('gpt-4o'), MEDIA_TOKENS);
});

test('a PDF costs its pages (text and an image each), or its size when its pages cannot be counted', () => {
  const pdf = Buffer.from(
    `%PDF-1.4\n${'1 0 obj << /Type /Page /Parent 2 0 R >> endobj\n'.repeat(12)}2 0 obj << /Type /Pages /Count 12 >> endobj\n`,
  ).toString('base64');
  const doc = (data: string): Record<string, unknown> => ({
    model: 'claude-sonnet-4',
    max_tokens: 10,
    messages: [
      {
        role: 'user',
        content: [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data } }],
      },
    ],
  });
  const base = estimatePromptTokens({ model: 'claude-sonnet-4', messages: [{ role: 'user', content: [] }] });
  assert.equal(estimatePromptTokens(doc(pdf)) - base, Math.ceil(12 * 4600 * 1.2));
  const opaque = Buffer.alloc(60_000, 7).toString('base64');
  assert.ok(estimatePromptTokens(doc(opaque)) - base >= 30_000, 'by size: a byte can be no less than half a token');
});

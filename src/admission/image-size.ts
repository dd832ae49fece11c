// Width and height of an image from the first bytes of its base64 data (PNG, GIF, WebP, JPEG), without
// decoding the image: what a provider's image-token formula needs (media-tokens.ts). Only as much
// base64 as the header needs is decoded; a JPEG's size marker may come after its metadata, so up to
// JPEG_SCAN_BYTES of it are read. Anything unreadable is null (the estimate then takes the worst case).

export interface ImageSize {
  width: number;
  height: number;
}

const JPEG_SCAN_BYTES = 256 * 1024;

/** The decoded bytes of the first `bytes` bytes of a base64 (or base64url) string. */
function head(base64: string, bytes: number): Buffer {
  const chars = Math.min(base64.length, Math.ceil(bytes / 3) * 4);
  return Buffer.from(base64.slice(0, chars), 'base64');
}

export function imageSize(base64: string): ImageSize | null {
  const b = head(base64, 32);
  if (b.length >= 24 && b.readUInt32BE(0) === 0x89504e47 && b.toString('latin1', 12, 16) === 'IHDR') {
    return sized(b.readUInt32BE(16), b.readUInt32BE(20));
  }
  if (b.length >= 10 && b.toString('latin1', 0, 4) === 'GIF8') return sized(b.readUInt16LE(6), b.readUInt16LE(8));
  if (b.length >= 30 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP')
    return webp(head(base64, 30));
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) return jpeg(head(base64, JPEG_SCAN_BYTES));
  return null;
}

function sized(width: number, height: number): ImageSize | null {
  return width > 0 && height > 0 ? { width, height } : null;
}

function webp(b: Buffer): ImageSize | null {
  const chunk = b.toString('latin1', 12, 16);
  if (chunk === 'VP8X') return sized(1 + b.readUIntLE(24, 3), 1 + b.readUIntLE(27, 3));
  if (chunk === 'VP8 ') return sized(b.readUInt16LE(26) & 0x3fff, b.readUInt16LE(28) & 0x3fff);
  if (chunk === 'VP8L') {
    const bits = b.readUInt32LE(21);
    return sized((bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1);
  }
  return null;
}

/** Walks the JPEG's segments to its first start-of-frame marker (SOF0–SOF15 but DHT, JPG and DAC). */
function jpeg(b: Buffer): ImageSize | null {
  let at = 2;
  while (at + 9 < b.length) {
    if (b[at] !== 0xff) return null;
    const marker = b[at + 1];
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    const length = b.readUInt16BE(at + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return sized(b.readUInt16BE(at + 7), b.readUInt16BE(at + 5));
    }
    at += 2 + length;
  }
  return null;
}

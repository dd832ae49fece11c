// Request bodies sent compressed (`Content-Encoding: gzip`, `br`, `zstd`, `deflate`): clients that resend
// long conversations compress them (Codex sends zstd, api.anthropic.com takes gzip), and the gateway
// must read the JSON to route and bill it. The upstream gets the decoded bytes; the decoded size is
// held to the same body limit, so a small bomb cannot inflate past it.
import { promisify } from 'node:util';
import zlib, { type ZlibOptions } from 'node:zlib';
import { GatewayError } from '../core/errors.ts';

type Decode = (buf: Buffer, options: ZlibOptions) => Promise<Buffer>;

const gunzip = promisify(zlib.gunzip) as Decode;
const inflate = promisify(zlib.inflate) as Decode;
const inflateRaw = promisify(zlib.inflateRaw) as Decode;
const brotli = promisify(zlib.brotliDecompress) as Decode;
const zstd = promisify(zlib.zstdDecompress) as Decode;

// HTTP's "deflate" is zlib-wrapped (RFC 9110 §8.4.1.2), but some clients send a raw deflate stream.
const deflate: Decode = (buf, options) => inflate(buf, options).catch((err: unknown) => (isTooLarge(err) ? Promise.reject(err) : inflateRaw(buf, options)));

const DECODERS: Readonly<Record<string, Decode>> = { gzip: gunzip, 'x-gzip': gunzip, deflate, br: brotli, zstd };

const SUPPORTED_ENCODINGS = 'gzip, deflate, br, zstd';

/** `raw` decoded as `header` says (codings applied in order, so undone last to first), within `limitBytes`. */
export async function decodeBody(raw: Buffer, header: string, limitBytes: number): Promise<Buffer> {
  try {
    return await decodeCodings(raw, header, limitBytes);
  } catch (err) {
    if (!(err instanceof CodingError)) throw err;
    if (err.reason === 'unknown') {
      throw new GatewayError('unsupported_media_type', { message: `Content-Encoding ${JSON.stringify(err.coding)} is not supported; send the body uncompressed or as ${SUPPORTED_ENCODINGS}.` });
    }
    if (err.reason === 'too-large') throw new GatewayError('body_too_large', { message: `The request body exceeds the limit of ${Math.round(limitBytes / 1048576)} MB once decoded (${err.coding}).` });
    throw new GatewayError('invalid_request', { message: `The request body is not valid ${err.coding} data, as its Content-Encoding says.` });
  }
}

/**
 * An upstream's compressed error body as text, or null when it cannot be decoded. Upstreams are asked
 * for identity, but a proxy in front of one may compress its error pages anyway, and the caller should
 * read the upstream's reason rather than binary noise.
 */
export async function decodeText(raw: Buffer, header: string, limitBytes: number): Promise<string | null> {
  try {
    return (await decodeCodings(raw, header, limitBytes)).toString('utf8');
  } catch (err) {
    if (err instanceof CodingError) return null;
    throw err;
  }
}

class CodingError extends Error {
  readonly coding: string;
  readonly reason: 'unknown' | 'too-large' | 'corrupt';
  constructor(coding: string, reason: CodingError['reason']) {
    super(`${reason} content coding ${coding}`);
    this.coding = coding;
    this.reason = reason;
  }
}

async function decodeCodings(raw: Buffer, header: string, limitBytes: number): Promise<Buffer> {
  const codings = header.split(',').map((c) => c.trim().toLowerCase()).filter((c) => c !== '' && c !== 'identity');
  let body = raw;
  for (let i = codings.length - 1; i >= 0; i--) {
    const coding = codings[i];
    const decode = Object.hasOwn(DECODERS, coding) ? DECODERS[coding] : undefined;
    if (decode === undefined) throw new CodingError(coding, 'unknown');
    try {
      body = await decode(body, { maxOutputLength: limitBytes });
    } catch (err) {
      throw new CodingError(coding, isTooLarge(err) ? 'too-large' : 'corrupt');
    }
  }
  return body;
}

function isTooLarge(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === 'ERR_BUFFER_TOO_LARGE';
}

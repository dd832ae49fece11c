// Request bodies sent compressed (`Content-Encoding: gzip`, `br`, `zstd`, `deflate`): clients that resend
// long conversations compress them (Codex sends zstd, api.anthropic.com takes gzip), and the gateway
// must read the JSON to route and bill it. The upstream gets the decoded bytes. Each decoder streams
// into the body limit (stopped the moment its output passes it), and all decoders at once share one
// DecodeBudget, so a hundred small bombs cannot multiply memory either.
import type { Transform } from 'node:stream';
import zlib from 'node:zlib';
import { GatewayError } from '../core/errors.ts';
import type { DecodeBudget } from './decode-budget.ts';

const DECODERS: Readonly<Record<string, () => Transform>> = {
  gzip: () => zlib.createGunzip(),
  'x-gzip': () => zlib.createGunzip(),
  deflate: () => zlib.createInflate(),
  br: () => zlib.createBrotliDecompress(),
  zstd: () => zlib.createZstdDecompress(),
};

const SUPPORTED_ENCODINGS = 'gzip, deflate, br, zstd';

/**
 * `raw` decoded as `header` says (codings applied in order, so undone last to first), within
 * `limitBytes`, its output counted against `budget` while it is decoded.
 */
export async function decodeBody(
  raw: Buffer,
  header: string,
  limitBytes: number,
  budget?: DecodeBudget,
): Promise<Buffer> {
  try {
    return await decodeCodings(raw, header, limitBytes, budget);
  } catch (err) {
    if (!(err instanceof CodingError)) throw err;
    if (err.reason === 'busy') {
      throw new GatewayError('decoding_busy', {
        message: `The gateway is decoding ${Math.round((budget?.capacity ?? 0) / 1048576)} MB of compressed request bodies at once, its limit; retry shortly.`,
        headers: { 'retry-after': '1' },
      });
    }
    if (err.reason === 'unknown') {
      throw new GatewayError('unsupported_media_type', {
        message: `Content-Encoding ${JSON.stringify(err.coding)} is not supported; send the body uncompressed or as ${SUPPORTED_ENCODINGS}.`,
      });
    }
    if (err.reason === 'too-large')
      throw new GatewayError('body_too_large', {
        message: `The request body exceeds the limit of ${Math.round(limitBytes / 1048576)} MB once decoded (${err.coding}).`,
      });
    throw new GatewayError('invalid_request', {
      message: `The request body is not valid ${err.coding} data, as its Content-Encoding says.`,
    });
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
  readonly reason: 'unknown' | 'too-large' | 'corrupt' | 'busy';
  constructor(coding: string, reason: CodingError['reason']) {
    super(`${reason} content coding ${coding}`);
    this.coding = coding;
    this.reason = reason;
  }
}

async function decodeCodings(raw: Buffer, header: string, limitBytes: number, budget?: DecodeBudget): Promise<Buffer> {
  const codings = header
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  let body = raw;
  for (let i = codings.length - 1; i >= 0; i--) {
    const coding = codings[i];
    const decoder = Object.hasOwn(DECODERS, coding) ? DECODERS[coding] : undefined;
    if (decoder === undefined) throw new CodingError(coding, 'unknown');
    try {
      body = await decodeOne(body, { decoder, limitBytes, budget });
    } catch (err) {
      // HTTP's "deflate" is zlib-wrapped (RFC 9110 §8.4.1.2), but some clients send a raw deflate stream.
      if (coding !== 'deflate' || (err as CodingError).reason !== 'corrupt') throw withCoding(err, coding);
      body = await decodeOne(body, { decoder: () => zlib.createInflateRaw(), limitBytes, budget }).catch(
        (again: unknown) => {
          throw withCoding(again, coding);
        },
      );
    }
  }
  return body;
}

function withCoding(err: unknown, coding: string): CodingError {
  return new CodingError(coding, err instanceof CodingError ? err.reason : 'corrupt');
}

/**
 * One coding undone as a stream: each output chunk is counted against the limit and the shared budget
 * as it comes, and the decoder is stopped the moment either is passed. What it took from the budget is
 * given back when it ends, whole or not.
 */
function decodeOne(
  input: Buffer,
  o: { decoder: () => Transform; limitBytes: number; budget: DecodeBudget | undefined },
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const stream = o.decoder();
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (err: CodingError | null): void => {
      if (done) return;
      done = true;
      o.budget?.give(size);
      if (err === null) {
        resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
        return;
      }
      chunks.length = 0;
      stream.destroy();
      reject(err);
    };
    stream.on('data', (chunk: Buffer) => {
      if (done) return;
      if (size + chunk.length > o.limitBytes) return finish(new CodingError('', 'too-large'));
      if (o.budget !== undefined && !o.budget.take(chunk.length)) return finish(new CodingError('', 'busy'));
      size += chunk.length;
      chunks.push(chunk);
    });
    stream.on('end', () => finish(null));
    stream.on('error', () => finish(new CodingError('', 'corrupt')));
    stream.end(input);
  });
}

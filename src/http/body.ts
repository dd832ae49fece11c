// Reads a request body up to the configured limit; a larger body is refused before it is buffered.
import type { IncomingMessage } from 'node:http';
import { GatewayError } from '../core/errors.ts';

export function readBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) {
    req.resume();
    return Promise.reject(tooLarge(limitBytes));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer): void => {
      size += c.length;
      if (size > limitBytes) {
        req.off('data', onData);
        req.resume();
        reject(tooLarge(limitBytes));
        return;
      }
      chunks.push(c);
    };
    req.on('data', onData);
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)));
    req.once('error', reject);
  });
}

function tooLarge(limitBytes: number): GatewayError {
  return new GatewayError('body_too_large', { message: `The request body exceeds the limit of ${Math.round(limitBytes / 1048576)} MB.` });
}

export function parseJsonBody(buf: Buffer): { text: string; value: unknown } {
  const text = buf.toString('utf8');
  try {
    return { text, value: JSON.parse(text) };
  } catch (err) {
    throw new GatewayError('invalid_json', { message: `The request body is not valid JSON: ${(err as Error).message}` });
  }
}

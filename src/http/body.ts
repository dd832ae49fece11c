// Reads a request body up to the configured limit; a larger body is refused before it is buffered.
import type { IncomingMessage } from 'node:http';
import { GatewayError } from '../core/errors.ts';
import { decodeBody } from './content-encoding.ts';

/** The request's body, decoded when it came compressed; both sizes are held to `limitBytes`. */
export function readBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const encoding = req.headers['content-encoding'];
  const raw = readRawBody(req, limitBytes);
  return encoding === undefined ? raw : raw.then((body) => decodeBody(body, encoding, limitBytes)).then(withoutBom);
}

/**
 * The body without a UTF-8 byte order mark: RFC 8259 lets a parser ignore one, and files saved by
 * Windows editors (`curl --data-binary @request.json`) start with it. Dropped from the bytes, not only
 * the text, so the upstream does not get it either.
 */
function withoutBom(body: Buffer): Buffer {
  return body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? body.subarray(3) : body;
}

async function readRawBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) {
    req.resume();
    throw tooLarge(limitBytes);
  }
  // The handler runs from the parser's 'request' callback, before the parser has pushed the body that
  // came in the same packet; one microtask later it has. When every byte the content-length promises
  // is then in the stream's buffer, one read() takes it: no flowing mode, 'data' or 'end' events and
  // the latency they add.
  if (declared > 0) {
    await undefined;
    if (req.readableLength === declared && !req.readableDidRead) {
      // read() with no size returns the whole buffer, which holds exactly the declared bytes.
      const whole = req.read() as Buffer | null;
      if (whole !== null) return withoutBom(whole);
    }
  }
  return streamRest(req, limitBytes, [], 0);
}

// Sockets whose request Node itself refused (server.ts's clientError: a timeout answered 408, malformed
// HTTP answered 400), by the error's code: the request then fails as a plain 'aborted' reset, which
// alone would read as the client leaving.
const answeredByNode = new WeakMap<object, string>();

export function markAnsweredByNode(socket: object, code: string): void {
  answeredByNode.set(socket, code);
}

function streamRest(req: IncomingMessage, limitBytes: number, chunks: Buffer[], size: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // Destroyed already (the client left during the microtask above): no 'end' or 'error' will come.
    if (req.destroyed) {
      reject(bodyFailed(req, req.errored));
      return;
    }
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
    req.once('end', () => resolve(withoutBom(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size))));
    req.once('error', (err: Error) => reject(bodyFailed(req, err)));
  });
}

/** Body failures with no answer to send: the client is gone, or Node has answered it (408, 400) itself. */
export function answeredOrGone(err: GatewayError): boolean {
  return err.code === 'client_disconnected' || err.code === 'request_timeout' || err.code === 'malformed_http';
}

/**
 * The request stream failed: the client left (Node's 'aborted' reset), was too slow (Node has answered
 * 408) or sent malformed HTTP (Node has answered 400). Each is the client's doing, not a gateway error.
 */
function bodyFailed(req: IncomingMessage, err: Error | null): GatewayError {
  const code = answeredByNode.get(req.socket) ?? (err as NodeJS.ErrnoException | null)?.code;
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return new GatewayError('request_timeout', { cause: err });
  // HPE_INVALID_EOF_STATE: the connection ended mid-request, which is the client leaving.
  if (typeof code === 'string' && code.startsWith('HPE_') && code !== 'HPE_INVALID_EOF_STATE') {
    return new GatewayError('malformed_http', { message: `The request body is not valid HTTP (${code}).`, cause: err });
  }
  return new GatewayError('client_disconnected', { message: 'The client closed the connection before its request body was complete.', cause: err });
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

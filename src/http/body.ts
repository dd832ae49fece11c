// Reads a request body up to the configured limit; a larger body is refused before it is buffered.
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { GatewayError } from '../core/errors.ts';
import { decodeBody } from './content-encoding.ts';
import type { DecodeBudget } from './decode-budget.ts';
import { MAX_REQUEST_DEPTH, nestedDeeperThan } from '../core/json.ts';

/** What a request body is held to; built once at boot. */
export interface BodyLimits {
  /** The body's size, as sent and once decoded. */
  bytes: number;
  /**
   * A body that is still arriving must bring at least PROGRESS_BYTES (or its end) within this long, or it
   * is refused with a 408: a trickled body must not hold a connection for the whole request timeout.
   */
  progressMs?: number;
  /**
   * Shared by every body being read or decoded at once, plain or compressed (decode-budget.ts): past it a
   * request gets 503 with retry-after instead of the process growing with every large body in flight.
   */
  decoding?: DecodeBudget;
}

/** Bytes a slow body must bring within each `progressMs`. */
export const PROGRESS_BYTES = 1024;

/**
 * The body costs memory or time to read: compressed, chunked (no declared length) or declared at 100 kB
 * or more. Such a request's key is checked against its rights and limits before the body is read.
 * Header reads and a string length only: the common small request pays nothing more.
 */
export function costlyBody(headers: IncomingHttpHeaders): boolean {
  if (headers['content-encoding'] !== undefined) return true;
  const length = headers['content-length'];
  return length === undefined ? headers['transfer-encoding'] !== undefined : length.length > 5;
}

/** Bytes of an arriving body handed to a `head` check before the rest is read. */
export const HEAD_BYTES = 8192;

/**
 * The request's body, decoded when it came compressed; both sizes are held to `limits.bytes`. `head`, for
 * an uncompressed body that does not arrive whole with its headers, sees its first HEAD_BYTES (or all of
 * it, when shorter) before more is read: a GatewayError it throws refuses the request with the rest unread.
 */
export function readBody(req: IncomingMessage, limits: BodyLimits, head?: (bytes: Buffer) => void): Promise<Buffer> {
  const encoding = req.headers['content-encoding'];
  const raw = readRawBody(req, limits, encoding === undefined ? head : undefined);
  return encoding === undefined
    ? raw
    : raw.then((body) => decodeBody(body, encoding, limits.bytes, limits.decoding)).then(withoutBom);
}

/**
 * The body without a UTF-8 byte order mark: RFC 8259 lets a parser ignore one, and files saved by
 * Windows editors (`curl --data-binary @request.json`) start with it. Dropped from the bytes, not only
 * the text, so the upstream does not get it either.
 */
function withoutBom(body: Buffer): Buffer {
  return body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? body.subarray(3) : body;
}

async function readRawBody(
  req: IncomingMessage,
  limits: BodyLimits,
  head: ((bytes: Buffer) => void) | undefined,
): Promise<Buffer> {
  const limitBytes = limits.bytes;
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
  return streamRest(req, limits, [], 0, head);
}

// Sockets whose request Node itself refused (server.ts's clientError: a timeout answered 408, malformed
// HTTP answered 400), by the error's code: the request then fails as a plain 'aborted' reset, which
// alone would read as the client leaving.
const answeredByNode = new WeakMap<object, string>();

export function markAnsweredByNode(socket: object, code: string): void {
  answeredByNode.set(socket, code);
}

function streamRest(
  req: IncomingMessage,
  limits: BodyLimits,
  chunks: Buffer[],
  size: number,
  head: ((bytes: Buffer) => void) | undefined,
): Promise<Buffer> {
  const limitBytes = limits.bytes;
  return new Promise((resolve, reject) => {
    // Destroyed already (the client left during the microtask above): no 'end' or 'error' will come.
    if (req.destroyed) {
      reject(bodyFailed(req, req.errored));
      return;
    }
    // Only bodies that did not come whole with their headers get here, and only they get the clock.
    const progressMs = limits.progressMs ?? 0;
    let unclocked = 0;
    const stalled =
      progressMs > 0
        ? setTimeout(() => {
            req.off('data', onData);
            release();
            reject(
              new GatewayError('body_timeout', {
                message: `The request body stopped arriving: less than ${PROGRESS_BYTES} bytes in ${progressMs} ms.`,
                headers: { connection: 'close' },
              }),
            );
          }, progressMs)
        : null;
    // A body arriving in pieces holds its bytes against the shared budget until it is whole or refused.
    const budget = limits.decoding;
    let held = 0;
    const release = (): void => {
      if (held === 0) return;
      budget?.give(held);
      held = 0;
    };
    const refuse = (err: GatewayError, drain = true): void => {
      req.off('data', onData);
      if (stalled !== null) clearTimeout(stalled);
      release();
      // A refusal on the body's head leaves the rest unread: the answer closes the connection.
      if (drain) req.resume();
      else req.pause();
      reject(err);
    };
    /** Runs the head check once; false when it refused the request. */
    const checkHead = (): boolean => {
      const check = head;
      head = undefined;
      try {
        check?.(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
        return true;
      } catch (err) {
        if (!(err instanceof GatewayError)) throw err;
        refuse(err, false);
        return false;
      }
    };
    const onData = (c: Buffer): void => {
      size += c.length;
      if (size > limitBytes) return refuse(tooLarge(limitBytes));
      if (budget !== undefined) {
        if (!budget.take(c.length)) return refuse(busy(budget));
        held += c.length;
      }
      chunks.push(c);
      unclocked += c.length;
      if (stalled !== null && unclocked >= PROGRESS_BYTES) {
        unclocked = 0;
        stalled.refresh();
      }
      if (head !== undefined && size >= HEAD_BYTES) checkHead();
    };
    req.on('data', onData);
    req.once('end', () => {
      if (head !== undefined && !checkHead()) return;
      if (stalled !== null) clearTimeout(stalled);
      release();
      resolve(withoutBom(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)));
    });
    req.once('error', (err: Error) => {
      if (stalled !== null) clearTimeout(stalled);
      release();
      reject(bodyFailed(req, err));
    });
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
  return new GatewayError('client_disconnected', {
    message: 'The client closed the connection before its request body was complete.',
    cause: err,
  });
}

/** The shared budget is spent: the connection closes rather than read on a body nobody will use. */
function busy(budget: DecodeBudget): GatewayError {
  return new GatewayError('decoding_busy', {
    message: `The gateway is reading ${Math.round(budget.capacity / 1048576)} MB of request bodies at once, its limit; retry shortly.`,
    headers: { 'retry-after': '1', connection: 'close' },
  });
}

function tooLarge(limitBytes: number): GatewayError {
  return new GatewayError('body_too_large', {
    message: `The request body exceeds the limit of ${Math.round(limitBytes / 1048576)} MB.`,
  });
}

/**
 * The body as text and as JSON. A body nested deeper than MAX_REQUEST_DEPTH is refused here, on every
 * path, before any upstream work: re-serialising it would overflow the stack and be mistaken for the
 * upstream's failure.
 */
export function parseJsonBody(buf: Buffer): { text: string; value: unknown } {
  const text = buf.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new GatewayError('invalid_json', {
      message: `The request body is not valid JSON: ${(err as Error).message}`,
    });
  }
  if (nestedDeeperThan(value, MAX_REQUEST_DEPTH)) {
    throw new GatewayError('invalid_request', {
      message: `The request nests objects and arrays more than ${MAX_REQUEST_DEPTH} levels deep.`,
    });
  }
  return { text, value };
}

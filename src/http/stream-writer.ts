// The body of a streamed response. node:http's `res.write` spends more on each write than the event it
// carries (four socket writes — size, CRLF, data, CRLF — gathered by a cork into one writev of mixed
// parts), so once the head is out and the socket serves this response alone, this writer frames each
// HTTP/1.1 chunk itself as one piece and writes it to the socket, corked until the end of the tick so
// that what one turn writes leaves in one system call. Everything else — the first write, an HTTP/1.0
// client (no chunked framing), a response still queued behind another on the connection, the end —
// goes through node:http.
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export class StreamWriter {
  readonly #res: ServerResponse;
  readonly #onDrain: () => void;
  /** Set once chunks may go straight to the socket (see the file's head). */
  #socket: Socket | null = null;
  #corked = false;
  readonly #uncork = (): void => {
    this.#corked = false;
    this.#socket?.uncork();
  };

  /** `onDrain` runs when a write that returned false has been flushed (the caller paused its source). */
  constructor(res: ServerResponse, onDrain: () => void) {
    this.#res = res;
    this.#onDrain = onDrain;
    res.on('drain', onDrain);
  }

  /** Writes one piece of the body (bytes, or UTF-8 text); false when the caller should pause until `onDrain`. */
  write(data: Uint8Array | string): boolean {
    const socket = this.#socket;
    if (socket === null) return this.#throughResponse(data);
    if (socket.destroyed) return false;
    const size = typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
    if (size === 0) return true;
    if (!this.#corked) {
      this.#corked = true;
      socket.cork();
      process.nextTick(this.#uncork);
    }
    const head = size.toString(16);
    return socket.write(typeof data === 'string' ? `${head}\r\n${data}\r\n` : frame(head, data));
  }

  /** Ends the response with a last piece (in the same socket write as what this turn wrote before it). */
  end(data: Uint8Array | string): void {
    this.#res.end(data);
  }

  /** Stops listening for drains (the response is over or abandoned). */
  dispose(): void {
    this.#res.off('drain', this.#onDrain);
    this.#socket?.off('drain', this.#onDrain);
  }

  #throughResponse(data: Uint8Array | string): boolean {
    const res = this.#res;
    const ok = res.write(data);
    // After a write that reached the socket, with nothing of this response queued anywhere but in the
    // socket itself, the chunks that follow can go to the socket directly and stay in order. A response
    // still waiting for its socket (pipelining) has none yet; node:http attaches it when it is its turn.
    if (ok && res.headersSent && framedInChunks(res)) {
      const socket = res.socket;
      if (socket !== null && res.writableLength === socket.writableLength) {
        this.#socket = socket;
        // The socket's own 'drain' follows every write to it that returned false.
        socket.on('drain', this.#onDrain);
      }
    }
    return ok;
  }
}

/**
 * Whether node:http frames this body in chunks: an HTTP/1.1 response with a body and no length of its
 * own is sent chunked (RFC 9112, section 6.3), as node:http does.
 */
function framedInChunks(res: ServerResponse): boolean {
  const req = res.req;
  return (
    req.httpVersion === '1.1' &&
    req.method !== 'HEAD' &&
    res.statusCode === 200 &&
    !res.hasHeader('content-length') &&
    !res.hasHeader('transfer-encoding')
  );
}

/** One HTTP/1.1 chunk: its size line, the bytes and the closing CRLF, in one buffer. */
function frame(head: string, data: Uint8Array): Buffer {
  const start = head.length + 2;
  const out = Buffer.allocUnsafe(start + data.byteLength + 2);
  out.write(head, 0, 'latin1');
  out[start - 2] = 13;
  out[start - 1] = 10;
  out.set(data, start);
  out[out.length - 2] = 13;
  out[out.length - 1] = 10;
  return out;
}

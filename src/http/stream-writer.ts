// The body of a streamed response, written chunk by chunk. node:http's `res.write` spends more on each
// write than the event it carries: it corks the socket and schedules the uncork for the next tick, then
// makes four socket writes (chunk size, CRLF, data, CRLF) that the uncork gathers into one writev, whose
// string parts each have their encoding's name parsed again in C++. Once the headers are out and the
// socket serves this response alone, this writer frames each HTTP/1.1 chunk itself and hands the socket
// one string: one socket write per upstream read (callgrind: ≈ 10,000 fewer instructions an event,
// BENCHMARKS.md). Whatever else — headers not yet sent (they go out with the first chunk), no chunked
// encoding (an HTTP/1.0 client), a pipelined response still queued behind another, a corked response,
// bytes still queued in the response — goes through `res.write`, as does the end.
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export class StreamWriter {
  readonly #res: ServerResponse;
  readonly #onDrain: () => void;
  /** Set once chunks may go straight to the socket (see the file's head). */
  #socket: Socket | null = null;
  #awaitingDrain = false;

  /** `onDrain` runs when a write that returned false has been flushed (the caller paused its source). */
  constructor(res: ServerResponse, onDrain: () => void) {
    this.#res = res;
    this.#onDrain = onDrain;
    res.on('drain', onDrain);
  }

  /** True once chunks go straight to the socket. */
  get direct(): boolean {
    return this.#socket !== null;
  }

  /** Writes one piece of the body; false when the caller should pause until `onDrain`. */
  write(data: Uint8Array | string, encoding: 'utf8' | 'latin1'): boolean {
    const socket = this.#socket;
    if (socket === null) return this.#throughResponse(data, encoding);
    if (socket.destroyed) return false;
    // Bytes go through node:http, which writes them without a copy; see the file's head for strings.
    if (typeof data !== 'string') return this.#res.write(data);
    // A latin1 string is one byte a character: its length is its size on the wire.
    const size = encoding === 'latin1' ? data.length : Buffer.byteLength(data, 'utf8');
    if (size === 0) return true;
    const ok = socket.write(`${size.toString(16)}\r\n${data}\r\n`, encoding);
    if (!ok && !this.#awaitingDrain) {
      this.#awaitingDrain = true;
      socket.once('drain', this.#drained);
    }
    return ok;
  }

  /** Ends the response with a last piece (through node:http, which writes the closing chunk). */
  end(data: Uint8Array | string, encoding: 'utf8' | 'latin1'): void {
    this.#res.end(data, encoding);
  }

  /** Stops listening for drains (the response is over or abandoned). */
  dispose(): void {
    this.#res.off('drain', this.#onDrain);
    if (this.#awaitingDrain) this.#socket?.off('drain', this.#drained);
    this.#awaitingDrain = false;
  }

  readonly #drained = (): void => {
    this.#awaitingDrain = false;
    this.#onDrain();
  };

  #throughResponse(data: Uint8Array | string, encoding: 'utf8' | 'latin1'): boolean {
    const res = this.#res;
    const ok = res.write(data, encoding);
    // After a write that reached the socket, with nothing of this response queued anywhere but in the
    // socket itself, the chunks that follow can go to the socket directly and stay in order. A response
    // still waiting for its socket (pipelining) has none yet; node:http attaches it when it is its turn.
    const socket = res.socket as Socket | null;
    if (ok && res.chunkedEncoding === true && socket !== null && res.headersSent && res.writableCorked === 0 && res.writableLength === socket.writableLength) {
      this.#socket = socket;
    }
    return ok;
  }
}

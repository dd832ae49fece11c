// The body of a streamed response, written chunk by chunk. node:http's `res.write` spends more on each
// write than the event it carries: it corks the socket and schedules an uncork, then makes four socket
// writes (chunk size, CRLF, data, CRLF) that the uncork hands to the socket as one writev of four parts.
// Once the headers are out and the socket serves this response alone, this writer frames each HTTP/1.1
// chunk itself in one string. What a turn of the event loop writes to a response leaves in one socket
// write at the end of that turn (one upstream read often holds several events), through one
// process-wide flush per turn rather than a cork and an uncork per response (writing each chunk at once
// costs a system call each when events come in bursts).
// Everything else — headers not yet sent (they go out with the first chunk), no chunked encoding (an
// HTTP/1.0 client), a pipelined response still queued behind another, bytes rather than text, the end —
// goes through node:http, after whatever this writer holds.
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** Writers holding text for the end of this turn, and whether that flush is scheduled. */
const held: StreamWriter[] = [];
let flushScheduled = false;

function flushHeld(): void {
  flushScheduled = false;
  // A flush writes synchronously and adds no writer here: the list cannot grow meanwhile.
  for (let i = 0; i < held.length; i++) held[i].flush();
  held.length = 0;
}

/** Writes to the socket; what it throws cuts this response (false) and goes no further. */
function writeOrCut(socket: Socket, text: string, encoding: 'utf8' | 'latin1'): boolean {
  try {
    return socket.write(text, encoding);
  } catch (err) {
    // Nothing the socket throws may escape into the end-of-turn flush or the caller's loop (and take
    // the process down): this response is cut, every other one goes on.
    socket.destroy(err instanceof Error ? err : new Error(String(err)));
    return false;
  }
}

export class StreamWriter {
  readonly #res: ServerResponse;
  readonly #onDrain: () => void;
  /** Set once chunks may go straight to the socket (see the file's head). */
  #socket: Socket | null = null;
  #encoding: 'utf8' | 'latin1' = 'latin1';
  /** Framed chunks waiting for the end of the turn, and their size in bytes. */
  #held = '';
  #heldBytes = 0;
  #awaitingDrain = false;
  #disposed = false;

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
    if (socket === null || typeof data !== 'string') {
      this.flush();
      return this.#throughResponse(data, encoding);
    }
    if (socket.destroyed) return false;
    if (encoding !== this.#encoding) this.flush();
    // A latin1 string is one byte a character: its length is its size on the wire.
    const size = encoding === 'latin1' ? data.length : Buffer.byteLength(data, 'utf8');
    if (size === 0) return true;
    const head = size.toString(16);
    const framed = `${head}\r\n${data}\r\n`;
    if (this.#held === '' && socket.writableCorked > 0) {
      // node:http's first write (the head and the first event) is corked until the end of this tick:
      // the rest of the upstream read that carried it joins it there, and the response's first bytes
      // leave in one system call instead of two (one now, one at the end of the turn).
      if (writeOrCut(socket, framed, encoding)) return true;
      if (!socket.destroyed) this.#awaitDrain(socket);
      return false;
    }
    if (this.#held === '') {
      this.#held = framed;
      this.#encoding = encoding;
      held.push(this);
      if (!flushScheduled) {
        flushScheduled = true;
        process.nextTick(flushHeld);
      }
    } else {
      this.#held += framed;
    }
    this.#heldBytes += head.length + size + 4;
    if (socket.writableLength + this.#heldBytes < socket.writableHighWaterMark) return true;
    this.#awaitDrain(socket);
    return false;
  }

  /** Writes what this writer holds now (the end of the turn, or before anything else is written). */
  flush(): void {
    const text = this.#held;
    if (text === '') return;
    this.#held = '';
    this.#heldBytes = 0;
    const socket = this.#socket!;
    if (socket.destroyed || socket.writableEnded) return;
    const ok = writeOrCut(socket, text, this.#encoding);
    if (socket.destroyed) return;
    if (!ok) this.#awaitDrain(socket);
    else if (this.#awaitingDrain && !socket.writableNeedDrain) {
      // write() said "wait" for what it held, but the socket took it all at once (a write that completes
      // synchronously raises no 'drain'): the caller is told as if it had drained.
      socket.off('drain', this.#drained);
      process.nextTick(this.#drained);
    }
  }

  /** Ends the response with a last piece; what is held goes in the same socket write as the end. */
  end(data: Uint8Array | string, encoding: 'utf8' | 'latin1'): void {
    const socket = this.#socket;
    // node:http's end uncorks the socket fully once it has written the closing chunk.
    if (socket !== null && this.#held !== '' && !socket.destroyed) socket.cork();
    this.flush();
    this.#res.end(data, encoding);
  }

  /** Stops listening for drains (the response is over or abandoned). */
  dispose(): void {
    this.#disposed = true;
    this.#res.off('drain', this.#onDrain);
    if (this.#awaitingDrain) this.#socket?.off('drain', this.#drained);
    this.#awaitingDrain = false;
  }

  readonly #drained = (): void => {
    this.#awaitingDrain = false;
    if (!this.#disposed) this.#onDrain();
  };

  #awaitDrain(socket: Socket): void {
    if (this.#awaitingDrain) return;
    this.#awaitingDrain = true;
    socket.once('drain', this.#drained);
  }

  #throughResponse(data: Uint8Array | string, encoding: 'utf8' | 'latin1'): boolean {
    const res = this.#res;
    const ok = res.write(data, encoding);
    // After a write that reached the socket, with nothing of this response queued anywhere but in the
    // socket itself, the chunks that follow can go to the socket directly and stay in order. A response
    // still waiting for its socket (pipelining) has none yet; node:http attaches it when it is its turn.
    if (this.#socket === null && ok && res.chunkedEncoding === true && res.headersSent && res.writableCorked === 0) {
      const socket = res.socket as Socket | null;
      if (socket !== null && res.writableLength === socket.writableLength) this.#socket = socket;
    }
    return ok;
  }
}

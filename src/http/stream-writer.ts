// The body of a streamed response, written through node:http. node:http frames each chunk and gathers
// what one turn writes: its first write in a turn corks the socket until the end of the tick, so the
// events of one upstream read leave in one socket write.
import type { ServerResponse } from 'node:http';

export class StreamWriter {
  readonly #res: ServerResponse;
  readonly #onDrain: () => void;

  /** `onDrain` runs when a write that returned false has been flushed (the caller paused its source). */
  constructor(res: ServerResponse, onDrain: () => void) {
    this.#res = res;
    this.#onDrain = onDrain;
    res.on('drain', onDrain);
  }

  /** Writes one piece of the body (bytes, or UTF-8 text); false when the caller should pause until `onDrain`. */
  write(data: Uint8Array | string): boolean {
    return this.#res.write(data);
  }

  /** Ends the response with a last piece. */
  end(data: Uint8Array | string): void {
    this.#res.end(data);
  }

  /** Stops listening for drains (the response is over or abandoned). */
  dispose(): void {
    this.#res.off('drain', this.#onDrain);
  }
}

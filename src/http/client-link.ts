// Whether the caller is still connected, from one 'close' listener on the response: the attempt in
// progress is told at once (its upstream call is aborted), and an AbortSignal exists only if something
// asks for one (the backoff sleep between retries).
import type { ServerResponse } from 'node:http';

/** The client side of an attempt's clocks (routing's ClientLink), over one node:http response. */
export class ResponseClientLink {
  aborted = false;
  #callback: (() => void) | null = null;
  #controller: AbortController | null = null;

  constructor(res: ServerResponse) {
    // 'close' is emitted once per response: `on` spares the once-wrapper per request.
    res.on('close', () => {
      // 'close' after the response finished is the normal end, not a client leaving.
      if (!res.writableFinished) this.#gone();
    });
  }

  onGone(callback: () => void): void {
    this.#callback = callback;
  }

  offGone(callback: () => void): void {
    if (this.#callback === callback) this.#callback = null;
  }

  /** A real AbortSignal for APIs that take one; made on first use. */
  get signal(): AbortSignal {
    if (this.#controller === null) {
      this.#controller = new AbortController();
      if (this.aborted) this.#controller.abort();
    }
    return this.#controller.signal;
  }

  #gone(): void {
    this.aborted = true;
    const callback = this.#callback;
    this.#callback = null;
    callback?.();
    this.#controller?.abort();
  }
}

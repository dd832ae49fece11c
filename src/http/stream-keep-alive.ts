// SSE comments (`: keep-alive`) to a streaming client while the upstream has sent nothing yet, so a load
// balancer with a 60–100 s idle timeout does not cut a request whose model thinks for minutes.
// The first comment sends the stream's 200 and headers; failures after it are in-stream error events.
import type { ServerResponse } from 'node:http';

const COMMENT = ': keep-alive\n\n';

export class StreamKeepAlive {
  readonly #res: ServerResponse;
  readonly #headers: () => Record<string, string>;
  /** Unref'd: the server, not a pending comment, keeps the process alive. */
  readonly #timer: NodeJS.Timeout;
  #sent = false;

  /** `headers`: the stream's response headers, asked for when the first comment goes out. */
  constructor(opts: { res: ServerResponse; intervalMs: number; headers: () => Record<string, string> }) {
    this.#res = opts.res;
    this.#headers = opts.headers;
    this.#timer = setInterval(() => this.#beat(), opts.intervalMs).unref();
  }

  /** Whether a comment went out: the status line and headers are then sent. */
  get sent(): boolean {
    return this.#sent;
  }

  /** The first byte of the answer is here, or the request failed: no more comments. */
  stop(): void {
    clearInterval(this.#timer);
  }

  #beat(): void {
    const res = this.#res;
    if (res.destroyed || res.writableEnded) return this.stop();
    if (!res.headersSent) res.writeHead(200, this.#headers());
    this.#sent = true;
    res.write(COMMENT);
  }
}

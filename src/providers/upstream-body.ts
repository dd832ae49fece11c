// The body of an upstream answer as a push feed: the provider pushes chunks in as the socket delivers
// them, and the gateway reads it whole (`text`), waits for the first chunk (`started`), or has every
// chunk handed to a synchronous sink (`pipe`). No Readable, no async iterator and no promise per chunk:
// a streamed event costs one function call from undici's parser to the client's socket.
import type { ChunkSink, UpstreamBody } from '../spec/upstream.ts';

/** What the feed needs from whoever produces the chunks. */
export interface FeedSource {
  pause(): void;
  resume(): void;
  /** Stop producing for good (the sink failed): the upstream request is abandoned. */
  abort(reason: Error): void;
}

const NO_SOURCE: FeedSource = { pause() {}, resume() {}, abort() {} };

/**
 * The most an upstream body may hold when the gateway buffers it whole (a non-streamed answer, an
 * error body). Far above any real completion; it only stops a broken or hostile upstream from growing
 * the process without bound. Streamed bodies are relayed chunk by chunk and never buffered.
 */
export const BUFFERED_BODY_LIMIT_BYTES = 64 * 1024 * 1024;

/** A buffered upstream body went past its limit; the upstream request was stopped. */
export class UpstreamBodyTooLarge extends Error {
  override name = 'UpstreamBodyTooLarge';

  constructor(limitBytes: number) {
    super(
      `The upstream's answer exceeded ${limitBytes >= 1048576 ? `${limitBytes / 1048576} MB` : `${limitBytes} bytes`}.`,
    );
  }
}

interface Waiter {
  mode: 'text' | 'bytes' | 'start' | 'pipe';
  onEnd?: () => void;
  resolve: (value: never) => void;
  reject: (err: Error) => void;
}

export class ChunkFeed implements UpstreamBody {
  #queue: Buffer[] = [];
  #size = 0;
  #ended = false;
  #error: Error | null = null;
  #sink: ChunkSink | null = null;
  #waiter: Waiter | null = null;
  #source: FeedSource = NO_SOURCE;
  readonly #limitBytes: number;

  constructor(limitBytes: number = BUFFERED_BODY_LIMIT_BYTES) {
    this.#limitBytes = limitBytes;
  }

  /** Set once the producer can be paused or aborted (undici hands its controller over late). */
  set source(source: FeedSource) {
    this.#source = source;
  }

  // ---- producer side ----

  /** A chunk arrived; returns false when the producer should pause. */
  push(chunk: Buffer): boolean {
    if (this.#ended || this.#error !== null) return false;
    const sink = this.#sink;
    if (sink !== null) return this.#deliver(sink, chunk);
    this.#queue.push(chunk);
    this.#size += chunk.length;
    if (this.#size > this.#limitBytes) {
      const err = new UpstreamBodyTooLarge(this.#limitBytes);
      this.#queue = [];
      this.#size = 0;
      this.fail(err);
      this.#source.abort(err);
      return false;
    }
    if (this.#waiter?.mode === 'start') this.#settle(true);
    return true;
  }

  end(): void {
    if (this.#ended || this.#error !== null) return;
    this.#ended = true;
    const w = this.#waiter;
    if (w === null) return;
    if (w.mode === 'text') this.#settle(this.#takeText());
    else if (w.mode === 'bytes') this.#settle(this.#takeBytes());
    else if (w.mode === 'start') this.#settle(this.#queue.length > 0);
    else this.#finishPipe(w.onEnd);
  }

  fail(err: Error): void {
    if (this.#ended || this.#error !== null) return;
    this.#error = err;
    const w = this.#waiter;
    this.#waiter = null;
    this.#sink = null;
    w?.reject(err);
  }

  // ---- consumer side ----

  text(): Promise<string> {
    if (this.#error !== null) return Promise.reject(this.#error);
    if (this.#ended) return Promise.resolve(this.#takeText());
    return this.#wait('text');
  }

  bytes(): Promise<Buffer> {
    if (this.#error !== null) return Promise.reject(this.#error);
    if (this.#ended) return Promise.resolve(this.#takeBytes());
    return this.#wait('bytes');
  }

  started(): Promise<boolean> {
    if (this.#queue.length > 0) return Promise.resolve(true);
    if (this.#error !== null) return Promise.reject(this.#error);
    if (this.#ended) return Promise.resolve(false);
    return this.#wait('start');
  }

  pipe(sink: ChunkSink, onEnd?: () => void): Promise<void> {
    if (this.#sink !== null || this.#waiter !== null)
      return Promise.reject(new Error('upstream body is already being read'));
    const queued = this.#queue;
    this.#queue = [];
    this.#size = 0;
    let open = true;
    for (const chunk of queued) open = this.#deliver(sink, chunk) && open;
    if (this.#error !== null) return Promise.reject(this.#error);
    if (this.#ended) {
      try {
        onEnd?.();
      } catch (err) {
        return Promise.reject(err);
      }
      return Promise.resolve();
    }
    if (!open) this.#source.pause();
    this.#sink = sink;
    return this.#wait('pipe', onEnd);
  }

  resume(): void {
    if (this.#sink !== null) this.#source.resume();
  }

  #deliver(sink: ChunkSink, chunk: Buffer): boolean {
    try {
      return sink(chunk);
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      this.fail(error);
      this.#source.abort(error);
      return false;
    }
  }

  #wait<T>(mode: Waiter['mode'], onEnd?: () => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#waiter = { mode, onEnd, resolve: resolve as (value: never) => void, reject };
    });
  }

  #finishPipe(onEnd: (() => void) | undefined): void {
    const w = this.#waiter;
    try {
      onEnd?.();
    } catch (err) {
      this.#waiter = null;
      this.#sink = null;
      w?.reject(err instanceof Error ? err : new Error(String(err)));
      return;
    }
    this.#settle(undefined);
  }

  #settle(value: unknown): void {
    const w = this.#waiter;
    this.#waiter = null;
    this.#sink = null;
    (w?.resolve as ((value: unknown) => void) | undefined)?.(value);
  }

  #takeText(): string {
    const q = this.#queue;
    this.#queue = [];
    const text = q.length === 1 ? q[0].toString('utf8') : Buffer.concat(q, this.#size).toString('utf8');
    this.#size = 0;
    return text;
  }

  #takeBytes(): Buffer {
    const bytes = Buffer.concat(this.#queue, this.#size);
    this.#queue = [];
    this.#size = 0;
    return bytes;
  }
}

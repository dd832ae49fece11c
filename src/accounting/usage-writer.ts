// Queues usage rows and writes them in batches off the request path (every `flushMs`, or at once when
// flushMs is 0). What a crash can lose is bounded by one flush interval; see README "Durability".
import type { Store, UsageRow } from '../store/store.ts';

/**
 * Rows per store call. A SQLite write holds the event loop for its whole batch (≈ 3 µs a row), so a
 * 200 ms batch at 10,000 requests/s would stall every request in flight for ~6 ms; slices of this size
 * stall it for well under a millisecond, with the loop free between them.
 */
export const USAGE_SLICE_ROWS = 128;

export class UsageWriter {
  #store: Store;
  #queue: UsageRow[] = [];
  #timer: NodeJS.Timeout | null = null;
  #flushMs: number;
  #sliceRows: number;
  #writing: Promise<void> = Promise.resolve();
  #onError: (err: unknown, rows: number) => void;

  constructor(opts: { store: Store; flushMs: number; onError: (err: unknown, rows: number) => void; sliceRows?: number }) {
    this.#store = opts.store;
    this.#flushMs = opts.flushMs;
    this.#onError = opts.onError;
    this.#sliceRows = opts.sliceRows ?? USAGE_SLICE_ROWS;
  }

  add(row: UsageRow): void {
    this.#queue.push(row);
    if (this.#flushMs === 0) {
      void this.flush();
    } else if (this.#timer === null) {
      this.#timer = setTimeout(() => {
        this.#timer = null;
        void this.flush();
      }, this.#flushMs);
    }
  }

  pending(): number {
    return this.#queue.length;
  }

  /** Writes everything queued so far; resolves when it is on disk. Writes never overlap. */
  flush(): Promise<void> {
    const rows = this.#queue;
    if (rows.length === 0) return this.#writing;
    this.#queue = [];
    this.#writing = this.#writing.then(() => this.#writeSlices(rows));
    return this.#writing;
  }

  async close(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    await this.flush();
  }

  async #writeSlices(rows: UsageRow[]): Promise<void> {
    for (let at = 0; at < rows.length; at += this.#sliceRows) {
      // Requests that arrived meanwhile are served before the next slice.
      if (at > 0) await yieldToIo();
      const slice = rows.length <= this.#sliceRows ? rows : rows.slice(at, at + this.#sliceRows);
      try {
        await this.#store.writeUsage(slice);
      } catch (err) {
        this.#onError(err, slice.length);
      }
    }
  }
}

function yieldToIo(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

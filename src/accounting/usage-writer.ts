// Queues usage rows and writes them in batches off the request path (every `flushMs`, or at once when
// flushMs is 0). What a crash can lose is bounded by one flush interval; see README "Durability".
import type { Store, UsageRow } from '../store/store.ts';

export class UsageWriter {
  #store: Store;
  #queue: UsageRow[] = [];
  #timer: NodeJS.Timeout | null = null;
  #flushMs: number;
  #writing: Promise<void> = Promise.resolve();
  #onError: (err: unknown, rows: number) => void;

  constructor(opts: { store: Store; flushMs: number; onError: (err: unknown, rows: number) => void }) {
    this.#store = opts.store;
    this.#flushMs = opts.flushMs;
    this.#onError = opts.onError;
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
    this.#writing = this.#writing.then(() => this.#write(rows));
    return this.#writing;
  }

  async close(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    await this.flush();
  }

  /** One store call per flush: the store keeps the event loop free while it writes (SqliteStore slices). */
  async #write(rows: UsageRow[]): Promise<void> {
    try {
      await this.#store.writeUsage(rows);
    } catch (err) {
      this.#onError(err, rows.length);
    }
  }
}

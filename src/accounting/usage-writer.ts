// Queues usage rows and writes them in batches off the request path: every `flushMs`, or as soon as
// `flushRows` are queued, whichever comes first (at once when flushMs is 0). What a crash can lose is
// bounded by one flush interval; see docs/budgets.md "Durability".
//
// Why a row count too: a row queued across two of V8's young-generation collections is copied into the
// old generation, and dead after its flush it is garbage there; the major collections that garbage
// brings on are the longest pauses a request meets. Between two young collections the gateway serves
// several hundred requests whatever the rate, so a batch of fewer rows never sees two; a time-only
// batch at thousands of requests a second would promote every row.
// A write that fails (a full disk, another process holding SQLite's write lock) loses nothing: the rows
// go back to the head of the queue and are tried again with a growing pause, up to MAX_PENDING_ROWS held
// in memory; past that the oldest, and at a stop whatever the last flush could not write, go to the
// spill file (usage-spill.ts), written when the store takes rows again or at the next start. Usage rows are the spend
// record budgets are rebuilt from at a restart: they are not given up on a failure. Only a spill file
// that cannot be written either loses rows, and then each lost row is handed to `onDropped` (the log).
// While writes fail and the memory bound is reached, `full` is true: the gateway takes no new billable
// request then (a 503 in the caller's dialect, /readyz false) rather than serve what it cannot record.
import type { Store, UsageRow } from '../store/store.ts';

/** Rows held in memory while writes fail (≈ 300 bytes each): past this the oldest go to the spill file. */
export const MAX_PENDING_ROWS = 200_000;
/** Rows that start a flush before its interval is up (see above: well under a young generation's worth). */
export const DEFAULT_FLUSH_ROWS = 256;
const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;

export interface UsageWriterEvents {
  /** A write failed; `rows` are kept for the next try. Called once per failing streak, and again on each drop. */
  onError: (err: unknown, rows: number) => void;
  /** Writes work again after a failing streak: `rows` is how many waited. */
  onRecovered?: (rows: number) => void;
  /** Rows given up for good: the store and the spill file both failed. They are handed over to be logged. */
  onDropped?: (rows: number, lost: readonly UsageRow[]) => void;
  /** A batch is in the store (a shared admission store is told: Admission.rowsWritten). */
  onWritten?: (rows: readonly UsageRow[]) => void;
  /** Rows the store would not take, saved to the spill file for the next start. */
  onSpilled?: (rows: number, path: string) => void;
}

/** Where rows the store would not take wait for the next start (usage-spill.ts). */
export interface SpillTarget {
  readonly path: string;
  save(rows: readonly UsageRow[]): void;
}

export class UsageWriter {
  #store: Store;
  #queue: UsageRow[] = [];
  #timer: NodeJS.Timeout | null = null;
  #flushMs: number;
  #flushRows: number;
  #writing: Promise<void> = Promise.resolve();
  #events: UsageWriterEvents;
  /** Consecutive failed writes; 0 when the last write succeeded. */
  #failures = 0;
  #failed = 0;
  #dropped = 0;
  #spilled = 0;
  #spill: SpillTarget | null;
  #maxPending: number;

  constructor(
    opts: {
      store: Store;
      flushMs: number;
      flushRows?: number;
      spill?: SpillTarget | null;
      /** Rows held in memory while writes fail (config `usage_pending_rows`); MAX_PENDING_ROWS by default. */
      maxPending?: number;
    } & UsageWriterEvents,
  ) {
    this.#store = opts.store;
    this.#maxPending = opts.maxPending ?? MAX_PENDING_ROWS;
    this.#spill = opts.spill ?? null;
    this.#flushMs = opts.flushMs;
    this.#flushRows = opts.flushRows ?? DEFAULT_FLUSH_ROWS;
    this.#events = opts;
  }

  add(row: UsageRow): void {
    this.#queue.push(row);
    if (this.#failures > 0) return; // the retry timer is already set
    if (this.#flushMs === 0) {
      void this.flush();
    } else if (this.#queue.length >= this.#flushRows) {
      void this.flush();
    } else if (this.#timer === null) {
      this.#schedule(this.#flushMs);
    }
  }

  pending(): number {
    return this.#queue.length;
  }

  /** Failed writes since start, and rows given up for good (for /metrics). */
  get failedWrites(): number {
    return this.#failed;
  }

  get droppedRows(): number {
    return this.#dropped;
  }

  /** Rows the store would not take that went to the spill file (for /metrics). */
  get spilledRows(): number {
    return this.#spilled;
  }

  /** Writes fail now: the last write failed and none has succeeded since (/readyz). */
  get failing(): boolean {
    return this.#failures > 0;
  }

  /**
   * No further row can be held: writes fail and the rows in memory are at their bound. A new billable
   * request is refused then; one field read and a comparison, since every generation request asks.
   */
  get full(): boolean {
    return this.#failures > 0 && this.#queue.length >= this.#maxPending;
  }

  /** Writes everything queued so far; resolves when it is on disk or back in the queue. Writes never overlap. */
  flush(): Promise<void> {
    const rows = this.#queue;
    if (rows.length === 0) return this.#writing;
    this.#queue = [];
    // The rows' timer (the interval, or a retry) has nothing left to do; #write sets the next one if a
    // write fails or rows wait after a recovery. Left armed, it would only flush an empty queue.
    if (this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    this.#writing = this.#writing.then(() => this.#write(rows));
    return this.#writing;
  }

  /** The last flush: tried a few times over a couple of seconds, then what is left goes to the spill file. */
  async close(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    for (let attempt = 0; attempt < 4; attempt++) {
      await this.flush();
      if (this.#queue.length === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 250 * 2 ** attempt));
    }
    // A flush still running (a writer thread waiting out a lock) would re-queue its batch after this: wait for it.
    await this.#writing;
    const left = this.#queue;
    this.#queue = [];
    this.#setAside(left);
  }

  #schedule(ms: number): void {
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.flush();
    }, ms);
    this.#timer.unref?.();
  }

  /** One store call per flush: the store keeps the event loop free while it writes (SqliteStore slices). */
  async #write(rows: UsageRow[]): Promise<void> {
    try {
      await this.#store.writeUsage(rows);
    } catch (err) {
      this.#failed++;
      if (this.#failures++ === 0) this.#events.onError(err, rows.length);
      // Back to the head of the queue, in order, ahead of rows that came meanwhile.
      this.#queue = rows.concat(this.#queue);
      const over = this.#queue.length - this.#maxPending;
      if (over > 0) {
        this.#setAside(this.#queue.splice(0, over));
        this.#events.onError(err, this.#queue.length);
      }
      if (this.#timer === null)
        this.#schedule(Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.min(this.#failures - 1, 5)));
      return;
    }
    this.#events.onWritten?.(rows);
    if (this.#failures > 0) {
      this.#failures = 0;
      this.#events.onRecovered?.(rows.length);
      if (this.#queue.length > 0 && this.#timer === null) this.#schedule(this.#flushMs);
    }
  }

  /** Rows the store would not take: to the spill file, or, when that fails too, reported lost one by one. */
  #setAside(rows: UsageRow[]): void {
    if (rows.length === 0) return;
    if (this.#spill !== null) {
      try {
        this.#spill.save(rows);
        this.#spilled += rows.length;
        this.#events.onSpilled?.(rows.length, this.#spill.path);
        return;
      } catch (err) {
        this.#events.onError(err, rows.length);
      }
    }
    this.#dropped += rows.length;
    this.#events.onDropped?.(rows.length, rows);
  }
}

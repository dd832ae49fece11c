// The event loop's side of the usage writer thread (usage-thread-worker.js for SQLite, pg-usage-worker.js
// for PostgreSQL; the same messages): a batch goes over as flat
// statement values, INSERT_BATCH rows a message, yielding to I/O every `sliceRows` rows so requests are
// served between; its commit is answered once the rows are on disk, or with the error that kept them out.
// The purge of logged bodies runs there too, and a write of the store's own while a batch is pending (`run`).
// Started on the first write or statement (the CLI makes neither, so it never starts one); unref'd while nothing
// is pending, so it never keeps a process alive on its own.
import { Worker } from 'node:worker_threads';
// After the I/O callbacks already due: requests that arrived meanwhile are served first.
import { setImmediate as yieldToIo } from 'node:timers/promises';
import type { UsageRow } from './store.ts';
import { bodyValues, INSERT_BATCH, keyUses, rowValues, spendDeltas } from './usage-sql.js';
import type { FromWriter, ToWriter, WriterError } from './usage-thread-worker.js';

/**
 * Rows sent (or, in-thread, written) between yields to the event loop. A SQLite write holds the loop for
 * its whole batch, so a large batch would stall every request in flight; slices of this size keep each
 * stall short, with the loop free between them. Handing rows to the writer thread costs a fraction of writing them.
 */
export const WRITE_SLICE_ROWS = 128;

/** The writer threads' code: each opens its own connection to the store's database. */
export const SQLITE_WRITER = new URL('./usage-thread-worker.js', import.meta.url);
export const POSTGRES_WRITER = new URL('./pg-usage-worker.js', import.meta.url);
/**
 * The thread only parses statement values and hands them to SQLite: a small young generation keeps its
 * memory near its needs (it would otherwise follow the process's --max-semi-space-size).
 */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 4 };
/** The thread's name as `top -H` and /proc/<pid>/task/<tid>/comm show it (15 characters at most). */
export const WRITER_THREAD_NAME = 'usage-writer';

interface Waiting {
  resolve: (changes: number) => void;
  reject: (err: Error) => void;
}

export class UsageThread {
  readonly #code: URL;
  readonly #data: Readonly<Record<string, unknown>>;
  #busyMs: number;
  #worker: Worker | null = null;
  readonly #waiting = new Map<number, Waiting>();
  #nextId = 0;

  /** `data` reaches the thread as its workerData, with `busyMs` (SQLite's lock wait) beside it. */
  constructor(code: URL, data: Readonly<Record<string, unknown>>, busyMs = 0) {
    this.#code = code;
    this.#data = data;
    this.#busyMs = busyMs;
  }

  /** Writes the rows and adds their spend in one transaction on the writer thread. */
  async write(rows: readonly UsageRow[], sliceRows: number): Promise<void> {
    const { worker, id, answer } = this.#expect();
    const done = answer.then(() => undefined);
    // The thread may fail while this batch is still being sent: handled now, still rejected for the caller.
    done.catch(() => undefined);
    let sinceYield = 0;
    // The last INSERT_BATCH rows (all of a small batch) travel with the commit.
    const last = Math.max(0, Math.ceil(rows.length / INSERT_BATCH) - 1) * INSERT_BATCH;
    for (let i = 0; i < last; i += INSERT_BATCH) {
      if (sinceYield >= sliceRows) {
        sinceYield = 0;
        await yieldToIo();
        // The thread died meanwhile: this batch's promise is already rejected, and its rows go back to the queue.
        if (this.#worker !== worker) return done;
      }
      sinceYield += INSERT_BATCH;
      worker.postMessage({ op: 'rows', values: rowValues(rows.slice(i, i + INSERT_BATCH)) } satisfies ToWriter);
    }
    if (sinceYield >= sliceRows) {
      await yieldToIo();
      if (this.#worker !== worker) return done;
    }
    const tail = last === 0 ? rows : rows.slice(last);
    worker.postMessage({
      op: 'commit',
      id,
      values: rowValues(tail),
      spend: spendDeltas(rows),
      used: keyUses(rows),
      bodies: bodyValues(rows),
    } satisfies ToWriter);
    return done;
  }

  /**
   * A batch or statement is on its way or being written: the thread may hold the database's write lock,
   * across the event loop's yields while a large batch is sent.
   */
  get pending(): boolean {
    return this.#waiting.size > 0;
  }

  /** Runs one statement on the writer thread, after any batch in progress; resolves to the rows it changed. */
  run(sql: string, params: Array<string | number | null>): Promise<number> {
    const { worker, id, answer } = this.#expect();
    worker.postMessage({ op: 'run', id, sql, params } satisfies ToWriter);
    return answer;
  }

  /** The thread (started if need be) kept alive for one more answer, that answer's id, and the answer. */
  #expect(): { worker: Worker; id: number; answer: Promise<number> } {
    const worker = this.#worker ?? this.#start();
    const id = ++this.#nextId;
    const answer = new Promise<number>((resolve, reject) => this.#waiting.set(id, { resolve, reject }));
    worker.ref();
    return { worker, id, answer };
  }

  busyTimeout(ms: number): void {
    this.#busyMs = ms;
    this.#worker?.postMessage({ op: 'busy', ms } satisfies ToWriter);
  }

  /** Lets the thread close its connection and end; a batch still pending is failed, not waited for. */
  async close(): Promise<void> {
    const worker = this.#worker;
    if (worker === null) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage({ op: 'close' } satisfies ToWriter);
    await exited;
  }

  #start(): Worker {
    const worker = new Worker(this.#code, {
      name: WRITER_THREAD_NAME,
      workerData: { ...this.#data, busyMs: this.#busyMs },
      resourceLimits: WORKER_LIMITS,
    });
    this.#worker = worker;
    worker.on('message', (msg: FromWriter) => {
      const waiting = this.#waiting.get(msg.id);
      if (waiting === undefined) return;
      this.#waiting.delete(msg.id);
      if (this.#waiting.size === 0) worker.unref();
      if (msg.error === null) waiting.resolve(msg.changes ?? 0);
      else waiting.reject(rebuild(msg.error));
    });
    // A thread that failed to open the database or died: every batch it held fails (their rows are
    // queued again by the usage writer), and the next write starts a new thread.
    const fail = (err: Error): void => {
      if (this.#worker === worker) this.#worker = null;
      for (const waiting of this.#waiting.values()) waiting.reject(err);
      this.#waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the usage writer thread exited (code ${code})`)));
    worker.unref();
    return worker;
  }
}

/** The thread's error as an Error again, with SQLite's code and message (`database is locked`, …). */
function rebuild(e: WriterError): Error {
  const err = new Error(e.message) as Error & { code?: string; errcode?: number; errstr?: string };
  if (e.code !== undefined) err.code = e.code;
  if (e.errcode !== undefined) err.errcode = e.errcode;
  if (e.errstr !== undefined) err.errstr = e.errstr;
  return err;
}

// The usage writer thread: its own SQLite connection, fed rows by usage-thread.ts. node:sqlite is
// synchronous, so inserts, commits and the WAL checkpoints inside them ran on the event loop and stalled
// every request in flight (a checkpoint 2 – 4 ms; BENCHMARKS.md, sixteenth round). Here they stall nobody.
//
// Messages, in order on one port: 'rows' (flat statement values of up to INSERT_BATCH rows; the first
// of a batch opens its transaction), 'commit' (the batch's last rows and its spend totals; answered with
// its id and the error, if any), 'busy' (the lock wait), 'close'. A batch of up to INSERT_BATCH rows is
// one 'commit': one wake-up of this thread a flush at low rates. A batch is all or nothing: after a
// failed 'rows' the rest of the batch is skipped and its 'commit' rolls back and answers with that error.
import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';
import { rollback, UsageStatements, type SpendDelta, type SqlValue } from './usage-sql.ts';
import { busyTimeoutPragma, openPragmas, THREAD_CHECKPOINT_PAGES } from './sqlite-pragmas.ts';

export type ToWriter =
  | { op: 'rows'; values: SqlValue[] }
  | { op: 'commit'; id: number; values: SqlValue[]; spend: SpendDelta[] }
  | { op: 'busy'; ms: number }
  | { op: 'close' };

export interface WriterError {
  message: string;
  code?: string;
  errcode?: number;
  errstr?: string;
}

export type FromWriter = { id: number; error: WriterError | null };

const port = parentPort;
if (port === null) throw new Error('usage-thread-worker.ts runs as a worker thread (usage-thread.ts starts it)');
const { path, busyMs } = workerData as { path: string; busyMs: number };

const db = new DatabaseSync(path);
db.exec(openPragmas({ busyMs, checkpointPages: THREAD_CHECKPOINT_PAGES }));
const statements = new UsageStatements(db);
let open = false;
let failed: unknown = null;

function describe(err: unknown): WriterError {
  if (!(err instanceof Error)) return { message: String(err) };
  const e = err as Error & { code?: unknown; errcode?: unknown; errstr?: unknown };
  return {
    message: e.message,
    ...(typeof e.code === 'string' ? { code: e.code } : {}),
    ...(typeof e.errcode === 'number' ? { errcode: e.errcode } : {}),
    ...(typeof e.errstr === 'string' ? { errstr: e.errstr } : {}),
  };
}

/** Inserts into the batch's transaction, opening it first; after a failure the batch's rows are skipped. */
function insert(values: SqlValue[]): void {
  if (failed !== null || values.length === 0) return;
  try {
    if (!open) {
      db.exec('BEGIN IMMEDIATE');
      open = true;
    }
    statements.insert(values);
  } catch (err) {
    failed = err;
  }
}

port.on('message', (msg: ToWriter) => {
  switch (msg.op) {
    case 'rows':
      insert(msg.values);
      return;
    case 'commit': {
      insert(msg.values);
      let error = failed;
      if (error === null) {
        try {
          if (!open) db.exec('BEGIN IMMEDIATE');
          open = true;
          statements.addSpend(msg.spend);
          db.exec('COMMIT');
          open = false;
        } catch (err) {
          error = err;
        }
      }
      if (error !== null && open) rollback(db);
      open = false;
      failed = null;
      port.postMessage({ id: msg.id, error: error === null ? null : describe(error) } satisfies FromWriter);
      return;
    }
    case 'busy':
      db.exec(busyTimeoutPragma(msg.ms));
      return;
    case 'close':
      if (open) rollback(db);
      db.close();
      port.close();
      return;
  }
});

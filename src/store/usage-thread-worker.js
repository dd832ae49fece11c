// The usage writer thread: its own SQLite connection, fed rows by usage-thread.ts. node:sqlite is
// synchronous, so inserts, commits and the WAL checkpoints inside them would stall every request in flight
// on the event loop. Here they stall nobody.
//
// Messages, in order on one port: 'rows' (flat statement values of up to INSERT_BATCH rows; the first
// of a batch opens its transaction), 'commit' (the batch's last rows, its spend totals and its keys' latest use; answered with
// its id and the error, if any), 'run' (one statement too long for the event loop, answered with its id
// and the rows it changed), 'busy' (the lock wait), 'close'. A batch of up to INSERT_BATCH rows is
// one 'commit': one wake-up of this thread a flush at low rates. A batch is all or nothing: after a
// failed 'rows' the rest of the batch is skipped and its 'commit' rolls back and answers with that error.
//
// JavaScript with JSDoc types (checked by tsc), as are the two modules it imports: a thread that loads a
// TypeScript file starts Node's type stripper (a WebAssembly module) in its own isolate, which nearly
// doubles the thread's resident memory.
import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';
import { describeError, rollback, UsageStatements } from './usage-sql.js';
import { busyTimeoutPragma, openPragmas, THREAD_CHECKPOINT_PAGES } from './sqlite-pragmas.js';
/** @import { BodyRow, KeyUse, SpendDelta, SqlValue } from './usage-sql.js' */

/**
 * @typedef {{ op: 'rows'; values: SqlValue[] }
 *   | { op: 'commit'; id: number; values: SqlValue[]; spend: SpendDelta[]; used: KeyUse[]; bodies: BodyRow[] }
 *   | { op: 'run'; id: number; sql: string; params: SqlValue[] }
 *   | { op: 'busy'; ms: number }
 *   | { op: 'close' }} ToWriter
 */

/** @typedef {{ message: string; code?: string; errcode?: number; errstr?: string }} WriterError */

/** @typedef {{ id: number; error: WriterError | null; changes?: number }} FromWriter */

const port = parentPort;
if (port === null) throw new Error('usage-thread-worker.js runs as a worker thread (usage-thread.ts starts it)');
const { path, busyMs } = /** @type {{ path: string; busyMs: number }} */ (workerData);

const db = new DatabaseSync(path);
db.exec(openPragmas({ busyMs, checkpointPages: THREAD_CHECKPOINT_PAGES }));
const statements = new UsageStatements(db);
let open = false;
/** @type {unknown} */
let failed = null;
/**
 * 'run' statements that came while a batch was open: they run after its commit, never inside its
 * transaction, where the batch's rollback would take them back after they were answered.
 * @type {Array<{ id: number; sql: string; params: SqlValue[] }>}
 */
let deferred = [];
/** @type {Map<string, import('node:sqlite').StatementSync>} */
const prepared = new Map();

/**
 * A statement too long for the event loop (the purge of logged bodies). Here it stalls nobody.
 * @param {{ id: number; sql: string; params: SqlValue[] }} msg
 * @returns {void}
 */
function runStatement(msg) {
  /** @type {FromWriter} */
  let answer;
  try {
    let statement = prepared.get(msg.sql);
    if (statement === undefined) {
      statement = db.prepare(msg.sql);
      prepared.set(msg.sql, statement);
    }
    answer = { id: msg.id, error: null, changes: Number(statement.run(...msg.params).changes) };
  } catch (err) {
    answer = { id: msg.id, error: describeError(err) };
  }
  port?.postMessage(answer);
}

/**
 * Inserts into the batch's transaction, opening it first; after a failure the batch's rows are skipped.
 * @param {SqlValue[]} values
 * @returns {void}
 */
function insert(values) {
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

port.on('message', (/** @type {ToWriter} */ msg) => {
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
          statements.touchKeys(msg.used);
          statements.addBodies(msg.bodies);
          db.exec('COMMIT');
          open = false;
        } catch (err) {
          error = err;
        }
      }
      if (error !== null && open) rollback(db);
      open = false;
      failed = null;
      /** @type {FromWriter} */
      const answer = { id: msg.id, error: error === null ? null : describeError(error) };
      port.postMessage(answer);
      if (deferred.length > 0) {
        const waiting = deferred;
        deferred = [];
        for (const m of waiting) runStatement(m);
      }
      return;
    }
    case 'run':
      if (open) deferred.push(msg);
      else runStatement(msg);
      return;
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

// The PostgreSQL usage writer thread: its own connection, fed rows by usage-thread.ts in the messages
// usage-thread-worker.js takes ('rows', 'commit', 'run', 'busy', 'close'). The driver builds and parses the wire
// protocol in JavaScript: that CPU is this thread's, not the event loop's. A batch's rows and its keys' spend are one transaction, sent in one
// round trip. The usage writer never starts a batch before the last one is answered.
import { parentPort, workerData } from 'node:worker_threads';
import postgres from 'postgres';
import {
  ADD_BODY_SQL,
  ADD_SPEND_SQL,
  connectionOptions,
  INSERT_USAGE_SQL,
  keyUseColumns,
  spendColumns,
  TOUCH_KEYS_SQL,
  usageColumns,
} from './pg-usage-sql.js';
import { describeError } from './usage-sql.js';
/** @import { ToWriter, FromWriter } from './usage-thread-worker.js' */
/** @import { SqlValue } from './usage-sql.js' */

const port = parentPort;
if (port === null) throw new Error('pg-usage-worker.js runs as a worker thread (usage-thread.ts starts it)');
const { url, schema } = /** @type {{ url: string; schema: string | null }} */ (workerData);

const sql = postgres(url, { ...connectionOptions({ schema, applicationName: 'modelgate-usage' }), max: 1 });
/** @type {SqlValue[]} */
let pending = [];

port.on('message', (/** @type {ToWriter} */ msg) => {
  switch (msg.op) {
    case 'rows':
      for (const v of msg.values) pending.push(v);
      return;
    case 'commit': {
      for (const v of msg.values) pending.push(v);
      const values = pending;
      pending = [];
      const { spend, used, bodies } = msg;
      sql
        .begin((tx) => {
          const queries = [];
          if (values.length > 0) queries.push(tx.unsafe(INSERT_USAGE_SQL, usageColumns(values), { prepare: true }));
          if (spend.length > 0) queries.push(tx.unsafe(ADD_SPEND_SQL, spendColumns(spend), { prepare: true }));
          if (used.length > 0) queries.push(tx.unsafe(TOUCH_KEYS_SQL, keyUseColumns(used), { prepare: true }));
          for (const b of bodies) queries.push(tx.unsafe(ADD_BODY_SQL, b, { prepare: true }));
          // Unawaited, they are pipelined with BEGIN and COMMIT.
          return queries;
        })
        .then(
          () => answer({ id: msg.id, error: null }),
          (/** @type {unknown} */ err) => answer({ id: msg.id, error: describeError(err) }),
        );
      return;
    }
    case 'run':
      // A statement of the store's own, in PostgreSQL's placeholders ($1, …).
      sql.unsafe(msg.sql, msg.params).then(
        (result) => answer({ id: msg.id, error: null, changes: result.count }),
        (/** @type {unknown} */ err) => answer({ id: msg.id, error: describeError(err) }),
      );
      return;
    case 'busy':
      // SQLite's lock wait; PostgreSQL statements have their statement_timeout.
      return;
    case 'close':
      sql.end({ timeout: 5 }).finally(() => port.close());
      return;
  }
});

/** @param {FromWriter} msg */
function answer(msg) {
  port?.postMessage(msg);
}

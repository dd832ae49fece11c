// The stored-responses thread: its own SQLite connection, so no read or write of a stored response
// runs on the event loop. Answers each message ({ id, op, args }) with { id, result, error }.
import { parentPort, workerData } from 'node:worker_threads';
import { DatabaseSync } from 'node:sqlite';
import { openPragmas, THREAD_CHECKPOINT_PAGES } from './sqlite-pragmas.js';
import { prepareResponseStatements, runResponseOp } from './response-sql.js';
/** @import { ToResponseThread, FromResponseThread } from './response-sql.js' */

const port = parentPort;
if (port === null)
  throw new Error('sqlite-response-worker.js runs as a worker thread (sqlite-response-store.ts starts it)');
const { path } = /** @type {{ path: string }} */ (workerData);
const db = new DatabaseSync(path);
db.exec(openPragmas({ busyMs: 1000, checkpointPages: THREAD_CHECKPOINT_PAGES }));
const statements = prepareResponseStatements(db);

port.on('message', (/** @type {ToResponseThread | 'close'} */ msg) => {
  if (msg === 'close') {
    db.close();
    port.close();
    return;
  }
  /** @type {FromResponseThread} */
  let reply;
  try {
    reply = { id: msg.id, result: runResponseOp(statements, msg.op, msg.args), error: null };
  } catch (err) {
    reply = { id: msg.id, result: null, error: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(reply);
});

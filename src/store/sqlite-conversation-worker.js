// The conversations thread: its own SQLite connection, so no conversation read or write runs on the event
// loop. Answers each message ({ id, ops }) with { id, result, error }.
import { parentPort, workerData } from 'node:worker_threads';
import { DatabaseSync } from 'node:sqlite';
import { openPragmas, THREAD_CHECKPOINT_PAGES } from './sqlite-pragmas.js';
import { runConversationOps } from './conversation-sql.js';
/** @import { ToConversationThread, FromConversationThread } from './conversation-sql.js' */

const port = parentPort;
if (port === null)
  throw new Error('sqlite-conversation-worker.js runs as a worker thread (sqlite-conversation-store.ts starts it)');
const { path } = /** @type {{ path: string }} */ (workerData);
const db = new DatabaseSync(path);
db.exec(openPragmas({ busyMs: 1000, checkpointPages: THREAD_CHECKPOINT_PAGES }));
const cache = new Map();

port.on('message', (/** @type {ToConversationThread | 'close'} */ msg) => {
  if (msg === 'close') {
    db.close();
    port.close();
    return;
  }
  /** @type {FromConversationThread} */
  let reply;
  try {
    reply = { id: msg.id, result: runConversationOps(db, cache, msg.ops), error: null };
  } catch (err) {
    reply = { id: msg.id, result: null, error: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(reply);
});

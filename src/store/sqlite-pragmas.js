// The connection settings every SQLite connection of the gateway opens with.
// JavaScript, not TypeScript: the usage writer thread loads it, and a thread that loads TypeScript
// starts Node's type stripper in its own isolate, with the resident memory that costs (usage-thread-worker.js).

/**
 * Checkpoints run inside a commit, on the committing connection's thread. On the event loop, a checkpoint
 * every 100 pages instead of SQLite's 1,000 keeps each stall short, for the same CPU per row.
 */
export const LOOP_CHECKPOINT_PAGES = 100;
/** The usage writer thread stalls no request: SQLite's own default, with fewer checkpoints and syncs. */
export const THREAD_CHECKPOINT_PAGES = 1000;
/**
 * A connection on the event loop beside a usage writer thread (the store's own, the providers and models'):
 * the thread checkpoints at its commits, and this connection would otherwise find the pages of its batches
 * due at each commit of its own (a beat, an admin's change) and copy them into the database there, syncing
 * the file. It checkpoints only a log the thread has left alone for long: with no usage written, the
 * gateway's beats rewrite the same page or two, so its checkpoint copies no more than that.
 */
export const BESIDE_THREAD_CHECKPOINT_PAGES = 10 * THREAD_CHECKPOINT_PAGES;

/**
 * WAL lets the CLI write keys while the server reads and writes usage; busy_timeout rides out another
 * connection's brief write lock.
 * @param {{ busyMs: number; checkpointPages: number }} options
 * @returns {string}
 */
export function openPragmas(options) {
  return `PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; ${busyTimeoutPragma(options.busyMs)} PRAGMA wal_autocheckpoint = ${options.checkpointPages};`;
}

/**
 * How long a write waits for another connection's lock, on the waiting connection's thread.
 * @param {number} ms
 * @returns {string}
 */
export function busyTimeoutPragma(ms) {
  return `PRAGMA busy_timeout = ${Math.max(0, Math.round(ms))};`;
}

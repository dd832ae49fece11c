// A write on an event-loop connection to the usage store's file (the alert and audit logs). The usage
// writer thread holds the file's write lock while a batch is pending, across the loop's own yields (the
// loop sends the batch's rows), so a write that waited for the lock on the loop (SQLite's busy_timeout)
// would stall every request for that long and then fail: the lock is freed only once the loop runs on.
// These connections do not wait on the loop at all; a write that finds the lock held tries again after
// yielding, sooner first and then every RETRY_CAP_MS, until it has waited DEADLINE_MS.
import { setTimeout as sleep } from 'node:timers/promises';

/** The busy_timeout of such a connection: the loop never waits for the lock. */
export const BESIDE_THREAD_BUSY_MS = 0;
const FIRST_RETRY_MS = 1;
const RETRY_CAP_MS = 250;
/** Longer than any batch holds the lock, even one of a spill file's rows replayed after a restart. */
const DEADLINE_MS = 30_000;

/** SQLite's SQLITE_BUSY, extended codes included (node:sqlite's `errcode`). */
function isBusy(err: unknown): boolean {
  const code = (err as { errcode?: unknown } | null)?.errcode;
  return typeof code === 'number' && (code & 0xff) === 5;
}

/** Runs `write`, again after a pause each time it finds the write lock held, until it has waited DEADLINE_MS. */
export async function writeBesideThread<T>(write: () => T, deadlineMs = DEADLINE_MS): Promise<T> {
  let waitedMs = 0;
  for (let pauseMs = FIRST_RETRY_MS; ; pauseMs = Math.min(RETRY_CAP_MS, pauseMs * 2)) {
    try {
      return write();
    } catch (err) {
      if (!isBusy(err) || waitedMs >= deadlineMs) throw err;
    }
    await sleep(pauseMs);
    waitedMs += pauseMs;
  }
}

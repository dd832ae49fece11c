// An event-loop connection to the usage store's file (the alert and audit logs), and its writes. The usage
// writer thread holds the file's write lock while a batch is pending, across the loop's own yields (the
// loop sends the batch's rows), so a write that waited for the lock on the loop (SQLite's busy_timeout)
// would stall every request for that long and then fail: the lock is freed only once the loop runs on.
// These connections do not wait on the loop at all; a write that finds the lock held tries again after
// yielding, sooner first and then every RETRY_CAP_MS, until it has waited DEADLINE_MS. Nor do they
// checkpoint the thread's write-ahead log (sqlite-pragmas.js).
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { setTimeout as sleep } from 'node:timers/promises';
import { migrateSqlite, type Migrations, type OnMigrated } from './migrations.ts';
import { BESIDE_THREAD_CHECKPOINT_PAGES, busyTimeoutPragma } from './sqlite-pragmas.js';

const FIRST_RETRY_MS = 1;
const RETRY_CAP_MS = 250;
/** Longer than any batch holds the lock, even one of a spill file's rows replayed after a restart. */
const DEADLINE_MS = 30_000;

/**
 * Opens the file and brings `schema` up to date, waiting up to `migrateBusyMs` for the lock while it does
 * (before the gateway serves); from then on the connection never waits for the lock on the loop.
 */
export async function openBesideThread(
  path: string,
  schema: Migrations,
  o: { migrateBusyMs: number; onMigrated?: OnMigrated },
): Promise<DatabaseSync> {
  const { DatabaseSync } = await import('node:sqlite');
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new DatabaseSync(path);
  db.exec(`${busyTimeoutPragma(o.migrateBusyMs)} PRAGMA wal_autocheckpoint = ${BESIDE_THREAD_CHECKPOINT_PAGES};`);
  migrateSqlite(db, schema, o.onMigrated);
  db.exec(busyTimeoutPragma(0));
  return db;
}

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

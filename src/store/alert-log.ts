// The alerts the gateway raised (budget thresholds, opened circuits, expiring keys) and how their webhooks
// answered: one row per event, whose id is the event's identity, so claiming an event is one insert that
// only one process (or one start) wins. Opened only when `alerts:` is configured; its own schema record.
import { numberedSql, openMigratedPg, type Sql } from './pg-migrated.ts';
import type { Migrations, OnMigrated } from './migrations.ts';
import { openBesideThread, writeBesideThread } from './beside-thread-connection.ts';

export const ALERT_SCHEMA: Migrations = {
  name: 'alerts',
  table: 'alerts_schema_version',
  steps: [
    `CREATE TABLE IF NOT EXISTS alerts (
       id TEXT PRIMARY KEY, event TEXT NOT NULL, created_at BIGINT NOT NULL, summary TEXT NOT NULL,
       payload TEXT NOT NULL, status TEXT NOT NULL, attempts INTEGER NOT NULL, last_error TEXT, delivered_at BIGINT)`,
    `CREATE INDEX IF NOT EXISTS alerts_created ON alerts (created_at)`,
  ],
};

/** `pending` while webhooks are tried; `superseded`: a higher threshold was crossed at the same time and sent instead. */
export type AlertStatus = 'pending' | 'delivered' | 'failed' | 'superseded';

export interface AlertRecord {
  id: string;
  event: string;
  createdAt: number;
  summary: string;
  /** The event's fields, JSON text. */
  payload: string;
  status: AlertStatus;
  attempts: number;
  lastError: string | null;
  deliveredAt: number | null;
}

export interface AlertLog {
  /** Records the event unless it is there already; true when this call recorded it (and so sends it). */
  claim(a: Pick<AlertRecord, 'id' | 'event' | 'createdAt' | 'summary' | 'payload' | 'status'>): Promise<boolean>;
  settle(
    id: string,
    outcome: { status: AlertStatus; attempts: number; lastError: string | null; deliveredAt: number | null },
  ): Promise<void>;
  /** Newest first. */
  list(page: { limit: number }): Promise<AlertRecord[]>;
  close(): Promise<void>;
}

const SQL = {
  claim: `INSERT INTO alerts (id, event, created_at, summary, payload, status, attempts) VALUES (?, ?, ?, ?, ?, ?, 0)
    ON CONFLICT (id) DO NOTHING`,
  settle: 'UPDATE alerts SET status = ?, attempts = ?, last_error = ?, delivered_at = ? WHERE id = ?',
  list: 'SELECT * FROM alerts ORDER BY created_at DESC, id LIMIT ?',
};

interface Row {
  id: string;
  event: string;
  created_at: number | bigint;
  summary: string;
  payload: string;
  status: AlertStatus;
  attempts: number | bigint;
  last_error: string | null;
  delivered_at: number | bigint | null;
}

function recordOf(r: Row): AlertRecord {
  return {
    id: r.id,
    event: r.event,
    createdAt: Number(r.created_at),
    summary: r.summary,
    payload: r.payload,
    status: r.status,
    attempts: Number(r.attempts),
    lastError: r.last_error,
    deliveredAt: r.delivered_at === null ? null : Number(r.delivered_at),
  };
}

export async function openAlertLog(database: string, isPostgres: boolean, onMigrated?: OnMigrated): Promise<AlertLog> {
  return isPostgres ? openPg(database, onMigrated) : openSqlite(database, onMigrated);
}

/**
 * SQLite on the event loop: a statement runs once per alert raised and per admin listing, never per
 * request, so it needs no thread of its own.
 */
async function openSqlite(path: string, onMigrated?: OnMigrated): Promise<AlertLog> {
  // The file is the usage store's, beside its writer thread (beside-thread-connection.ts).
  const db = await openBesideThread(path, ALERT_SCHEMA, { migrateBusyMs: 1000, onMigrated });
  const claim = db.prepare(SQL.claim);
  const settle = db.prepare(SQL.settle);
  const list = db.prepare(SQL.list);
  return {
    async claim(a) {
      const r = await writeBesideThread(() => claim.run(a.id, a.event, a.createdAt, a.summary, a.payload, a.status));
      return Number(r.changes) > 0;
    },
    async settle(id, o) {
      await writeBesideThread(() => settle.run(o.status, o.attempts, o.lastError, o.deliveredAt, id));
    },
    async list(page) {
      return (list.all(page.limit) as unknown as Row[]).map(recordOf);
    },
    async close() {
      if (db.isOpen) db.close();
    },
  };
}

/** Not the other schemas' locks: each migrates independently. */
const MIGRATION_LOCK = 0x6d67_0006;

async function openPg(databaseUrl: string, onMigrated?: OnMigrated): Promise<AlertLog> {
  const sql = await openMigratedPg({
    databaseUrl,
    applicationName: 'modelgate-alerts',
    lock: MIGRATION_LOCK,
    migrations: ALERT_SCHEMA,
    onMigrated,
    bigintAsNumber: true,
  });
  return {
    async claim(a) {
      const r = await sql.unsafe(numberedSql(SQL.claim), [a.id, a.event, a.createdAt, a.summary, a.payload, a.status]);
      return r.count > 0;
    },
    async settle(id, o) {
      await sql.unsafe(numberedSql(SQL.settle), [o.status, o.attempts, o.lastError, o.deliveredAt, id]);
    },
    async list(page) {
      return ((await sql.unsafe(numberedSql(SQL.list), [page.limit])) as unknown as Row[]).map(recordOf);
    },
    async close() {
      await sql.end({ timeout: 5 });
    },
  };
}

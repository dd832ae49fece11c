// The audit trail: one row per change made through the admin API, the CLI or the dashboard (which calls the
// API) — who acted, when, from which address, on what, and the thing before and after, secrets masked by
// the caller. Rows name their target by id and name as text, never by a foreign key: deleting a key or a
// team leaves every entry about it in place. Its own schema record, beside the keys' and the alerts'.
import { numberedSql, openMigratedPg, type Sql } from './pg-migrated.ts';
import type { Migrations, OnMigrated } from './migrations.ts';
import { openBesideThread, writeBesideThread } from './beside-thread-connection.ts';

export const AUDIT_SCHEMA: Migrations = {
  name: 'audit',
  table: 'audit_schema_version',
  steps: [
    `CREATE TABLE IF NOT EXISTS audit (
       id TEXT PRIMARY KEY, at BIGINT NOT NULL, actor_kind TEXT NOT NULL, actor_name TEXT NOT NULL,
       source TEXT, action TEXT NOT NULL, target_kind TEXT NOT NULL, target_id TEXT NOT NULL,
       target_name TEXT, before_json TEXT, after_json TEXT)`,
    `CREATE INDEX IF NOT EXISTS audit_at ON audit (at)`,
  ],
};

export interface AuditEntry {
  id: string;
  /** Epoch milliseconds. */
  at: number;
  actorKind: string;
  actorName: string;
  /** The caller's address (the API), or null (the CLI, run on the gateway's host). */
  source: string | null;
  /** `key.create`, `key.update`, `key.rotate`, `key.delete`, `team.create`, … */
  action: string;
  targetKind: string;
  targetId: string;
  targetName: string | null;
  /** The public (masked) view before and after, JSON text; null for a create's before and a delete's after. */
  before: string | null;
  after: string | null;
}

export interface AuditFilter {
  from?: number;
  to?: number;
  actor?: string;
  action?: string;
  targetKind?: string;
  /** A target's id or name. */
  target?: string;
  limit: number;
}

export interface AuditLog {
  record(e: AuditEntry): Promise<void>;
  /** Newest first. */
  list(f: AuditFilter): Promise<AuditEntry[]>;
  close(): Promise<void>;
}

const INSERT = `INSERT INTO audit (id, at, actor_kind, actor_name, source, action, target_kind, target_id, target_name,
  before_json, after_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/** The filter as SQL with `?` placeholders; every value is a parameter. */
function listSql(f: AuditFilter): { text: string; params: (string | number)[] } {
  const where: string[] = [];
  const params: (string | number)[] = [];
  const add = (cond: string, ...values: (string | number)[]): void => {
    where.push(cond);
    params.push(...values);
  };
  if (f.from !== undefined) add('at >= ?', f.from);
  if (f.to !== undefined) add('at < ?', f.to);
  if (f.actor !== undefined) add('actor_name = ?', f.actor);
  // `key.delete` matches one action; `key` every action on keys.
  if (f.action !== undefined) add(f.action.includes('.') ? 'action = ?' : 'target_kind = ?', f.action);
  if (f.targetKind !== undefined) add('target_kind = ?', f.targetKind);
  if (f.target !== undefined) add('(target_id = ? OR target_name = ?)', f.target, f.target);
  params.push(f.limit);
  return {
    text: `SELECT * FROM audit${where.length === 0 ? '' : ` WHERE ${where.join(' AND ')}`} ORDER BY at DESC, id DESC LIMIT ?`,
    params,
  };
}

interface Row {
  id: string;
  at: number | bigint;
  actor_kind: string;
  actor_name: string;
  source: string | null;
  action: string;
  target_kind: string;
  target_id: string;
  target_name: string | null;
  before_json: string | null;
  after_json: string | null;
}

function entryOf(r: Row): AuditEntry {
  return {
    id: r.id,
    at: Number(r.at),
    actorKind: r.actor_kind,
    actorName: r.actor_name,
    source: r.source,
    action: r.action,
    targetKind: r.target_kind,
    targetId: r.target_id,
    targetName: r.target_name,
    before: r.before_json,
    after: r.after_json,
  };
}

function paramsOf(e: AuditEntry): (string | number | null)[] {
  return [
    e.id,
    e.at,
    e.actorKind,
    e.actorName,
    e.source,
    e.action,
    e.targetKind,
    e.targetId,
    e.targetName,
    e.before,
    e.after,
  ];
}

export async function openAuditLog(database: string, isPostgres: boolean, onMigrated?: OnMigrated): Promise<AuditLog> {
  return isPostgres ? openPg(database, onMigrated) : openSqlite(database, onMigrated);
}

/** SQLite on the event loop: a statement runs once per admin change or listing, never per request. */
async function openSqlite(path: string, onMigrated?: OnMigrated): Promise<AuditLog> {
  // The file is the usage store's, beside its writer thread (beside-thread-connection.ts).
  const db = await openBesideThread(path, AUDIT_SCHEMA, { migrateBusyMs: 5000, onMigrated });
  const insert = db.prepare(INSERT);
  return {
    async record(e) {
      await writeBesideThread(() => insert.run(...paramsOf(e)));
    },
    async list(f) {
      const { text, params } = listSql(f);
      return (db.prepare(text).all(...params) as unknown as Row[]).map(entryOf);
    },
    async close() {
      if (db.isOpen) db.close();
    },
  };
}

/** Not the other schemas' locks: each migrates independently. */
const MIGRATION_LOCK = 0x6d67_0005;

async function openPg(databaseUrl: string, onMigrated?: OnMigrated): Promise<AuditLog> {
  const sql = await openMigratedPg({
    databaseUrl,
    applicationName: 'modelgate-audit',
    lock: MIGRATION_LOCK,
    migrations: AUDIT_SCHEMA,
    onMigrated,
    bigintAsNumber: true,
  });
  return {
    async record(e) {
      await sql.unsafe(numberedSql(INSERT), paramsOf(e));
    },
    async list(f) {
      const { text, params } = listSql(f);
      return ((await sql.unsafe(numberedSql(text), params)) as unknown as Row[]).map(entryOf);
    },
    async close() {
      await sql.end({ timeout: 5 });
    },
  };
}

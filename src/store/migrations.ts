// Schema migrations, for SQLite and PostgreSQL alike: each schema (keys and usage; stored responses) is a
// list of steps and a one-row table holding how many have run. A start runs the missing steps in one
// transaction and reports each (from → to) once it is committed; a database at a version this build does
// not know was migrated by a newer build and is refused, naming both versions, before anything is written.
import type { DatabaseSync } from 'node:sqlite';
import type postgres from 'postgres';

export interface Migrations {
  /** What the schema holds, as the log and `modelgate migrate` name it. */
  name: string;
  /** The one-row table that holds the number of steps run. */
  table: string;
  steps: readonly string[];
}

export interface MigrationStep {
  schema: string;
  from: number;
  to: number;
}

/** Told of each step after the transaction that ran it committed. */
export type OnMigrated = (step: MigrationStep) => void;

export class SchemaTooNewError extends Error {
  override name = 'SchemaTooNewError';
}

/** Throws when the database is at a version this build does not know. */
export function refuseNewer(m: Migrations, current: number): void {
  if (current <= m.steps.length) return;
  throw new SchemaTooNewError(
    `the database's ${m.name} schema is at version ${current}, but this build of modelgate knows versions up to ${m.steps.length}: ` +
      'a newer modelgate migrated it. Run that version (or a newer one), or restore the backup taken before the upgrade (docs/operations.md, "Rolling back").',
  );
}

function report(m: Migrations, from: number, onMigrated: OnMigrated | undefined): void {
  if (onMigrated === undefined) return;
  for (let v = from; v < m.steps.length; v++) onMigrated({ schema: m.name, from: v, to: v + 1 });
}

export function migrateSqlite(db: DatabaseSync, m: Migrations, onMigrated?: OnMigrated): void {
  db.exec(`CREATE TABLE IF NOT EXISTS ${m.table} (v INTEGER NOT NULL)`);
  const current = sqliteVersion(db, m);
  refuseNewer(m, current);
  if (current === m.steps.length) return;
  db.exec('BEGIN IMMEDIATE');
  try {
    // Read again under the write lock: another process may have migrated meanwhile.
    const locked = sqliteVersion(db, m);
    refuseNewer(m, locked);
    for (let i = locked; i < m.steps.length; i++) db.exec(m.steps[i]);
    db.exec(`DELETE FROM ${m.table}`);
    db.prepare(`INSERT INTO ${m.table} (v) VALUES (?)`).run(m.steps.length);
    db.exec('COMMIT');
    report(m, locked, onMigrated);
  } catch (err) {
    db.exec('ROLLBACK');
    throw err;
  }
}

function sqliteVersion(db: DatabaseSync, m: Migrations): number {
  return (db.prepare(`SELECT v FROM ${m.table}`).get() as { v: number } | undefined)?.v ?? 0;
}

/** The schema's version in an SQLite database, without writing (0 when its table is absent). */
export function sqliteVersionReadOnly(db: DatabaseSync, m: Migrations): number {
  const exists = db.prepare(`SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = ?`).get(m.table);
  return exists === undefined ? 0 : sqliteVersion(db, m);
}

type Tx = postgres.TransactionSql<Record<string, unknown>>;

/**
 * Runs in the caller's transaction, which holds the schema's advisory lock; returns the version it found,
 * for `reportPg` once the transaction committed.
 */
export async function migratePg(tx: Tx, m: Migrations): Promise<number> {
  await tx.unsafe(`CREATE TABLE IF NOT EXISTS ${m.table} (v INTEGER NOT NULL)`);
  const rows = await tx.unsafe<{ v: number }[]>(`SELECT v FROM ${m.table}`);
  const current = rows[0]?.v ?? 0;
  refuseNewer(m, current);
  if (current === m.steps.length) return current;
  for (let i = current; i < m.steps.length; i++) await tx.unsafe(m.steps[i]);
  await tx.unsafe(`DELETE FROM ${m.table}`);
  await tx.unsafe(`INSERT INTO ${m.table} (v) VALUES (${m.steps.length})`);
  return current;
}

export function reportPg(m: Migrations, from: number, onMigrated: OnMigrated | undefined): void {
  report(m, from, onMigrated);
}

/** The schema's version in PostgreSQL (in the search path's schema), without writing (0 when absent). */
export async function pgVersionReadOnly(sql: postgres.Sql<Record<string, unknown>>, m: Migrations): Promise<number> {
  const [found] = await sql.unsafe<{ t: string | null }[]>(`SELECT to_regclass('${m.table}')::text AS t`);
  if (found?.t == null) return 0;
  const rows = await sql.unsafe<{ v: number }[]>(`SELECT v FROM ${m.table}`);
  return rows[0]?.v ?? 0;
}

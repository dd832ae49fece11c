// Providers and models added at run time (admin API, CLI): one row per entry, its YAML-shaped body as JSON
// (credentials sealed, config/sealed-credentials.ts), and a version every change bumps in the same
// transaction, so a replica learns of a change by reading one number. SQLite (sqlite-entry-store.ts) and
// PostgreSQL (pg-entry-store.ts) run the same statements.
import type { Migrations, OnMigrated } from './migrations.ts';

export type EntryKind = 'provider' | 'model';

export interface StoredEntry {
  kind: EntryKind;
  name: string;
  /** The entry as a JSON object text, in the shape of its YAML entry. */
  body: string;
}

export interface EntryStore {
  /** Every entry, providers first, each kind in the order it was added. */
  list(): Promise<StoredEntry[]>;
  /** The number every change bumps: a replica reloads when it differs from what it loaded. */
  version(): Promise<number>;
  /** Adds (`create`) or replaces an entry; false when `create` finds the name taken. Bumps the version. */
  put(entry: StoredEntry, mode: 'create' | 'replace'): Promise<boolean>;
  /** False when there was no such entry. Bumps the version when there was. */
  remove(kind: EntryKind, name: string): Promise<boolean>;
  close(): Promise<void>;
}

const STEPS: readonly string[] = [
  `CREATE TABLE config_entries (
     kind TEXT NOT NULL, name TEXT NOT NULL, body TEXT NOT NULL,
     created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, PRIMARY KEY (kind, name))`,
  `CREATE TABLE config_entries_version (id INTEGER PRIMARY KEY, v BIGINT NOT NULL)`,
  `INSERT INTO config_entries_version (id, v) VALUES (1, 0)`,
];

/** The providers and models schema (migrations.ts), one text for SQLite and PostgreSQL: its steps only ever grow at the end. */
export const ENTRY_SCHEMA: Migrations = {
  name: 'providers and models',
  table: 'config_entries_schema_version',
  steps: STEPS,
};

/** The statements, with `?` placeholders (PostgreSQL's are numbered by pg-migrated.ts's `numberedSql`). */
export const ENTRY_SQL = {
  list: `SELECT kind, name, body FROM config_entries ORDER BY CASE kind WHEN 'provider' THEN 0 ELSE 1 END, created_at, name`,
  version: 'SELECT v FROM config_entries_version WHERE id = 1',
  bump: 'UPDATE config_entries_version SET v = v + 1 WHERE id = 1',
  insert: `INSERT INTO config_entries (kind, name, body, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (kind, name) DO NOTHING`,
  update: 'UPDATE config_entries SET body = ?, updated_at = ? WHERE kind = ? AND name = ?',
  remove: 'DELETE FROM config_entries WHERE kind = ? AND name = ?',
} as const;

export async function openEntryStore(
  database: string,
  isPostgres: boolean,
  onMigrated?: OnMigrated,
): Promise<EntryStore> {
  if (isPostgres) {
    const { openPgEntries } = await import('./pg-entry-store.ts');
    return openPgEntries(database, onMigrated);
  }
  const { SqliteEntryStore } = await import('./sqlite-entry-store.ts');
  return new SqliteEntryStore(database, onMigrated);
}

// Providers and models in the gateway's SQLite file, on the event loop: a change is an admin's action and
// the version is read once a second, never per request, so a thread of its own would cost more than it saves.
import { DatabaseSync } from 'node:sqlite';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { BESIDE_THREAD_CHECKPOINT_PAGES, openPragmas } from './sqlite-pragmas.js';
import { migrateSqlite, type OnMigrated } from './migrations.ts';
import { ENTRY_SCHEMA, ENTRY_SQL, type EntryKind, type EntryStore, type StoredEntry } from './entry-store.ts';

export class SqliteEntryStore implements EntryStore {
  readonly #db: DatabaseSync;

  constructor(path: string, onMigrated?: OnMigrated) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.#db = new DatabaseSync(path);
    // A lock held by another process's writer is waited out briefly: the version poll tries again next second.
    // The file is the usage store's, whose writer thread checkpoints its log (sqlite-pragmas.js).
    this.#db.exec(openPragmas({ busyMs: 200, checkpointPages: BESIDE_THREAD_CHECKPOINT_PAGES }));
    migrateSqlite(this.#db, ENTRY_SCHEMA, onMigrated);
  }

  async list(): Promise<StoredEntry[]> {
    return this.#db.prepare(ENTRY_SQL.list).all() as unknown as StoredEntry[];
  }

  async version(): Promise<number> {
    return Number((this.#db.prepare(ENTRY_SQL.version).get() as { v: number | bigint }).v);
  }

  async put(entry: StoredEntry, mode: 'create' | 'replace'): Promise<boolean> {
    return this.#write(() => {
      const now = Date.now();
      const changes =
        mode === 'create'
          ? this.#db.prepare(ENTRY_SQL.insert).run(entry.kind, entry.name, entry.body, now, now).changes
          : this.#db.prepare(ENTRY_SQL.update).run(entry.body, now, entry.kind, entry.name).changes;
      return Number(changes) > 0;
    });
  }

  async remove(kind: EntryKind, name: string): Promise<boolean> {
    return this.#write(() => Number(this.#db.prepare(ENTRY_SQL.remove).run(kind, name).changes) > 0);
  }

  /** The change and the version's bump in one transaction: a reader sees both or neither. */
  #write(change: () => boolean): boolean {
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      const changed = change();
      if (changed) this.#db.prepare(ENTRY_SQL.bump).run();
      this.#db.exec('COMMIT');
      return changed;
    } catch (err) {
      this.#db.exec('ROLLBACK');
      throw err;
    }
  }

  async close(): Promise<void> {
    if (this.#db.isOpen) this.#db.close();
  }
}

// Stored responses in the gateway's SQLite file, on a connection of their own with its own migration
// record (meta `responses_schema`), so the key and usage migrations stay as they are.
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { busyTimeoutPragma, LOOP_CHECKPOINT_PAGES, openPragmas } from './sqlite-pragmas.js';
import type { ResponseStore, StoredResponse } from './response-store.ts';

export const RESPONSE_MIGRATIONS: string[] = [
  `CREATE TABLE IF NOT EXISTS responses (
     id TEXT PRIMARY KEY, key_id TEXT NOT NULL, deployment TEXT, native INTEGER NOT NULL,
     created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, response TEXT NOT NULL, items TEXT NOT NULL)`,
  `CREATE INDEX IF NOT EXISTS responses_expires ON responses (expires_at)`,
];

interface Row {
  id: string; key_id: string; deployment: string | null; native: number; created_at: number; expires_at: number; response: string; items: string;
}

export class SqliteResponseStore implements ResponseStore {
  #db: DatabaseSync;
  #put: StatementSync;
  #get: StatementSync;
  #delete: StatementSync;
  #purge: StatementSync;

  constructor(path: string) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.#db = new DatabaseSync(path);
    this.#db.exec(openPragmas({ busyMs: 5000, checkpointPages: LOOP_CHECKPOINT_PAGES }));
    this.#migrate();
    // A stored response is written after its answer went out; a lock held elsewhere is waited out briefly.
    this.#db.exec(busyTimeoutPragma(200));
    this.#put = this.#db.prepare(`INSERT OR REPLACE INTO responses (id, key_id, deployment, native, created_at, expires_at, response, items) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
    this.#get = this.#db.prepare('SELECT * FROM responses WHERE id = ? AND key_id = ? AND expires_at > ?');
    this.#delete = this.#db.prepare('DELETE FROM responses WHERE id = ? AND key_id = ?');
    this.#purge = this.#db.prepare('DELETE FROM responses WHERE expires_at <= ?');
  }

  #migrate(): void {
    this.#db.exec('CREATE TABLE IF NOT EXISTS responses_schema_version (v INTEGER NOT NULL)');
    const row = this.#db.prepare('SELECT v FROM responses_schema_version').get() as { v: number } | undefined;
    const current = row?.v ?? 0;
    if (current >= RESPONSE_MIGRATIONS.length) return;
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      for (let i = current; i < RESPONSE_MIGRATIONS.length; i++) this.#db.exec(RESPONSE_MIGRATIONS[i]);
      this.#db.exec('DELETE FROM responses_schema_version');
      this.#db.prepare('INSERT INTO responses_schema_version (v) VALUES (?)').run(RESPONSE_MIGRATIONS.length);
      this.#db.exec('COMMIT');
    } catch (err) {
      this.#db.exec('ROLLBACK');
      throw err;
    }
  }

  async put(r: StoredResponse): Promise<void> {
    this.#put.run(r.id, r.keyId, r.deployment, r.native ? 1 : 0, r.createdAt, r.expiresAt, r.response, r.items);
  }

  async get(id: string, keyId: string, now: number): Promise<StoredResponse | null> {
    const row = this.#get.get(id, keyId, now) as Row | undefined;
    return row === undefined ? null : fromRow(row);
  }

  async delete(id: string, keyId: string): Promise<boolean> {
    return Number(this.#delete.run(id, keyId).changes) > 0;
  }

  async purge(now: number): Promise<number> {
    return Number(this.#purge.run(now).changes);
  }

  async close(): Promise<void> {
    if (this.#db.isOpen) this.#db.close();
  }
}

function fromRow(r: Row): StoredResponse {
  return { id: r.id, keyId: r.key_id, deployment: r.deployment, native: r.native === 1, createdAt: r.created_at, expiresAt: r.expires_at, response: r.response, items: r.items };
}

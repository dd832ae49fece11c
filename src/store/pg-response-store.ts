// Stored responses in PostgreSQL, so every gateway host continues every conversation. A pool of its
// own (two connections) beside the store's, with its own migration record.
import type postgres from 'postgres';
import { maskDatabaseUrl, parseDatabaseUrl } from './database-url.ts';
import { connectionOptions } from './pg-usage-sql.js';
import type { ResponseStore, StoredResponse } from './response-store.ts';
import { migratePg, reportPg, type Migrations, type OnMigrated } from './migrations.ts';

type Sql = postgres.Sql<Record<string, unknown>>;

const MIGRATIONS: string[] = [
  `CREATE TABLE IF NOT EXISTS responses (
     id TEXT PRIMARY KEY, key_id TEXT NOT NULL, deployment TEXT, native BOOLEAN NOT NULL,
     created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL, response TEXT NOT NULL, items TEXT NOT NULL)`,
  `CREATE INDEX IF NOT EXISTS responses_expires ON responses (expires_at)`,
];

/** The stored responses schema (migrations.ts): its steps only ever grow at the end. */
export const PG_RESPONSE_MIGRATIONS: Migrations = {
  name: 'stored responses',
  table: 'responses_schema_version',
  steps: MIGRATIONS,
};

/** Not the store's lock: the two migrate independently. */
const MIGRATION_LOCK = 0x6d67_0002;

interface Row {
  id: string;
  key_id: string;
  deployment: string | null;
  native: boolean;
  created_at: number;
  expires_at: number;
  response: string;
  items: string;
}

export class PgResponseStore implements ResponseStore {
  readonly #sql: Sql;

  private constructor(sql: Sql) {
    this.#sql = sql;
  }

  static async open(databaseUrl: string, onMigrated?: OnMigrated): Promise<PgResponseStore> {
    const { url, schema } = parseDatabaseUrl(databaseUrl);
    const { default: connect } = await import('postgres');
    const sql = connect(url, {
      ...connectionOptions({ schema, applicationName: 'modelgate-responses' }),
      max: 2,
      types: { bigint: { to: 20, from: [20], serialize: (x: number) => String(x), parse: (x: string) => Number(x) } },
    }) as unknown as Sql;
    try {
      const from = await sql.begin(async (tx) => {
        await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
        if (schema !== null) await tx.unsafe(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
        return migratePg(tx, PG_RESPONSE_MIGRATIONS);
      });
      reportPg(PG_RESPONSE_MIGRATIONS, from, onMigrated);
    } catch (err) {
      await sql.end({ timeout: 1 }).catch(() => undefined);
      throw new Error(`PostgreSQL at ${maskDatabaseUrl(databaseUrl)}: ${(err as Error).message}`);
    }
    return new PgResponseStore(sql);
  }

  async put(r: StoredResponse): Promise<void> {
    await this.#sql`INSERT INTO responses (id, key_id, deployment, native, created_at, expires_at, response, items)
      VALUES (${r.id}, ${r.keyId}, ${r.deployment}, ${r.native}, ${r.createdAt}, ${r.expiresAt}, ${r.response}, ${r.items})
      ON CONFLICT (id) DO UPDATE SET key_id = EXCLUDED.key_id, deployment = EXCLUDED.deployment, native = EXCLUDED.native,
        created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at, response = EXCLUDED.response, items = EXCLUDED.items`;
  }

  async get(id: string, keyId: string, now: number): Promise<StoredResponse | null> {
    const rows = await this.#sql<
      Row[]
    >`SELECT * FROM responses WHERE id = ${id} AND key_id = ${keyId} AND expires_at > ${now}`;
    const r = rows[0];
    return r === undefined
      ? null
      : {
          id: r.id,
          keyId: r.key_id,
          deployment: r.deployment,
          native: r.native,
          createdAt: r.created_at,
          expiresAt: r.expires_at,
          response: r.response,
          items: r.items,
        };
  }

  async delete(id: string, keyId: string): Promise<boolean> {
    return (await this.#sql`DELETE FROM responses WHERE id = ${id} AND key_id = ${keyId}`).count > 0;
  }

  async purge(now: number): Promise<number> {
    return (await this.#sql`DELETE FROM responses WHERE expires_at <= ${now}`).count;
  }

  async close(): Promise<void> {
    await this.#sql.end({ timeout: 5 });
  }
}

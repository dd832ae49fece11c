// Stored responses in PostgreSQL, so every gateway host continues every conversation. A pool of its
// own (two connections) beside the store's, with its own migration record.
import type postgres from 'postgres';
import { maskDatabaseUrl, parseDatabaseUrl } from './database-url.ts';
import { connectionOptions } from './pg-usage-sql.js';
import type { ResponseStore, StoredResponse, StoredUsage } from './response-store.ts';
import { chainItems, MAX_CHAIN } from './response-sql.js';
import { migratePg, reportPg, type Migrations, type OnMigrated } from './migrations.ts';

type Sql = postgres.Sql<Record<string, unknown>>;

const MIGRATIONS: string[] = [
  `CREATE TABLE IF NOT EXISTS responses (
     id TEXT PRIMARY KEY, key_id TEXT NOT NULL, deployment TEXT, native BOOLEAN NOT NULL,
     created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL, response TEXT NOT NULL, items TEXT NOT NULL)`,
  `CREATE INDEX IF NOT EXISTS responses_expires ON responses (expires_at)`,
  // Each turn stores only what it adds and the response it continues (response-sql.js says why).
  `ALTER TABLE responses ADD COLUMN IF NOT EXISTS previous_id TEXT`,
  `ALTER TABLE responses ADD COLUMN IF NOT EXISTS chain_id TEXT`,
  `CREATE INDEX IF NOT EXISTS responses_key ON responses (key_id)`,
  `CREATE INDEX IF NOT EXISTS responses_chain ON responses (chain_id)`,
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
  previous_id: string | null;
  chain_expires_at: number;
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
    const previous = r.previousId === undefined || r.previousId === r.id ? null : r.previousId;
    // A turn joins its previous turn's chain; a first turn starts its own.
    await this
      .#sql`INSERT INTO responses (id, key_id, deployment, native, created_at, expires_at, response, items, previous_id, chain_id)
      VALUES (${r.id}, ${r.keyId}, ${r.deployment}, ${r.native}, ${r.createdAt}, ${r.expiresAt}, ${r.response}, ${r.items}, ${previous},
        COALESCE((SELECT COALESCE(chain_id, id) FROM responses WHERE id = ${previous} AND key_id = ${r.keyId}), ${r.id}))
      ON CONFLICT (id) DO UPDATE SET key_id = EXCLUDED.key_id, deployment = EXCLUDED.deployment, native = EXCLUDED.native,
        created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at, response = EXCLUDED.response,
        items = EXCLUDED.items, previous_id = EXCLUDED.previous_id, chain_id = EXCLUDED.chain_id`;
  }

  async get(id: string, keyId: string, now: number): Promise<StoredResponse | null> {
    const rows = await this.#sql<Row[]>`SELECT r.*,
        (SELECT MAX(c.expires_at) FROM responses c WHERE COALESCE(c.chain_id, c.id) = COALESCE(r.chain_id, r.id)) AS chain_expires_at
      FROM responses r WHERE r.id = ${id} AND r.key_id = ${keyId}`;
    const r = rows[0];
    // A chain is kept as long as its newest turn.
    if (r === undefined || Number(r.chain_expires_at) <= now) return null;
    let items = r.items;
    if (r.previous_id !== null) {
      const chain = await this.#sql<{ previous_id: string | null; items: string }[]>`
        WITH RECURSIVE chain(id, previous_id, items, depth) AS (
          SELECT id, previous_id, items, 0 FROM responses WHERE id = ${id} AND key_id = ${keyId}
          UNION ALL
          SELECT r.id, r.previous_id, r.items, c.depth + 1 FROM responses r JOIN chain c ON r.id = c.previous_id
          WHERE r.key_id = ${keyId} AND c.depth < ${MAX_CHAIN})
        SELECT previous_id, items FROM chain ORDER BY depth DESC`;
      const whole = chainItems(chain);
      if (whole === null) return null;
      items = whole;
    }
    return {
      id: r.id,
      keyId: r.key_id,
      deployment: r.deployment,
      native: r.native,
      createdAt: r.created_at,
      expiresAt: r.expires_at,
      response: r.response,
      items,
      previousId: r.previous_id,
    };
  }

  async usage(keyId: string, _now: number): Promise<StoredUsage> {
    const [u] = await this.#sql<{ turns: number; bytes: number }[]>`
      SELECT COUNT(*)::int AS turns, COALESCE(SUM(LENGTH(response) + LENGTH(items)), 0)::bigint AS bytes
      FROM responses WHERE key_id = ${keyId}`;
    return { turns: Number(u.turns), bytes: Number(u.bytes) };
  }

  async delete(id: string, keyId: string): Promise<boolean> {
    return (await this.#sql`DELETE FROM responses WHERE id = ${id} AND key_id = ${keyId}`).count > 0;
  }

  async purge(now: number): Promise<number> {
    // Whole chains whose newest turn expired.
    return (
      await this.#sql`DELETE FROM responses WHERE COALESCE(chain_id, id) IN (
        SELECT COALESCE(chain_id, id) FROM responses GROUP BY COALESCE(chain_id, id) HAVING MAX(expires_at) <= ${now})`
    ).count;
  }

  async close(): Promise<void> {
    await this.#sql.end({ timeout: 5 });
  }
}

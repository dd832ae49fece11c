// A small PostgreSQL pool for one schema of the gateway's (entries, alerts, audit): connected, its tables
// migrated under an advisory lock of its own (replicas starting at once migrate one after the other), and
// each step reported. Its statements are written with `?` and numbered for PostgreSQL by `numberedSql`.
import type postgres from 'postgres';
import { maskDatabaseUrl, parseDatabaseUrl } from './database-url.ts';
import { migratePg, reportPg, type Migrations, type OnMigrated } from './migrations.ts';

export type Sql = postgres.Sql<Record<string, unknown>>;

export async function openMigratedPg(o: {
  databaseUrl: string;
  applicationName: string;
  /** This schema's advisory lock, no other schema's. */
  lock: number;
  migrations: Migrations;
  onMigrated?: OnMigrated;
  /** BIGINT columns read as numbers (unix ms), not strings. */
  bigintAsNumber?: boolean;
}): Promise<Sql> {
  const { url, schema } = parseDatabaseUrl(o.databaseUrl);
  const { default: connect } = await import('postgres');
  const { connectionOptions } = await import('./pg-usage-sql.js');
  const sql = connect(url, {
    ...connectionOptions({ schema, applicationName: o.applicationName }),
    max: 1,
    ...(o.bigintAsNumber === true
      ? {
          types: {
            bigint: { to: 20, from: [20], serialize: (x: number) => String(x), parse: (x: string) => Number(x) },
          },
        }
      : {}),
  }) as unknown as Sql;
  try {
    const from = await sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${o.lock})`;
      if (schema !== null) await tx.unsafe(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
      return migratePg(tx, o.migrations);
    });
    reportPg(o.migrations, from, o.onMigrated);
  } catch (err) {
    await sql.end({ timeout: 1 }).catch(() => undefined);
    throw new Error(`PostgreSQL at ${maskDatabaseUrl(o.databaseUrl)}: ${(err as Error).message}`);
  }
  return sql;
}

/** A statement written with `?` placeholders, numbered as PostgreSQL takes them (`$1`, `$2`, …). */
export function numberedSql(text: string): string {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
}

// Where a database's schemas stand against this build, read without writing: what `modelgate migrate
// --dry-run` lists before a rollout.
import { existsSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { isPostgresUrl, maskDatabaseUrl, parseDatabaseUrl } from './database-url.ts';
import { pgVersionReadOnly, sqliteVersionReadOnly, type Migrations } from './migrations.ts';

export interface SchemaStatus {
  name: string;
  /** The version the database is at (0: the schema is not there yet). */
  current: number;
  /** The version this build migrates to. */
  latest: number;
  /** The steps a migration would run, in order (empty when current ≥ latest). */
  pending: readonly string[];
}

function status(m: Migrations, current: number): SchemaStatus {
  return { name: m.name, current, latest: m.steps.length, pending: m.steps.slice(current) };
}

export async function schemaStatus(database: string): Promise<SchemaStatus[]> {
  if (isPostgresUrl(database)) return pgStatus(database);
  const { SQLITE_MIGRATIONS } = await import('./sqlite-store.ts');
  const { SQLITE_RESPONSE_MIGRATIONS } = await import('./sqlite-response-store.ts');
  const { CONVERSATION_SCHEMA } = await import('./conversation-store.ts');
  const { ENTRY_SCHEMA } = await import('./entry-store.ts');
  const schemas = [SQLITE_MIGRATIONS, SQLITE_RESPONSE_MIGRATIONS, CONVERSATION_SCHEMA, ENTRY_SCHEMA];
  if (database === ':memory:' || !existsSync(database)) return schemas.map((m) => status(m, 0));
  const db = new DatabaseSync(database, { readOnly: true });
  try {
    return schemas.map((m) => status(m, sqliteVersionReadOnly(db, m)));
  } finally {
    db.close();
  }
}

async function pgStatus(database: string): Promise<SchemaStatus[]> {
  const { PG_MIGRATIONS } = await import('./postgres-store.ts');
  const { PG_RESPONSE_MIGRATIONS } = await import('./pg-response-store.ts');
  const { CONVERSATION_SCHEMA } = await import('./conversation-store.ts');
  const { ENTRY_SCHEMA } = await import('./entry-store.ts');
  const { connectionOptions } = await import('./pg-usage-sql.js');
  const { url, schema } = parseDatabaseUrl(database);
  const { default: connect } = await import('postgres');
  const sql = connect(url, { ...connectionOptions({ schema, applicationName: 'modelgate-migrate' }), max: 1 });
  try {
    const out: SchemaStatus[] = [];
    for (const m of [PG_MIGRATIONS, PG_RESPONSE_MIGRATIONS, CONVERSATION_SCHEMA, ENTRY_SCHEMA])
      out.push(status(m, await pgVersionReadOnly(sql, m)));
    return out;
  } catch (err) {
    throw new Error(`PostgreSQL at ${maskDatabaseUrl(database)}: ${(err as Error).message}`);
  } finally {
    await sql.end({ timeout: 1 }).catch(() => undefined);
  }
}

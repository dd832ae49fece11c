// PostgreSQL for tests that need it: a live server, or a local skip — and a failure when CI=true
// (tests that need real components fail in CI if the component is missing). Each test keeps its tables
// in a schema of its own (`?schema=`), dropped after.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { maskDatabaseUrl } from '../../src/store/database-url.ts';

export const PG_URL = process.env.POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const WHERE = maskDatabaseUrl(PG_URL);

/** An open client (at most 2 connections), or null when the server cannot be reached. */
export async function pgClient(): Promise<postgres.Sql | null> {
  const sql = postgres(PG_URL, { connect_timeout: 2, max: 2, onnotice: () => undefined });
  try {
    await sql`SELECT 1`;
    return sql;
  } catch {
    await sql.end({ timeout: 1 }).catch(() => undefined);
    return null;
  }
}

/** Stands in for a file's PostgreSQL tests when there is no server: a failure in CI, a skip locally. */
export function pgUnavailable(name: string): void {
  if (process.env.CI === 'true')
    test(`${name}: PostgreSQL is reachable in CI`, () =>
      assert.fail(`PostgreSQL at ${WHERE} is unreachable and CI=true`));
  else test(name, { skip: `PostgreSQL at ${WHERE} is unreachable; skipped locally (it fails when CI=true)` }, () => {});
}

/** A client, or null after marking the test skipped (locally) — throws in CI. */
export async function pgOrSkip(t: TestContext): Promise<postgres.Sql | null> {
  const sql = await pgClient();
  if (sql !== null) return sql;
  if (process.env.CI === 'true') throw new Error(`PostgreSQL is required in CI at ${WHERE}`);
  t.skip(`PostgreSQL is not reachable at ${WHERE}; skipped locally (it fails when CI=true)`);
  return null;
}

/** A new schema name and the database URL that selects it. */
export function freshSchema(prefix: string): { schema: string; url: string } {
  const schema = `${prefix}_${randomBytes(6).toString('hex')}`;
  return { schema, url: `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}schema=${schema}` };
}

export async function dropSchema(sql: postgres.Sql, schema: string): Promise<void> {
  await sql.unsafe(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
}

// Chooses the store implementation from the `database` setting: a postgres:// URL, or an SQLite file.
import type { Store } from './store.ts';
import { SqliteStore } from './sqlite-store.ts';
import { isPostgresUrl } from './database-url.ts';

export async function openStore(database: string): Promise<Store> {
  if (isPostgresUrl(database)) {
    // Loaded only for PostgreSQL, like the Redis client: an SQLite gateway never pays for the driver.
    const { PostgresStore } = await import('./postgres-store.ts');
    return PostgresStore.open(database);
  }
  return new SqliteStore(database);
}

// Chooses the store implementation from the `database` setting: a postgres:// URL, or an SQLite file.
import type { Store } from './store.ts';
import { SqliteStore } from './sqlite-store.ts';
import { isPostgresUrl } from './database-url.ts';
import type { OnMigrated } from './migrations.ts';

/** `onMigrated`: each migration step run at open (the start logs them). */
export async function openStore(database: string, onMigrated?: OnMigrated): Promise<Store> {
  if (isPostgresUrl(database)) {
    // Loaded only for PostgreSQL, like the Redis client: an SQLite gateway never pays for the driver.
    const { PostgresStore } = await import('./postgres-store.ts');
    return PostgresStore.open(database, onMigrated);
  }
  return new SqliteStore(database, { onMigrated });
}

// Chooses the store implementation from the `database` setting.
import type { Store } from './store.ts';
import { SqliteStore } from './sqlite-store.ts';

export async function openStore(database: string): Promise<Store> {
  if (/^postgres(ql)?:\/\//.test(database)) {
    throw new Error('PostgreSQL storage is not available in this version; use an SQLite file path for `database`');
  }
  return new SqliteStore(database);
}

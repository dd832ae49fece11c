// Providers and models in PostgreSQL, shared by every replica: a pool of one connection with its own
// migration record; the version row is what each replica polls.
import { numberedSql, openMigratedPg, type Sql } from './pg-migrated.ts';
import type { OnMigrated } from './migrations.ts';
import { ENTRY_SCHEMA, ENTRY_SQL, type EntryKind, type EntryStore, type StoredEntry } from './entry-store.ts';

/** Not another schema's lock: each migrates independently. */
const MIGRATION_LOCK = 0x6d67_0004;

const SQL = Object.fromEntries(Object.entries(ENTRY_SQL).map(([k, v]) => [k, numberedSql(v)])) as Record<
  keyof typeof ENTRY_SQL,
  string
>;

export async function openPgEntries(databaseUrl: string, onMigrated?: OnMigrated): Promise<EntryStore> {
  const sql = await openMigratedPg({
    databaseUrl,
    applicationName: 'modelgate-entries',
    lock: MIGRATION_LOCK,
    migrations: ENTRY_SCHEMA,
    onMigrated,
  });
  const write = async (change: (tx: Sql) => Promise<boolean>): Promise<boolean> =>
    (await sql.begin(async (tx) => {
      const changed = await change(tx as unknown as Sql);
      if (changed) await tx.unsafe(SQL.bump);
      return changed;
    })) as boolean;
  return {
    async list() {
      return [...(await sql.unsafe<StoredEntry[]>(SQL.list))];
    },
    async version() {
      const [row] = await sql.unsafe<{ v: string | number }[]>(SQL.version);
      return Number(row?.v ?? 0);
    },
    put(entry, mode) {
      const now = Date.now();
      return write(
        async (tx) =>
          (mode === 'create'
            ? await tx.unsafe(SQL.insert, [entry.kind, entry.name, entry.body, now, now])
            : await tx.unsafe(SQL.update, [entry.body, now, entry.kind, entry.name])
          ).count > 0,
      );
    },
    remove(kind: EntryKind, name: string) {
      return write(async (tx) => (await tx.unsafe(SQL.remove, [kind, name])).count > 0);
    },
    close: () => sql.end({ timeout: 5 }),
  };
}

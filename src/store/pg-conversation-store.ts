// Conversations in PostgreSQL, so every gateway host serves every conversation: a pool of its own (two
// connections) with its own migration record, running the statements of conversation-sql.js.
import type postgres from 'postgres';
import { maskDatabaseUrl, parseDatabaseUrl } from './database-url.ts';
import { connectionOptions } from './pg-usage-sql.js';
import type { ConversationOp } from './conversation-sql.js';
import { CONVERSATION_SCHEMA, ConversationStore, numbered } from './conversation-store.ts';
import { migratePg, reportPg, type OnMigrated } from './migrations.ts';

type Sql = postgres.Sql<Record<string, unknown>>;

/** Not the store's or the responses' lock: each migrates independently. */
const MIGRATION_LOCK = 0x6d67_0003;

export async function openPgConversations(databaseUrl: string, onMigrated?: OnMigrated): Promise<ConversationStore> {
  const { url, schema } = parseDatabaseUrl(databaseUrl);
  const { default: connect } = await import('postgres');
  const sql = connect(url, {
    ...connectionOptions({ schema, applicationName: 'modelgate-conversations' }),
    max: 2,
    types: { bigint: { to: 20, from: [20], serialize: (x: number) => String(x), parse: (x: string) => Number(x) } },
  }) as unknown as Sql;
  try {
    const from = await sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
      if (schema !== null) await tx.unsafe(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
      return migratePg(tx, CONVERSATION_SCHEMA);
    });
    reportPg(CONVERSATION_SCHEMA, from, onMigrated);
  } catch (err) {
    await sql.end({ timeout: 1 }).catch(() => undefined);
    throw new Error(`PostgreSQL at ${maskDatabaseUrl(databaseUrl)}: ${(err as Error).message}`);
  }
  const one = async (tx: Sql | postgres.TransactionSql, op: ConversationOp): Promise<unknown> => {
    const rows = await tx.unsafe(numbered(op.sql), op.args);
    if (op.mode === 'all') return [...rows];
    if (op.mode === 'get') return rows[0] ?? null;
    return rows.count;
  };
  const run = async (ops: ConversationOp[]): Promise<unknown[]> => {
    if (ops.length === 1) return [await one(sql, ops[0])];
    return (await sql.begin(async (tx) => {
      const out: unknown[] = [];
      // One at a time: each append reads the sequence the one before it wrote.
      for (const op of ops) out.push(await one(tx as unknown as Sql, op));
      return out;
    })) as unknown[];
  };
  return new ConversationStore(run, () => sql.end({ timeout: 5 }));
}

// Conversations of the Responses API (POST /v1/conversations and its items), owned by the key that made
// them and kept until deleted. One interface over SQLite (a thread of its own) and PostgreSQL; both run
// the statements of conversation-sql.js.
import { CONVERSATION_MIGRATIONS, CONVERSATION_SQL, type ConversationOp } from './conversation-sql.js';
import type { Migrations, OnMigrated } from './migrations.ts';
import { CallSignatureStore, type CallSignatureStoreOptions } from './call-signature-store.ts';

/** The conversations schema (migrations.ts), one text for SQLite and PostgreSQL: its steps only ever grow at the end. */
export const CONVERSATION_SCHEMA: Migrations = {
  name: 'conversations',
  table: 'conversations_schema_version',
  steps: CONVERSATION_MIGRATIONS,
};

export interface Conversation {
  id: string;
  keyId: string;
  /** Unix seconds. */
  createdAt: number;
  /** JSON object text. */
  metadata: string;
}

/** One stored item: its id and its JSON text. */
export interface ConversationItem {
  id: string;
  item: string;
}

/** Runs operations in one transaction, each answered by its rows, its row (or null), or its changed-row count. */
export type RunOps = (ops: ConversationOp[]) => Promise<unknown[]>;

interface Row {
  id: string;
  key_id: string;
  created_at: number | bigint;
  metadata: string;
}

function conversationOf(r: Row | null): Conversation | null {
  return r === null ? null : { id: r.id, keyId: r.key_id, createdAt: Number(r.created_at), metadata: r.metadata };
}

function appendOps(conversationId: string, keyId: string, items: readonly ConversationItem[]): ConversationOp[] {
  return items.map((i) => ({
    sql: 'append' as const,
    args: [conversationId, conversationId, i.id, i.item, conversationId, keyId],
    mode: 'run' as const,
  }));
}

export class ConversationStore {
  readonly #run: RunOps;
  readonly #close: () => Promise<void>;

  constructor(run: RunOps, close: () => Promise<void>) {
    this.#run = run;
    this.#close = close;
  }

  /** The thought signatures of tool calls kept in the same schema, through the same connection. */
  callSignatures(opts: CallSignatureStoreOptions): CallSignatureStore {
    return new CallSignatureStore(this.#run, opts);
  }

  async create(c: Conversation, items: readonly ConversationItem[]): Promise<void> {
    await this.#run([
      { sql: 'create', args: [c.id, c.keyId, c.createdAt, c.metadata], mode: 'run' },
      ...appendOps(c.id, c.keyId, items),
    ]);
  }

  async get(id: string, keyId: string): Promise<Conversation | null> {
    const [row] = await this.#run([{ sql: 'get', args: [id, keyId], mode: 'get' }]);
    return conversationOf(row as Row | null);
  }

  async update(id: string, keyId: string, metadata: string): Promise<Conversation | null> {
    const [, row] = await this.#run([
      { sql: 'update', args: [metadata, id, keyId], mode: 'run' },
      { sql: 'get', args: [id, keyId], mode: 'get' },
    ]);
    return conversationOf(row as Row | null);
  }

  async delete(id: string, keyId: string): Promise<boolean> {
    const [n] = await this.#run([{ sql: 'delete', args: [id, keyId], mode: 'run' }]);
    if ((n as number) === 0) return false;
    await this.#run([{ sql: 'deleteItems', args: [id], mode: 'run' }]);
    return true;
  }

  /** The conversation's items in order, or null when the key has no such conversation. */
  async items(id: string, keyId: string): Promise<ConversationItem[] | null> {
    const [conv, rows] = await this.#run([
      { sql: 'get', args: [id, keyId], mode: 'get' },
      { sql: 'items', args: [id, keyId], mode: 'all' },
    ]);
    return conv === null ? null : (rows as ConversationItem[]);
  }

  /** Appends items in order; false when the key has no such conversation. */
  async append(id: string, keyId: string, items: readonly ConversationItem[]): Promise<boolean> {
    const out = await this.#run([{ sql: 'get', args: [id, keyId], mode: 'get' }, ...appendOps(id, keyId, items)]);
    return out[0] !== null;
  }

  async deleteItem(id: string, keyId: string, itemId: string): Promise<boolean> {
    const [n] = await this.#run([{ sql: 'deleteItem', args: [id, itemId, id, keyId], mode: 'run' }]);
    return (n as number) > 0;
  }

  close(): Promise<void> {
    return this.#close();
  }
}

export async function openConversationStore(
  database: string,
  isPostgres: boolean,
  onMigrated?: OnMigrated,
): Promise<ConversationStore> {
  if (isPostgres) {
    const { openPgConversations } = await import('./pg-conversation-store.ts');
    return openPgConversations(database, onMigrated);
  }
  const { openSqliteConversations } = await import('./sqlite-conversation-store.ts');
  return openSqliteConversations(database, onMigrated);
}

/** PostgreSQL's numbered placeholders for a statement written with `?`. */
export function numbered(name: keyof typeof CONVERSATION_SQL): string {
  let n = 0;
  return CONVERSATION_SQL[name].replace(/\?/g, () => `$${++n}`);
}

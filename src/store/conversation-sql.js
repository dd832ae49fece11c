// The conversations tables (the Conversations API, and the thought signatures of tool calls kept for a
// key's next turn: spec/call-signatures.ts): migrations and statements written once, with `?`
// placeholders, for SQLite (sqlite-conversation-store.ts and its thread) and PostgreSQL
// (pg-conversation-store.ts numbers them). JavaScript with JSDoc types, as response-sql.js: the thread
// loads it without Node's type stripper.

export const CONVERSATION_MIGRATIONS = [
  `CREATE TABLE IF NOT EXISTS conversations (
     id TEXT PRIMARY KEY, key_id TEXT NOT NULL, created_at BIGINT NOT NULL, metadata TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS conversation_items (
     conversation_id TEXT NOT NULL, seq BIGINT NOT NULL, id TEXT NOT NULL, item TEXT NOT NULL,
     PRIMARY KEY (conversation_id, seq))`,
  `CREATE TABLE IF NOT EXISTS call_signatures (
     key_id TEXT NOT NULL, call_id TEXT NOT NULL, model TEXT NOT NULL, signature TEXT NOT NULL,
     created_at BIGINT NOT NULL, PRIMARY KEY (key_id, call_id))`,
  `CREATE INDEX IF NOT EXISTS call_signatures_created ON call_signatures (created_at)`,
];

/** How many call ids one findSignatures looks up: the statement is one text, its list padded with ''. */
export const FIND_SIGNATURES = 16;

/** Every statement is scoped to the key: another key's conversation is as absent as an unknown one. */
export const CONVERSATION_SQL = {
  create: 'INSERT INTO conversations (id, key_id, created_at, metadata) VALUES (?, ?, ?, ?)',
  get: 'SELECT id, key_id, created_at, metadata FROM conversations WHERE id = ? AND key_id = ?',
  update: 'UPDATE conversations SET metadata = ? WHERE id = ? AND key_id = ?',
  delete: 'DELETE FROM conversations WHERE id = ? AND key_id = ?',
  deleteItems: 'DELETE FROM conversation_items WHERE conversation_id = ?',
  /** Args: conversation id (×2), item id, item JSON, conversation id, key id. */
  append: `INSERT INTO conversation_items (conversation_id, seq, id, item)
    SELECT ?, COALESCE((SELECT MAX(seq) FROM conversation_items WHERE conversation_id = ?), 0) + 1, ?, ?
    WHERE EXISTS (SELECT 1 FROM conversations WHERE id = ? AND key_id = ?)`,
  items: `SELECT i.id, i.item FROM conversation_items i JOIN conversations c ON c.id = i.conversation_id
    WHERE i.conversation_id = ? AND c.key_id = ? ORDER BY i.seq`,
  deleteItem: `DELETE FROM conversation_items WHERE conversation_id = ? AND id = ?
    AND EXISTS (SELECT 1 FROM conversations WHERE id = ? AND key_id = ?)`,
  /** Args: key id, call id, model, signature, unix ms. The latest signature of a call wins. */
  keepSignature: `INSERT INTO call_signatures (key_id, call_id, model, signature, created_at) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (key_id, call_id) DO UPDATE SET model = excluded.model, signature = excluded.signature,
    created_at = excluded.created_at`,
  /** Args: key id, model, oldest unix ms still kept, then FIND_SIGNATURES call ids ('' for each unused one). */
  findSignatures: `SELECT call_id, signature FROM call_signatures
    WHERE key_id = ? AND model = ? AND created_at > ? AND call_id IN (${Array(FIND_SIGNATURES).fill('?').join(', ')})`,
  /** Args: unix ms; every signature kept at or before it goes. */
  purgeSignatures: 'DELETE FROM call_signatures WHERE created_at <= ?',
};

/**
 * @typedef {{ sql: keyof typeof CONVERSATION_SQL; args: (string | number)[]; mode: 'run' | 'get' | 'all' }} ConversationOp
 * @typedef {{ id: number; ops: ConversationOp[] }} ToConversationThread
 * @typedef {{ id: number; result: unknown[] | null; error: string | null }} FromConversationThread
 */

/**
 * Runs operations in one transaction: each one's rows (`all`), row or null (`get`), or changed-row count.
 * @param {import('node:sqlite').DatabaseSync} db
 * @param {Map<string, import('node:sqlite').StatementSync>} cache
 * @param {ConversationOp[]} ops
 * @returns {unknown[]}
 */
export function runConversationOps(db, cache, ops) {
  /** @param {ConversationOp} op */
  const one = (op) => {
    let st = cache.get(op.sql);
    if (st === undefined) {
      st = db.prepare(CONVERSATION_SQL[op.sql]);
      cache.set(op.sql, st);
    }
    if (op.mode === 'all') return st.all(...op.args);
    if (op.mode === 'get') return st.get(...op.args) ?? null;
    return Number(st.run(...op.args).changes);
  };
  if (ops.length === 1) return [one(ops[0])];
  db.exec('BEGIN IMMEDIATE');
  try {
    const out = ops.map(one);
    db.exec('COMMIT');
    return out;
  } catch (err) {
    db.exec('ROLLBACK');
    throw err;
  }
}

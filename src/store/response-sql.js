// The stored-responses table in SQLite: its migrations and statements, shared by the store (which
// migrates at start) and its thread (sqlite-response-worker.js, which serves the requests). JavaScript
// with JSDoc types, as usage-sql.js: a thread that loads TypeScript starts Node's type stripper too.

export const RESPONSE_MIGRATIONS = [
  `CREATE TABLE IF NOT EXISTS responses (
     id TEXT PRIMARY KEY, key_id TEXT NOT NULL, deployment TEXT, native INTEGER NOT NULL,
     created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, response TEXT NOT NULL, items TEXT NOT NULL)`,
  `CREATE INDEX IF NOT EXISTS responses_expires ON responses (expires_at)`,
];

export const RESPONSE_SQL = {
  put: 'INSERT OR REPLACE INTO responses (id, key_id, deployment, native, created_at, expires_at, response, items) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  get: 'SELECT * FROM responses WHERE id = ? AND key_id = ? AND expires_at > ?',
  delete: 'DELETE FROM responses WHERE id = ? AND key_id = ?',
  purge: 'DELETE FROM responses WHERE expires_at <= ?',
  next: 'SELECT MIN(expires_at) AS next FROM responses',
};

/** @param {import('node:sqlite').DatabaseSync} db */
export function prepareResponseStatements(db) {
  return {
    put: db.prepare(RESPONSE_SQL.put),
    get: db.prepare(RESPONSE_SQL.get),
    delete: db.prepare(RESPONSE_SQL.delete),
    purge: db.prepare(RESPONSE_SQL.purge),
    next: db.prepare(RESPONSE_SQL.next),
  };
}

/**
 * @typedef {{ id: string; key_id: string; deployment: string | null; native: number; created_at: number; expires_at: number; response: string; items: string }} ResponseRow
 * @typedef {{ id: number; op: 'put' | 'get' | 'delete' | 'purge' | 'next'; args: (string | number | null)[] }} ToResponseThread
 * @typedef {{ id: number; result: ResponseRow | number | null; error: string | null }} FromResponseThread
 */

/**
 * Runs one operation on prepared statements: the row for `get`, the earliest expiry for `next` (null
 * when there is no row), the rows changed otherwise.
 * @param {Record<ToResponseThread['op'], import('node:sqlite').StatementSync>} statements
 * @param {ToResponseThread['op']} op
 * @param {(string | number | null)[]} args
 * @returns {ResponseRow | number | null}
 */
export function runResponseOp(statements, op, args) {
  if (op === 'get') return /** @type {ResponseRow | undefined} */ (statements.get.get(...args)) ?? null;
  if (op === 'next') return /** @type {{ next: number | null }} */ (statements.next.get()).next;
  return Number(statements[op].run(...args).changes);
}

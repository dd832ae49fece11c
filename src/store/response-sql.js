// The stored-responses table in SQLite: its migrations and statements, shared by the store (which
// migrates at start) and its thread (sqlite-response-worker.js, which serves the requests). JavaScript
// with JSDoc types, as usage-sql.js: a thread that loads TypeScript starts Node's type stripper too.

export const RESPONSE_MIGRATIONS = [
  `CREATE TABLE IF NOT EXISTS responses (
     id TEXT PRIMARY KEY, key_id TEXT NOT NULL, deployment TEXT, native INTEGER NOT NULL,
     created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, response TEXT NOT NULL, items TEXT NOT NULL)`,
  `CREATE INDEX IF NOT EXISTS responses_expires ON responses (expires_at)`,
  // Each turn stores only what it adds (its input and output items) and the response it continues: the
  // conversation is read by following `previous_id`. A chain (every turn from one first turn, `chain_id`)
  // is kept as long as its newest turn and purged whole. Rows from before hold their whole conversation
  // and neither column, so they read as they did.
  `ALTER TABLE responses ADD COLUMN previous_id TEXT`,
  `ALTER TABLE responses ADD COLUMN chain_id TEXT`,
  `CREATE INDEX IF NOT EXISTS responses_key ON responses (key_id)`,
  `CREATE INDEX IF NOT EXISTS responses_chain ON responses (chain_id)`,
];

/** A chain longer than this is read as broken (it cannot be made by one key within any quota). */
export const MAX_CHAIN = 100000;

export const RESPONSE_SQL = {
  // A turn joins its previous turn's chain; a first turn starts its own.
  put: `INSERT OR REPLACE INTO responses (id, key_id, deployment, native, created_at, expires_at, response, items, previous_id, chain_id)
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9,
      COALESCE((SELECT COALESCE(chain_id, id) FROM responses WHERE id = ?9 AND key_id = ?2), ?1))`,
  // The row and when its chain expires (its newest turn's expiry).
  get: `SELECT r.*, (SELECT MAX(c.expires_at) FROM responses c WHERE COALESCE(c.chain_id, c.id) = COALESCE(r.chain_id, r.id))
    AS chain_expires_at FROM responses r WHERE r.id = ? AND r.key_id = ?`,
  // The chain from a response back to its first turn, oldest first, each step the same key's.
  chain: `WITH RECURSIVE chain(id, previous_id, items, depth) AS (
      SELECT id, previous_id, items, 0 FROM responses WHERE id = ? AND key_id = ?
      UNION ALL
      SELECT r.id, r.previous_id, r.items, c.depth + 1 FROM responses r JOIN chain c ON r.id = c.previous_id
      WHERE r.key_id = ? AND c.depth < ${MAX_CHAIN})
    SELECT previous_id, items FROM chain ORDER BY depth DESC`,
  usage:
    'SELECT COUNT(*) AS turns, COALESCE(SUM(LENGTH(response) + LENGTH(items)), 0) AS bytes FROM responses WHERE key_id = ?',
  delete: 'DELETE FROM responses WHERE id = ? AND key_id = ?',
  // Whole chains whose newest turn expired.
  purge: `DELETE FROM responses WHERE COALESCE(chain_id, id) IN (
      SELECT COALESCE(chain_id, id) FROM responses GROUP BY COALESCE(chain_id, id) HAVING MAX(expires_at) <= ?)`,
  next: 'SELECT MIN(e) AS next FROM (SELECT MAX(expires_at) AS e FROM responses GROUP BY COALESCE(chain_id, id))',
};

/** @param {import('node:sqlite').DatabaseSync} db */
export function prepareResponseStatements(db) {
  return {
    put: db.prepare(RESPONSE_SQL.put),
    get: db.prepare(RESPONSE_SQL.get),
    chain: db.prepare(RESPONSE_SQL.chain),
    usage: db.prepare(RESPONSE_SQL.usage),
    delete: db.prepare(RESPONSE_SQL.delete),
    purge: db.prepare(RESPONSE_SQL.purge),
    next: db.prepare(RESPONSE_SQL.next),
  };
}

/**
 * @typedef {{ id: string; key_id: string; deployment: string | null; native: number; created_at: number; expires_at: number; response: string; items: string; previous_id: string | null; chain_expires_at: number }} ResponseRow
 * @typedef {{ turns: number; bytes: number }} ResponseUsage
 * @typedef {{ id: number; op: 'put' | 'get' | 'delete' | 'purge' | 'next' | 'usage'; args: (string | number | null)[] }} ToResponseThread
 * @typedef {{ id: number; result: ResponseRow | ResponseUsage | number | null; error: string | null }} FromResponseThread
 */

/**
 * The whole conversation of a response as one JSON array text: its ancestors' items, oldest first, then
 * its own. Null when the chain is broken (an ancestor expired, deleted or another key's).
 * @param {{ previous_id: string | null; items: string }[]} chain oldest first
 * @returns {string | null}
 */
export function chainItems(chain) {
  if (chain.length === 0 || chain[0].previous_id !== null) return null;
  const parts = [];
  for (const row of chain) {
    const inner = row.items.trim().slice(1, -1).trim();
    if (inner !== '') parts.push(inner);
  }
  return `[${parts.join(',')}]`;
}

/**
 * Runs one operation on prepared statements: the row for `get`, the earliest expiry for `next` (null
 * when there is no row), the rows changed otherwise.
 * @param {ReturnType<typeof prepareResponseStatements>} statements
 * @param {ToResponseThread['op']} op
 * @param {(string | number | null)[]} args
 * @returns {ResponseRow | ResponseUsage | number | null}
 */
export function runResponseOp(statements, op, args) {
  if (op === 'get') {
    const [id, keyId, now] = args;
    const row = /** @type {ResponseRow | undefined} */ (statements.get.get(id, keyId)) ?? null;
    if (row === null || row.chain_expires_at <= Number(now)) return null;
    if (row.previous_id === null) return row;
    const chain = /** @type {{ previous_id: string | null; items: string }[]} */ (
      statements.chain.all(id, keyId, keyId)
    );
    const items = chainItems(chain);
    return items === null ? null : { ...row, items };
  }
  if (op === 'next') return /** @type {{ next: number | null }} */ (statements.next.get()).next;
  if (op === 'usage') return /** @type {ResponseUsage} */ (statements.usage.get(args[0]));
  return Number(statements[op].run(...args).changes);
}

// Writing usage rows into SQLite: the statements and the one-transaction batch, shared by the store's
// own connection (an in-memory database, tests) and the writer thread (usage-thread-worker.js).
// JavaScript with JSDoc types, checked by tsc like the rest: the writer thread loads it, and a thread
// that loads TypeScript starts Node's type stripper in its own isolate (usage-thread-worker.js).
/** @import { DatabaseSync, StatementSync } from 'node:sqlite' */
/** @import { UsageRow } from './store.ts' */

const INSERT_USAGE_HEAD = `INSERT INTO usage (ts, request_id, key_id, endpoint, model, deployment, status, input_tokens,
  output_tokens, cache_read_tokens, cache_write_tokens, cost_nanos, latency_ms, ttfb_ms, streamed, attempts, period_start, error_code, routing,
  cost_breakdown, redactions, session_id, request_bytes, response_bytes, error_message, attempt_log)`;
const USAGE_COLUMNS = 26;
/** Rows per INSERT statement at most, a power of two (26 × 64 = 1,664 parameters, under SQLite's 32,766 limit). */
export const INSERT_BATCH = 64;

const ADD_SPEND_SQL = `INSERT INTO key_spend (key_id, period_start, spent_nanos, spent_tokens) VALUES (?, ?, ?, ?)
  ON CONFLICT (key_id, period_start) DO UPDATE SET spent_nanos = spent_nanos + excluded.spent_nanos,
    spent_tokens = spent_tokens + excluded.spent_tokens`;

/** Each key's latest use: a key list shows it without scanning the usage table (the newer time wins). */
const TOUCH_KEY_SQL = `INSERT INTO key_last_used (key_id, ts) VALUES (?, ?)
  ON CONFLICT (key_id) DO UPDATE SET ts = MAX(ts, excluded.ts)`;

/** @typedef {string | number | null} SqlValue */

/**
 * One key's latest row time in a batch: [keyId, ts].
 * @typedef {[string, number]} KeyUse
 */

/**
 * One logged request's bodies (body logging, already masked): [requestId, ts, keyId, request, response].
 * @typedef {[string, number, string, string | null, string | null]} BodyRow
 */

const ADD_BODY_SQL = `INSERT INTO request_bodies (request_id, ts, key_id, request, response) VALUES (?, ?, ?, ?, ?)`;

/**
 * The bodies of the rows that carry them (few: body logging is for chosen keys and teams).
 * @param {readonly UsageRow[]} rows
 * @returns {BodyRow[]}
 */
export function bodyValues(rows) {
  /** @type {BodyRow[]} */
  const out = [];
  for (const r of rows) {
    const request = r.requestBody ?? null;
    const response = r.responseBody ?? null;
    if (request !== null || response !== null) out.push([r.requestId, r.ts, r.keyId, request, response]);
  }
  return out;
}

/**
 * One key's spend in one period, summed over a batch: [keyId, periodStart, nanos, tokens].
 * @typedef {[string, number, number, number]} SpendDelta
 */

/**
 * The statement parameters of up to INSERT_BATCH rows, flat: what crosses to the writer thread. Built by
 * push, not into a presized array: a presized array is holey, and V8 serialises a holey array element by
 * element with its index, which makes posting a batch slower and its message larger.
 * @param {readonly UsageRow[]} rows
 * @returns {SqlValue[]}
 */
export function rowValues(rows) {
  /** @type {SqlValue[]} */
  const values = [];
  for (const r of rows) {
    values.push(
      r.ts,
      r.requestId,
      r.keyId,
      r.endpoint,
      r.model,
      r.deployment,
      r.status,
      r.inputTokens,
      r.outputTokens,
      r.cacheReadTokens,
      r.cacheWriteTokens,
      r.costNanos,
      r.latencyMs,
      r.ttfbMs,
      r.streamed ? 1 : 0,
      r.attempts,
      r.periodStart,
      r.errorCode,
      r.routing ?? null,
      r.costBreakdown ?? null,
      r.redactions ?? 0,
      r.sessionId ?? null,
      r.requestBytes ?? null,
      r.responseBytes ?? null,
      r.errorMessage ?? null,
      r.attemptLog ?? null,
    );
  }
  return values;
}

/**
 * Per-key (and per-team) totals summed in JS first: one upsert per (subject, period) per batch, not per row.
 * @param {readonly UsageRow[]} rows
 * @returns {SpendDelta[]}
 */
export function spendDeltas(rows) {
  /** @type {Map<string, Map<number, SpendDelta>>} */
  const byKey = new Map();
  /** @param {string} subject @param {number} period @param {number} nanos @param {number} tokens */
  const add = (subject, period, nanos, tokens) => {
    let periods = byKey.get(subject);
    if (periods === undefined) byKey.set(subject, (periods = new Map()));
    const d = periods.get(period);
    if (d === undefined) periods.set(period, [subject, period, nanos, tokens]);
    else {
      d[2] += nanos;
      d[3] += tokens;
    }
  };
  for (const r of rows) {
    const tokens = r.inputTokens + r.outputTokens + r.cacheReadTokens + r.cacheWriteTokens;
    if (r.costNanos === 0 && tokens === 0) continue;
    add(r.keyId, r.periodStart, r.costNanos, tokens);
    // A team's spend is a row of its own (subject `team:<id>`, in the team's period): its budget is
    // loaded from it as a key's is, whatever keys join or leave the team.
    if (r.teamId !== undefined && r.teamId !== null)
      add(`team:${r.teamId}`, r.teamPeriodStart ?? 0, r.costNanos, tokens);
  }
  /** @type {SpendDelta[]} */
  const out = [];
  for (const periods of byKey.values()) for (const d of periods.values()) out.push(d);
  return out;
}

/**
 * Each key's newest row time in the batch: one upsert per key per batch, not per row.
 * @param {readonly UsageRow[]} rows
 * @returns {KeyUse[]}
 */
export function keyUses(rows) {
  /** @type {Map<string, number>} */
  const latest = new Map();
  for (const r of rows) {
    const seen = latest.get(r.keyId);
    if (seen === undefined || r.ts > seen) latest.set(r.keyId, r.ts);
  }
  return [...latest];
}

/** The prepared statements of one connection. */
export class UsageStatements {
  /** @readonly @type {DatabaseSync} */
  #db;
  /** @readonly @type {Map<number, StatementSync>} */
  #inserts = new Map();
  /** @readonly @type {StatementSync} */
  #addSpend;
  /** @readonly @type {StatementSync} */
  #touchKey;
  /** @type {StatementSync | null} */
  #addBody = null;

  /** @param {DatabaseSync} db */
  constructor(db) {
    this.#db = db;
    this.#addSpend = db.prepare(ADD_SPEND_SQL);
    this.#touchKey = db.prepare(TOUCH_KEY_SQL);
  }

  /**
   * @param {readonly BodyRow[]} bodies
   * @returns {void}
   */
  addBodies(bodies) {
    if (bodies.length === 0) return;
    const stmt = (this.#addBody ??= this.#db.prepare(ADD_BODY_SQL));
    for (const b of bodies) stmt.run(...b);
  }

  /**
   * Inserts `values` (rowValues of up to INSERT_BATCH rows) in as few crossings into SQLite as the row
   * count's binary digits: statements exist for powers of two only (1, 2, 4 … INSERT_BATCH), so a
   * connection prepares at most seven however its batches vary, each once, instead of one per batch size
   * met (each prepared anew at its first use, the largest holding 1,664 parameters).
   * @param {readonly SqlValue[]} values
   * @returns {void}
   */
  insert(values) {
    let rows = values.length / USAGE_COLUMNS;
    if (!Number.isInteger(rows) || rows > INSERT_BATCH)
      throw new Error(
        `usage insert: ${values.length} values are not whole rows of ${USAGE_COLUMNS}, ${INSERT_BATCH} at most`,
      );
    let at = 0;
    for (let size = INSERT_BATCH; rows > 0; size >>= 1) {
      if (rows < size) continue;
      const end = at + size * USAGE_COLUMNS;
      const part = at === 0 && end === values.length ? values : values.slice(at, end);
      this.#statement(size).run(...part);
      at = end;
      rows -= size;
    }
  }

  /**
   * @param {number} rows a power of two up to INSERT_BATCH
   * @returns {StatementSync}
   */
  #statement(rows) {
    let stmt = this.#inserts.get(rows);
    if (stmt === undefined) {
      const one = `(${new Array(USAGE_COLUMNS).fill('?').join(', ')})`;
      stmt = this.#db.prepare(`${INSERT_USAGE_HEAD} VALUES ${new Array(rows).fill(one).join(', ')}`);
      this.#inserts.set(rows, stmt);
    }
    return stmt;
  }

  /**
   * @param {readonly SpendDelta[]} deltas
   * @returns {void}
   */
  addSpend(deltas) {
    for (const [keyId, period, nanos, tokens] of deltas) this.#addSpend.run(keyId, period, nanos, tokens);
  }

  /**
   * @param {readonly KeyUse[]} uses
   * @returns {void}
   */
  touchKeys(uses) {
    for (const [keyId, ts] of uses) this.#touchKey.run(keyId, ts);
  }
}

/**
 * Runs `body` inside BEGIN IMMEDIATE … COMMIT; on any failure rolls back and rethrows the original error.
 * @param {DatabaseSync} db
 * @param {() => Promise<void> | void} body
 * @returns {Promise<void>}
 */
export async function inTransaction(db, body) {
  db.exec('BEGIN IMMEDIATE');
  try {
    await body();
    db.exec('COMMIT');
  } catch (err) {
    rollback(db);
    throw err;
  }
}

/**
 * Rolls back; SQLite may have done so already (SQLITE_FULL does), and the original error is the one to report.
 * @param {DatabaseSync} db
 * @returns {void}
 */
export function rollback(db) {
  try {
    db.exec('ROLLBACK');
  } catch {
    // no transaction left to roll back
  }
}

/**
 * A writer thread's error as plain data for the message back to the event loop (usage-thread.ts turns it
 * into an Error again): the message and the codes SQLite and PostgreSQL give (`SQLITE_BUSY`, `57014`).
 * @param {unknown} err
 * @returns {import('./usage-thread-worker.js').WriterError}
 */
export function describeError(err) {
  if (!(err instanceof Error)) return { message: String(err) };
  const e = /** @type {Error & { code?: unknown; errcode?: unknown; errstr?: unknown }} */ (err);
  return {
    message: e.message,
    ...(typeof e.code === 'string' ? { code: e.code } : {}),
    ...(typeof e.errcode === 'number' ? { errcode: e.errcode } : {}),
    ...(typeof e.errstr === 'string' ? { errstr: e.errstr } : {}),
  };
}

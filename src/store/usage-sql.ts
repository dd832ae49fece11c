// Writing usage rows into SQLite: the statements and the one-transaction batch, shared by the store's
// own connection (an in-memory database, tests) and the writer thread (usage-thread-worker.ts).
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { UsageRow } from './store.ts';

const INSERT_USAGE_HEAD = `INSERT INTO usage (ts, request_id, key_id, endpoint, model, deployment, status, input_tokens,
  output_tokens, cache_read_tokens, cache_write_tokens, cost_nanos, latency_ms, ttfb_ms, streamed, attempts, period_start, error_code)`;
const USAGE_COLUMNS = 18;
/** Rows per INSERT statement (18 × 64 = 1,152 parameters, under SQLite's 32,766 limit). */
export const INSERT_BATCH = 64;

const ADD_SPEND_SQL = `INSERT INTO key_spend (key_id, period_start, spent_nanos, spent_tokens) VALUES (?, ?, ?, ?)
  ON CONFLICT (key_id, period_start) DO UPDATE SET spent_nanos = spent_nanos + excluded.spent_nanos,
    spent_tokens = spent_tokens + excluded.spent_tokens`;

export type SqlValue = string | number | null;

/** One key's spend in one period, summed over a batch: [keyId, periodStart, nanos, tokens]. */
export type SpendDelta = [string, number, number, number];

/**
 * The statement parameters of up to INSERT_BATCH rows, flat: what crosses to the writer thread. Built by
 * push, not into a presized array: a presized array is holey, and V8 serialises a holey array element by
 * element with its index (measured: 3 – 4 × the event loop's time a row to post, 175 bytes a row against 122).
 */
export function rowValues(rows: readonly UsageRow[]): SqlValue[] {
  const values: SqlValue[] = [];
  for (const r of rows) {
    values.push(r.ts, r.requestId, r.keyId, r.endpoint, r.model, r.deployment, r.status, r.inputTokens,
      r.outputTokens, r.cacheReadTokens, r.cacheWriteTokens, r.costNanos, r.latencyMs, r.ttfbMs, r.streamed ? 1 : 0,
      r.attempts, r.periodStart, r.errorCode);
  }
  return values;
}

/** Per-key totals summed in JS first: one upsert per (key, period) per batch, not per row. */
export function spendDeltas(rows: readonly UsageRow[]): SpendDelta[] {
  const byKey = new Map<string, Map<number, SpendDelta>>();
  for (const r of rows) {
    const tokens = r.inputTokens + r.outputTokens + r.cacheReadTokens + r.cacheWriteTokens;
    if (r.costNanos === 0 && tokens === 0) continue;
    let periods = byKey.get(r.keyId);
    if (periods === undefined) byKey.set(r.keyId, (periods = new Map()));
    const d = periods.get(r.periodStart);
    if (d === undefined) periods.set(r.periodStart, [r.keyId, r.periodStart, r.costNanos, tokens]);
    else {
      d[2] += r.costNanos;
      d[3] += tokens;
    }
  }
  const out: SpendDelta[] = [];
  for (const periods of byKey.values()) for (const d of periods.values()) out.push(d);
  return out;
}

/** The prepared statements of one connection. */
export class UsageStatements {
  readonly #db: DatabaseSync;
  readonly #inserts = new Map<number, StatementSync>();
  readonly #addSpend: StatementSync;

  constructor(db: DatabaseSync) {
    this.#db = db;
    this.#addSpend = db.prepare(ADD_SPEND_SQL);
  }

  /** Inserts `values` (rowValues of up to INSERT_BATCH rows): one crossing into SQLite for them all. */
  insert(values: readonly SqlValue[]): void {
    const n = values.length / USAGE_COLUMNS;
    let stmt = this.#inserts.get(n);
    if (stmt === undefined) {
      const one = `(${new Array(USAGE_COLUMNS).fill('?').join(', ')})`;
      stmt = this.#db.prepare(`${INSERT_USAGE_HEAD} VALUES ${new Array(n).fill(one).join(', ')}`);
      this.#inserts.set(n, stmt);
    }
    stmt.run(...values);
  }

  addSpend(deltas: readonly SpendDelta[]): void {
    for (const [keyId, period, nanos, tokens] of deltas) this.#addSpend.run(keyId, period, nanos, tokens);
  }
}

/** Runs `body` inside BEGIN IMMEDIATE … COMMIT; on any failure rolls back and rethrows the original error. */
export async function inTransaction(db: DatabaseSync, body: () => Promise<void> | void): Promise<void> {
  db.exec('BEGIN IMMEDIATE');
  try {
    await body();
    db.exec('COMMIT');
  } catch (err) {
    rollback(db);
    throw err;
  }
}

/** Rolls back; SQLite may have done so already (SQLITE_FULL does), and the original error is the one to report. */
export function rollback(db: DatabaseSync): void {
  try {
    db.exec('ROLLBACK');
  } catch {
    // no transaction left to roll back
  }
}

// Reads a gateway's SQLite file read-only from a test: usage rows and key_spend totals, as written.
import { DatabaseSync } from 'node:sqlite';

export interface UsageDbRow {
  request_id: string;
  key_id: string;
  status: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_nanos: number;
  streamed: number;
  error_code: string | null;
  routing: string | null;
  ts: number;
  latency_ms: number;
  period_start: number;
}

export function usageRows(dbPath: string, keyId: string): UsageDbRow[] {
  const db = new DatabaseSync(dbPath, { readOnly: true });
  try {
    return db.prepare('SELECT * FROM usage WHERE key_id = ? ORDER BY id').all(keyId) as unknown as UsageDbRow[];
  } finally {
    db.close();
  }
}

/** key_spend summed over periods (a lifetime budget has the single period 0). */
export function keySpent(dbPath: string, keyId: string): { nanos: number; tokens: number } {
  const db = new DatabaseSync(dbPath, { readOnly: true });
  try {
    const row = db
      .prepare(
        'SELECT COALESCE(SUM(spent_nanos), 0) AS nanos, COALESCE(SUM(spent_tokens), 0) AS tokens FROM key_spend WHERE key_id = ?',
      )
      .get(keyId) as { nanos: number; tokens: number };
    return { nanos: row.nanos, tokens: row.tokens };
  } finally {
    db.close();
  }
}

export function sum(rows: UsageDbRow[], pick: (r: UsageDbRow) => number): number {
  let total = 0;
  for (const r of rows) total += pick(r);
  return total;
}

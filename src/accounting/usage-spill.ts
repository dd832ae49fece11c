// Usage rows the database would not take before a stop (a full disk, a lock held past the last flush),
// appended to a file beside it and written at the next start, before any budget is loaded: the rows are
// the spend record budgets are rebuilt from, so they are never given up silently. One JSON row a line;
// appends only, so a crash mid-write costs at most its own unfinished last line.
import { appendFileSync, existsSync, readFileSync, renameSync, unlinkSync } from 'node:fs';
import type { Store, UsageRow } from '../store/store.ts';

const NUMBER_FIELDS = [
  'ts',
  'status',
  'inputTokens',
  'outputTokens',
  'cacheReadTokens',
  'cacheWriteTokens',
  'costNanos',
  'latencyMs',
  'attempts',
  'periodStart',
] as const;
const STRING_FIELDS = ['requestId', 'keyId', 'endpoint', 'model'] as const;

export class UsageSpill {
  readonly path: string;

  constructor(path: string) {
    this.path = path;
  }

  /** Appends the rows (created 0600: they name keys and their spend). Throws when the file cannot be written. */
  save(rows: readonly UsageRow[]): void {
    if (rows.length === 0) return;
    appendFileSync(this.path, rows.map((r) => `${JSON.stringify(r)}\n`).join(''), { mode: 0o600, flush: true });
  }

  /**
   * Writes the rows an earlier run spilled into the store, then removes the file. The file is first
   * renamed aside, so rows spilled again meanwhile (this start's own stop) never mix with the batch being
   * loaded; a load that fails leaves it in place for the next start. Returns the rows written and the
   * lines that were not rows (a torn last line).
   */
  async load(store: Store): Promise<{ rows: number; skipped: number }> {
    const loading = `${this.path}.loading`;
    const done = { rows: 0, skipped: 0 };
    // A batch left aside by a failed load first, then what was spilled after it.
    for (;;) {
      if (!existsSync(loading)) {
        if (!existsSync(this.path)) return done;
        renameSync(this.path, loading);
      }
      const rows: UsageRow[] = [];
      for (const line of readFileSync(loading, 'utf8').split('\n')) {
        if (line.trim() === '') continue;
        const row = parseRow(line);
        if (row === null) done.skipped++;
        else rows.push(row);
      }
      await store.writeUsage(rows);
      unlinkSync(loading);
      done.rows += rows.length;
    }
  }
}

function parseRow(line: string): UsageRow | null {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof v !== 'object' || v === null) return null;
  const r = v as Record<string, unknown>;
  for (const f of NUMBER_FIELDS) if (typeof r[f] !== 'number' || !Number.isFinite(r[f])) return null;
  for (const f of STRING_FIELDS) if (typeof r[f] !== 'string') return null;
  return r as unknown as UsageRow;
}

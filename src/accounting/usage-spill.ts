// Usage rows the database would not take before a stop (a full disk, a lock held past the last flush),
// appended to a file beside it and written at the next start, before any budget is loaded: the rows are
// the spend record budgets are rebuilt from, so they are never given up silently. One JSON row a line;
// appends only, so a crash mid-write costs at most its own unfinished last line.
import { appendFileSync, existsSync, readFileSync, renameSync, statSync, unlinkSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
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
  /** Tried in turn when the file before cannot be written (its volume full or read-only); loaded too. */
  readonly fallbacks: readonly string[];

  constructor(path: string, fallbacks: readonly string[] = []) {
    this.path = path;
    this.fallbacks = fallbacks;
  }

  /**
   * Appends the rows (created 0600: they name keys and their spend) to the first file that takes them.
   * Throws when none can be written.
   */
  save(rows: readonly UsageRow[]): void {
    if (rows.length === 0) return;
    const text = rows.map((r) => `${JSON.stringify(r)}\n`).join('');
    let failure: unknown;
    for (const path of [this.path, ...this.fallbacks]) {
      try {
        appendFileSync(path, text, { mode: 0o600, flush: true });
        return;
      } catch (err) {
        failure ??= err;
      }
    }
    throw failure;
  }

  /**
   * Writes the rows an earlier run spilled into the store, then removes the file. The file is first
   * renamed aside, so rows spilled again meanwhile (this start's own stop) never mix with the batch being
   * loaded; a load that fails leaves it in place for the next start. Returns the rows written and the
   * lines that were not rows (a torn last line).
   */
  async load(store: Store): Promise<{ rows: number; skipped: number }> {
    const done = { rows: 0, skipped: 0 };
    for (const path of [this.path, ...this.fallbacks]) {
      const one = await loadFile(path, store);
      done.rows += one.rows;
      done.skipped += one.skipped;
    }
    return done;
  }
}

async function loadFile(path: string, store: Store): Promise<{ rows: number; skipped: number }> {
  const loading = `${path}.loading`;
  const done = { rows: 0, skipped: 0 };
  // A batch left aside by a failed load first, then what was spilled after it.
  for (;;) {
    if (!existsSync(loading)) {
      if (!existsSync(path)) return done;
      renameSync(path, loading);
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

/**
 * The spill files of an SQLite database when none is configured: first in /var/tmp when that is on
 * another volume than the database (a full database volume then loses no row), named after the
 * database's absolute path so a restart of the same deployment finds it; then beside the database.
 */
export function defaultSpill(database: string, spillDir = '/var/tmp'): UsageSpill {
  const beside = `${database}.usage-spill.jsonl`;
  try {
    if (statSync(spillDir).dev !== statSync(dirname(resolve(database))).dev) {
      const name = createHash('sha256').update(resolve(database)).digest('hex').slice(0, 16);
      return new UsageSpill(join(spillDir, `modelgate-usage-spill-${name}.jsonl`), [beside]);
    }
  } catch {
    // No such directory, or the database's is not there yet: beside the database alone.
  }
  return new UsageSpill(beside);
}

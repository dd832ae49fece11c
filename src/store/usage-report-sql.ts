// The admin reports' SQL, one text for SQLite and PostgreSQL: only the placeholder style differs (`?`, `$n`).
// Day and hour buckets are integer arithmetic on the unix-ms `ts`, which both databases do alike.
import type { UsageDimension, UsageFilter, UsageGroup, UsageRecord } from './store.ts';

export type SqlParam = string | number;
export interface SqlQuery {
  text: string;
  params: SqlParam[];
}

const DIMENSION_SQL: Readonly<Record<UsageDimension, string>> = {
  day: '(u.ts / 86400000) * 86400000',
  hour: '(u.ts / 3600000) * 3600000',
  model: 'u.model',
  key: 'u.key_id',
  deployment: 'u.deployment',
  session: 'u.session_id',
  endpoint: 'u.endpoint',
  // The key's team as the key is now (a deleted key's as it was); null for keys without one.
  team: 'COALESCE((SELECT t.team FROM keys t WHERE t.id = u.key_id), (SELECT t.team FROM deleted_keys t WHERE t.id = u.key_id))',
};

/** Builds WHERE clauses with the store's placeholder for each parameter. */
class Where {
  readonly params: SqlParam[] = [];
  readonly #clauses: string[] = [];
  readonly #placeholder: (n: number) => string;

  constructor(placeholder: (n: number) => string) {
    this.#placeholder = placeholder;
  }

  add(clause: string, ...values: SqlParam[]): void {
    let out = clause;
    for (const v of values) {
      this.params.push(v);
      out = out.replace('?', this.#placeholder(this.params.length));
    }
    this.#clauses.push(out);
  }

  get text(): string {
    return this.#clauses.length === 0 ? '' : `WHERE ${this.#clauses.join(' AND ')}`;
  }
}

function where(filter: UsageFilter, placeholder: (n: number) => string): Where {
  const w = new Where(placeholder);
  // No range at all for the latest rows: then the newest are read backwards by id, not sorted out of the ts index.
  if (filter.fromMs !== undefined) w.add('u.ts >= ?', filter.fromMs);
  if (filter.toMs !== undefined) w.add('u.ts < ?', filter.toMs);
  if (filter.keyId !== undefined) w.add('u.key_id = ?', filter.keyId);
  if (filter.model !== undefined) w.add('u.model = ?', filter.model);
  if (filter.deployment !== undefined) w.add('u.deployment = ?', filter.deployment);
  if (filter.endpoint !== undefined) w.add('u.endpoint = ?', filter.endpoint);
  if (filter.team !== undefined)
    w.add(
      'u.key_id IN (SELECT id FROM keys WHERE team = ? UNION SELECT id FROM deleted_keys WHERE team = ?)',
      filter.team,
      filter.team,
    );
  if (filter.errorsOnly === true) w.add('u.status >= 400');
  if (filter.status !== undefined) w.add('u.status BETWEEN ? AND ?', filter.status.min, filter.status.max);
  if (filter.requestId !== undefined) w.add('u.request_id = ?', filter.requestId);
  if (filter.rowId !== undefined) w.add('u.id = ?', filter.rowId);
  if (filter.text !== undefined) {
    // The same pattern for every column; LOWER on both sides so SQLite and PostgreSQL match alike.
    const like = `%${filter.text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const m = "LIKE ? ESCAPE '\\'";
    w.add(
      `(LOWER(u.request_id) ${m} OR LOWER(u.model) ${m} OR LOWER(COALESCE(u.deployment, '')) ${m}` +
        ` OR LOWER(COALESCE(u.error_code, '')) ${m} OR LOWER(COALESCE(u.error_message, '')) ${m}` +
        ` OR u.key_id IN (SELECT id FROM keys WHERE LOWER(name) ${m} UNION SELECT id FROM deleted_keys WHERE LOWER(name) ${m}))`,
      like,
      like,
      like,
      like,
      like,
      like,
      like,
    );
  }
  return w;
}

/** Sums per group, and the latencies per group in order (percentiles are taken from them in JS, alike for both). */
export function usageGroupQueries(
  filter: UsageFilter,
  dims: UsageDimension[],
  placeholder: (n: number) => string,
): { sums: SqlQuery; latencies: SqlQuery } {
  const w = where(filter, placeholder);
  const cols = dims.map((d, i) => `${DIMENSION_SQL[d]} AS d${i}`);
  // NULLS FIRST in both: PostgreSQL sorts NULL last by default, SQLite first.
  const groupBy =
    dims.length === 0
      ? ''
      : `GROUP BY ${dims.map((_, i) => `d${i}`).join(', ')} ORDER BY ${dims.map((_, i) => `d${i} NULLS FIRST`).join(', ')}`;
  const sums = `SELECT ${[
    ...cols,
    'COUNT(*) AS requests',
    'SUM(CASE WHEN u.status >= 400 THEN 1 ELSE 0 END) AS errors',
    'SUM(u.input_tokens) AS input_tokens',
    'SUM(u.output_tokens) AS output_tokens',
    'SUM(u.cache_read_tokens) AS cache_read_tokens',
    'SUM(u.cache_write_tokens) AS cache_write_tokens',
    'SUM(u.cost_nanos) AS cost_nanos',
  ].join(', ')}
    FROM usage u ${w.text} ${groupBy}`;
  const order = [...dims.map((_, i) => `d${i}`), 'u.latency_ms'].join(', ');
  const latencies = `SELECT ${[...cols, 'u.latency_ms AS latency_ms'].join(', ')} FROM usage u ${w.text} ORDER BY ${order}`;
  return { sums: { text: sums, params: w.params }, latencies: { text: latencies, params: w.params } };
}

export interface SumsRow {
  [dim: `d${number}`]: string | number | null;
  requests: number;
  errors: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_tokens: number | null;
  cache_write_tokens: number | null;
  cost_nanos: number | null;
}

/** The groups from both queries' rows; a range without rows is no group at all (not one of zeros). */
export function usageGroupsFrom(
  dims: UsageDimension[],
  sums: readonly SumsRow[],
  latencies: readonly Record<string, unknown>[],
): UsageGroup[] {
  const dimsOf = (r: Record<string, unknown>): (string | number | null)[] =>
    dims.map((_, i) => (r[`d${i}`] ?? null) as string | number | null);
  const byGroup = new Map<string, number[]>();
  for (const r of latencies) {
    const k = JSON.stringify(dimsOf(r));
    let list = byGroup.get(k);
    if (list === undefined) byGroup.set(k, (list = []));
    list.push(Number(r.latency_ms));
  }
  return sums
    .filter((r) => Number(r.requests) > 0)
    .map((r) => {
      const dimValues = dimsOf(r as unknown as Record<string, unknown>);
      const sorted = byGroup.get(JSON.stringify(dimValues)) ?? [];
      return {
        dims: dimValues,
        requests: Number(r.requests),
        errors: Number(r.errors ?? 0),
        inputTokens: Number(r.input_tokens ?? 0),
        outputTokens: Number(r.output_tokens ?? 0),
        cacheReadTokens: Number(r.cache_read_tokens ?? 0),
        cacheWriteTokens: Number(r.cache_write_tokens ?? 0),
        costNanos: Number(r.cost_nanos ?? 0),
        latencyP50Ms: percentile(sorted, 0.5),
        latencyP95Ms: percentile(sorted, 0.95),
        latencyP99Ms: percentile(sorted, 0.99),
      };
    });
}

/** Nearest-rank percentile of an ascending list. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

export function usageRecordsQuery(
  filter: UsageFilter,
  page: { limit: number; beforeId?: number },
  placeholder: (n: number) => string,
): SqlQuery {
  const w = where(filter, placeholder);
  if (page.beforeId !== undefined) w.add('u.id < ?', page.beforeId);
  w.params.push(page.limit);
  const text = `SELECT u.id AS id, u.ts AS ts, u.request_id AS request_id, u.key_id AS key_id, COALESCE(k.name, dk.name) AS key_name, COALESCE(k.masked, dk.masked) AS key_masked,
      COALESCE(k.team, dk.team) AS key_team,
      u.endpoint AS endpoint, u.model AS model, u.deployment AS deployment, u.status AS status,
      u.input_tokens AS input_tokens, u.output_tokens AS output_tokens, u.cache_read_tokens AS cache_read_tokens,
      u.cache_write_tokens AS cache_write_tokens, u.cost_nanos AS cost_nanos, u.latency_ms AS latency_ms, u.ttfb_ms AS ttfb_ms,
      u.streamed AS streamed, u.attempts AS attempts, u.period_start AS period_start, u.error_code AS error_code, u.routing AS routing,
      u.cost_breakdown AS cost_breakdown, u.redactions AS redactions, u.session_id AS session_id,
      u.request_bytes AS request_bytes, u.response_bytes AS response_bytes,
      u.error_message AS error_message, u.attempt_log AS attempt_log
    FROM usage u LEFT JOIN keys k ON k.id = u.key_id LEFT JOIN deleted_keys dk ON dk.id = u.key_id ${w.text} ORDER BY u.id DESC LIMIT ${placeholder(w.params.length)}`;
  return { text, params: w.params };
}

export function usageRecordFrom(r: Record<string, unknown>): UsageRecord {
  const n = (v: unknown): number => Number(v);
  return {
    id: n(r.id),
    ts: n(r.ts),
    requestId: String(r.request_id),
    keyId: String(r.key_id),
    keyName: (r.key_name ?? null) as string | null,
    keyMasked: (r.key_masked ?? null) as string | null,
    keyTeam: (r.key_team ?? null) as string | null,
    endpoint: String(r.endpoint),
    model: String(r.model),
    deployment: (r.deployment ?? null) as string | null,
    status: n(r.status),
    inputTokens: n(r.input_tokens),
    outputTokens: n(r.output_tokens),
    cacheReadTokens: n(r.cache_read_tokens),
    cacheWriteTokens: n(r.cache_write_tokens),
    costNanos: n(r.cost_nanos),
    latencyMs: n(r.latency_ms),
    ttfbMs: r.ttfb_ms === null || r.ttfb_ms === undefined ? null : n(r.ttfb_ms),
    streamed: r.streamed === true || r.streamed === 1,
    attempts: n(r.attempts),
    periodStart: n(r.period_start),
    errorCode: (r.error_code ?? null) as string | null,
    routing: (r.routing ?? null) as string | null,
    costBreakdown: (r.cost_breakdown ?? null) as string | null,
    redactions: n(r.redactions ?? 0),
    sessionId: (r.session_id ?? null) as string | null,
    requestBytes: r.request_bytes === null || r.request_bytes === undefined ? null : n(r.request_bytes),
    responseBytes: r.response_bytes === null || r.response_bytes === undefined ? null : n(r.response_bytes),
    errorMessage: (r.error_message ?? null) as string | null,
    attemptLog: (r.attempt_log ?? null) as string | null,
  };
}

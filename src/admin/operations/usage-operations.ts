// The usage reports behind both front ends: totals grouped by day, hour, model, key or deployment, and the
// latest usage rows. Rows come from the store (src/store/usage-report-sql.ts), shaped here for JSON and CSV.
import type { CostLine } from '../../pricing/breakdown.ts';
import type { Store, UsageDimension, UsageFilter, UsageGroup, UsageRecord } from '../../store/store.ts';
import { UsageError } from '../key-flags.ts';
import { findKeyOrFail } from './key-operations.ts';

export const USAGE_DIMENSIONS: readonly UsageDimension[] = [
  'day',
  'hour',
  'model',
  'key',
  'deployment',
  'session',
  'endpoint',
  'team',
];
const DAY_MS = 86_400_000;
/** A report without `from` covers the last 30 days. */
const DEFAULT_RANGE_MS = 30 * DAY_MS;

export interface UsageQuery {
  /** ISO-8601 date or time, or unix ms. */
  from?: string;
  /** Exclusive; a date without a time includes that whole day. */
  to?: string;
  /** Key id or name. */
  key?: string;
  model?: string;
  deployment?: string;
  /** `/mcp`: the MCP tool calls only. */
  endpoint?: string;
  /** The keys of one team (by name). */
  team?: string;
  errorsOnly?: boolean;
  /** A status code (`429`) or a class (`4xx`). */
  status?: string;
  /** One request, by the id its answer carried (`x-request-id`). */
  requestId?: string;
  /** A substring of the request id, model, deployment, error code or key name (case-insensitive). */
  text?: string;
}

export function parseTime(value: string, field: string): { ms: number; dateOnly: boolean } {
  if (/^\d{10,}$/.test(value)) return { ms: Number(value), dateOnly: false };
  const ms = Date.parse(value);
  if (Number.isNaN(ms))
    throw new UsageError(
      `${field} must be an ISO-8601 date or time, or unix milliseconds (got "${value}")`,
      'invalid',
      field,
    );
  return { ms, dateOnly: /^\d{4}-\d{2}-\d{2}$/.test(value) };
}

/**
 * The store filter for a query: times parsed, the key named by id or name resolved (an unknown one is a
 * typo, 404). A report covers the last 30 days unless told otherwise; `openEnded` leaves an unnamed end open.
 */
export async function usageFilter(
  store: Store,
  q: UsageQuery,
  opts: { now: number; openEnded?: boolean },
): Promise<UsageFilter> {
  const to =
    q.to === undefined
      ? opts.openEnded === true
        ? undefined
        : opts.now + 1
      : ((t) => (t.dateOnly ? t.ms + DAY_MS : t.ms))(parseTime(q.to, 'to'));
  const from =
    q.from === undefined
      ? opts.openEnded === true
        ? undefined
        : (to ?? opts.now + 1) - DEFAULT_RANGE_MS
      : parseTime(q.from, 'from').ms;
  if (from !== undefined && to !== undefined && from >= to)
    throw new UsageError('from must be before to', 'invalid', 'from');
  const filter: UsageFilter = {};
  if (from !== undefined) filter.fromMs = from;
  if (to !== undefined) filter.toMs = to;
  if (q.key !== undefined) filter.keyId = await keyIdOf(store, q.key);
  if (q.model !== undefined) filter.model = q.model;
  if (q.deployment !== undefined) filter.deployment = q.deployment;
  if (q.endpoint !== undefined) filter.endpoint = q.endpoint;
  if (q.team !== undefined) filter.team = q.team;
  if (q.errorsOnly === true) filter.errorsOnly = true;
  if (q.status !== undefined) filter.status = parseStatus(q.status);
  if (q.requestId !== undefined) filter.requestId = q.requestId;
  if (q.text !== undefined) filter.text = q.text;
  return filter;
}

/** `429` or `4xx` as the range of codes it names; anything else says what it takes. */
export function parseStatus(value: string): { min: number; max: number } {
  const code = /^[1-5]\d\d$/.exec(value);
  if (code !== null) return { min: Number(value), max: Number(value) };
  const cls = /^([1-5])xx$/i.exec(value);
  if (cls !== null) return { min: Number(cls[1]) * 100, max: Number(cls[1]) * 100 + 99 };
  throw new UsageError(`status must be a status code (429) or a class (4xx), not "${value}"`, 'invalid', 'status');
}

export function parseGroupBy(value: string | undefined): UsageDimension[] {
  if (value === undefined || value === '') return [];
  const dims = value.split(',').map((s) => s.trim());
  for (const d of dims)
    if (!USAGE_DIMENSIONS.includes(d as UsageDimension))
      throw new UsageError(
        `group_by takes ${USAGE_DIMENSIONS.join(', ')} (comma-separated); got "${d}"`,
        'invalid',
        'group_by',
      );
  if (new Set(dims).size !== dims.length) throw new UsageError('group_by names a dimension twice');
  return dims as UsageDimension[];
}

export type ReportRow = Record<string, string | number | boolean | null>;

export interface UsageReport {
  from: string;
  to: string;
  group_by: UsageDimension[];
  totals: ReportRow;
  groups: ReportRow[];
}

function totalsOf(g: UsageGroup): ReportRow {
  return {
    requests: g.requests,
    errors: g.errors,
    input_tokens: g.inputTokens,
    output_tokens: g.outputTokens,
    cache_read_tokens: g.cacheReadTokens,
    cache_write_tokens: g.cacheWriteTokens,
    total_tokens: g.inputTokens + g.outputTokens + g.cacheReadTokens + g.cacheWriteTokens,
    cost_usd: g.costNanos / 1e9,
    latency_p50_ms: g.latencyP50Ms,
    latency_p95_ms: g.latencyP95Ms,
    latency_p99_ms: g.latencyP99Ms,
  };
}

const EMPTY: UsageGroup = {
  dims: [],
  requests: 0,
  errors: 0,
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  costNanos: 0,
  latencyP50Ms: null,
  latencyP95Ms: null,
  latencyP99Ms: null,
};

export async function usageReport(
  store: Store,
  q: UsageQuery & { groupBy: UsageDimension[] },
  now = Date.now(),
): Promise<UsageReport> {
  const filter = await usageFilter(store, q, { now });
  const [groups, [total], keys] = await Promise.all([
    q.groupBy.length === 0 ? Promise.resolve([]) : store.usageGroups(filter, q.groupBy),
    store.usageGroups(filter, []),
    q.groupBy.includes('key') ? keyNames(store) : Promise.resolve([]),
  ]);
  const names = new Map(keys.map((k) => [k.id, k]));
  return {
    // Both set: a report's range is never open (usageFilter without openEnded).
    from: new Date(filter.fromMs ?? 0).toISOString(),
    to: new Date(filter.toMs ?? now).toISOString(),
    group_by: q.groupBy,
    totals: totalsOf(total ?? EMPTY),
    groups: groups.map((g) => {
      const row: ReportRow = {};
      q.groupBy.forEach((d, i) => {
        const v = g.dims[i];
        if (d === 'day') row.day = new Date(Number(v)).toISOString().slice(0, 10);
        else if (d === 'hour') row.hour = new Date(Number(v)).toISOString().slice(0, 13) + ':00Z';
        else if (d === 'key') {
          row.key_id = v;
          row.key_name = names.get(String(v))?.name ?? null;
          row.key_masked = names.get(String(v))?.masked ?? null;
        } else if (d === 'session') row.session_id = v;
        else row[d] = v;
      });
      return { ...row, ...totalsOf(g) };
    }),
  };
}

/** RFC 4180 CSV; a cell that a spreadsheet would run as a formula (`=`, `+`, `-`, `@`) is quoted as text. */
/** A key named by id or name; a deleted key's rows are still reported by the name it had. */
async function keyIdOf(store: Store, idOrName: string): Promise<string> {
  try {
    return (await findKeyOrFail(store, idOrName)).id;
  } catch (err) {
    const gone = (await store.listDeletedKeys()).filter((k) => k.id === idOrName || k.name === idOrName);
    if (gone.length === 0) throw err;
    // A name deleted and used again: the newest deleted key of that name (as listed last).
    return gone[gone.length - 1].id;
  }
}

/** Every key's name and masked form, the deleted ones' as they were when deleted. */
async function keyNames(store: Store): Promise<{ id: string; name: string; masked: string }[]> {
  const [live, deleted] = await Promise.all([store.listKeys(), store.listDeletedKeys()]);
  return [...deleted, ...live];
}

export function toCsv(rows: readonly ReportRow[]): string {
  if (rows.length === 0) return '';
  const header = Object.keys(rows[0]);
  const cell = (v: string | number | boolean | null): string => {
    if (v === null) return '';
    let s = String(v);
    if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
    return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
  };
  return [header.join(','), ...rows.map((r) => header.map((h) => cell(r[h] ?? null)).join(','))].join('\r\n') + '\r\n';
}

export const MAX_PAGE = 500;

/** One request as the admin API lists it: its row, and its cost explained. */
export type RequestRow = Record<string, string | number | boolean | null | CostLine[] | AttemptView[]>;

/** One upstream attempt as the request detail shows it (stored in this shape: accounting/record.ts). */
export interface AttemptView {
  deployment: string;
  status: number | null;
  outcome: string;
  duration_ms: number;
}

export interface RequestsPage {
  data: RequestRow[];
  /** Pass as `before` for the next (older) page; null on the last page. */
  next_cursor: number | null;
}

function requestRow(r: UsageRecord): RequestRow {
  return {
    id: r.id,
    time: new Date(r.ts).toISOString(),
    request_id: r.requestId,
    key_id: r.keyId,
    key_name: r.keyName,
    key_masked: r.keyMasked,
    team: r.keyTeam,
    endpoint: r.endpoint,
    model: r.model,
    deployment: r.deployment,
    status: r.status,
    input_tokens: r.inputTokens,
    output_tokens: r.outputTokens,
    cache_read_tokens: r.cacheReadTokens,
    cache_write_tokens: r.cacheWriteTokens,
    cost_usd: r.costNanos / 1e9,
    latency_ms: r.latencyMs,
    ttfb_ms: r.ttfbMs,
    streamed: r.streamed,
    attempts: r.attempts,
    error_code: r.errorCode,
    error_message: r.errorMessage ?? null,
    routing: r.routing,
    cost_breakdown: r.costBreakdown == null ? [] : (JSON.parse(r.costBreakdown) as CostLine[]),
    redactions: r.redactions ?? 0,
    session_id: r.sessionId ?? null,
    request_bytes: r.requestBytes ?? null,
    response_bytes: r.responseBytes ?? null,
  };
}

/** The newest usage rows first; `before` is the cursor a previous page gave. */
export async function latestRequests(
  store: Store,
  q: UsageQuery & { limit?: number; before?: number },
  now = Date.now(),
): Promise<RequestsPage> {
  const limit = q.limit ?? 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE)
    throw new UsageError(`limit must be a whole number from 1 to ${MAX_PAGE}`, 'invalid', 'limit');
  const filter = await usageFilter(store, q, { now, openEnded: true });
  const rows = await store.usageRecords(filter, { limit, beforeId: q.before });
  return { data: rows.map(requestRow), next_cursor: rows.length === limit ? rows[rows.length - 1].id : null };
}

/**
 * One request with everything an incident needs: its row, the error message its caller saw (masked when
 * written) and each attempt. `id` is the request id its answer carried (`x-request-id`), or the listing's
 * row id (a whole number); a request id logged twice (an MCP session's calls) gives the newest row.
 * `team` limits it to one team's keys (a team administrator's reach): another team's request is not found.
 */
export async function requestDetail(store: Store, id: string, scope: { team?: string } = {}): Promise<RequestRow> {
  const filter: UsageFilter = /^\d{1,15}$/.test(id) ? { rowId: Number(id) } : { requestId: id };
  if (scope.team !== undefined) filter.team = scope.team;
  const [row] = await store.usageRecords(filter, { limit: 1 });
  if (row === undefined) throw new UsageError(`no request "${id}" in the request log`, 'not_found');
  // Body logging's copies (masked, cut), when the request's key or team was logged and they are not purged.
  const bodies = await store.requestBodies(row.requestId);
  return {
    ...requestRow(row),
    attempt_log: row.attemptLog == null ? [] : (JSON.parse(row.attemptLog) as AttemptView[]),
    ...(bodies === null ? {} : { request_body: bodies.request, response_body: bodies.response }),
  };
}

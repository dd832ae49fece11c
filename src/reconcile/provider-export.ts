// A provider's usage or cost export, read into per-day, per-model totals. Tolerant of the shapes
// operators download: the admin APIs' JSON (one page, an array of pages, or both reports in one file)
// and CSV with a header row.
//   OpenAI: GET /v1/organization/usage/completions (buckets of results with input_tokens — cached
//     included —, input_cached_tokens, output_tokens, model) and GET /v1/organization/costs (results with
//     amount.value in USD, line_item "model, input").
//   Anthropic: GET /v1/organizations/usage_report/messages (uncached_input_tokens, cache_read_input_tokens,
//     cache_creation.ephemeral_5m/1h_input_tokens, output_tokens, model) and GET
//     /v1/organizations/cost_report (amount: a decimal string in cents, model).

export type ExportProvider = 'openai' | 'anthropic';

/** The token counts of a day and model, in the gateway's classes (input excludes cache reads and writes). */
export interface TokenCounts {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
}

export interface DayModelTotals {
  day: string;
  model: string;
  /** Null when the export carries no token counts (a cost report). */
  tokens: TokenCounts | null;
  /** Null when the export carries no cost (a usage report). */
  costNanos: number | null;
}

export class ExportError extends Error {
  override name = 'ExportError';
}

/** Per (day, model): the sums of every row of the export. */
export function readProviderExport(provider: ExportProvider, text: string): DayModelTotals[] {
  const trimmed = text.trimStart();
  const rows = trimmed.startsWith('{') || trimmed.startsWith('[') ? jsonRows(trimmed) : csvRows(text);
  const totals = new Map<string, DayModelTotals>();
  for (const r of rows) {
    const day = dayOf(r.time);
    if (day === null) throw new ExportError(`a row without a readable date: ${JSON.stringify(r.time)}`);
    const model = modelOf(r.fields);
    const k = `${day}\u0000${model}`;
    let t = totals.get(k);
    if (t === undefined) totals.set(k, (t = { day, model, tokens: null, costNanos: null }));
    const tokens = tokensOf(provider, r.fields);
    if (tokens !== null) {
      t.tokens ??= { input: 0, cacheRead: 0, cacheWrite: 0, output: 0 };
      t.tokens.input += tokens.input;
      t.tokens.cacheRead += tokens.cacheRead;
      t.tokens.cacheWrite += tokens.cacheWrite;
      t.tokens.output += tokens.output;
    }
    const cost = costOf(provider, r.fields);
    if (cost !== null) t.costNanos = (t.costNanos ?? 0) + cost;
  }
  return [...totals.values()].sort((a, b) =>
    a.day === b.day ? a.model.localeCompare(b.model) : a.day < b.day ? -1 : 1,
  );
}

interface RawRow {
  time: unknown;
  fields: Record<string, unknown>;
}

/** Every result of every time bucket, wherever in the document the buckets are. */
function jsonRows(text: string): RawRow[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new ExportError(`the export is not valid JSON: ${(err as Error).message}`);
  }
  const rows: RawRow[] = [];
  const walk = (v: unknown, depth: number): void => {
    if (depth > 8 || typeof v !== 'object' || v === null) return;
    if (Array.isArray(v)) {
      for (const x of v) walk(x, depth + 1);
      return;
    }
    const o = v as Record<string, unknown>;
    const time = o.start_time ?? o.starting_at ?? o.date;
    if (Array.isArray(o.results) && time !== undefined) {
      for (const r of o.results) if (typeof r === 'object' && r !== null) rows.push({ time, fields: flat(r) });
      return;
    }
    for (const x of Object.values(o)) walk(x, depth + 1);
  };
  walk(doc, 0);
  return rows;
}

/** Nested objects as dotted keys (`cache_creation.ephemeral_1h_input_tokens`, `amount.value`). */
function flat(o: object, prefix = '', out: Record<string, unknown> = {}): Record<string, unknown> {
  for (const [k, v] of Object.entries(o)) {
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) flat(v, `${prefix}${k}.`, out);
    else out[`${prefix}${k}`] = v;
  }
  return out;
}

const TIME_COLUMNS = [
  'date',
  'day',
  'usage_date',
  'usage_date_utc',
  'start_time',
  'starting_at',
  'start_date',
  'bucket_start',
];

function csvRows(text: string): RawRow[] {
  const lines = parseCsv(text).filter((l) => l.length > 1 || (l.length === 1 && l[0] !== ''));
  if (lines.length === 0) return [];
  const header = lines[0].map((h) =>
    h
      .trim()
      .toLowerCase()
      .replace(/[\s-]+/g, '_'),
  );
  const timeAt = header.findIndex((h) => TIME_COLUMNS.includes(h));
  if (timeAt < 0) throw new ExportError(`the CSV has no date column (one of ${TIME_COLUMNS.join(', ')})`);
  return lines.slice(1).map((cells) => {
    const fields: Record<string, unknown> = {};
    header.forEach((h, i) => (fields[h] = cells[i] ?? ''));
    return { time: cells[timeAt], fields };
  });
}

/** RFC 4180: quoted fields, doubled quotes, CRLF or LF. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += c;
  }
  if (cell !== '' || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}

/** A UTC day from unix seconds (OpenAI), an RFC 3339 time (Anthropic) or a plain date. */
function dayOf(t: unknown): string | null {
  if (typeof t === 'number' || (typeof t === 'string' && /^\d{9,11}$/.test(t.trim()))) {
    const d = new Date(Number(t) * 1000);
    return Number.isNaN(d.getTime()) ? null : d.toISOString().slice(0, 10);
  }
  if (typeof t !== 'string') return null;
  const s = t.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(s)) return s;
  const d = new Date(s);
  return Number.isNaN(d.getTime()) ? null : d.toISOString().slice(0, 10);
}

function modelOf(f: Record<string, unknown>): string {
  const m = f.model ?? f.model_name ?? f.model_id;
  if (typeof m === 'string' && m !== '') return m;
  // OpenAI's costs grouped by line item: "gpt-4o-mini-2024-07-18, input".
  const item = f.line_item;
  if (typeof item === 'string' && item !== '') return item.split(',')[0].trim();
  return '(no model)';
}

function n(v: unknown): number {
  const x = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : 0;
  return Number.isFinite(x) ? x : 0;
}

function has(f: Record<string, unknown>, ...keys: string[]): boolean {
  return first(f, keys) !== undefined;
}

/** The first of `keys` the row has a value for (a CSV's empty cell is none). */
function first(f: Record<string, unknown>, keys: readonly string[]): unknown {
  for (const k of keys) if (f[k] !== undefined && f[k] !== '' && f[k] !== null) return f[k];
  return undefined;
}

function tokensOf(provider: ExportProvider, f: Record<string, unknown>): TokenCounts | null {
  if (provider === 'openai') {
    if (!has(f, 'input_tokens', 'output_tokens')) return null;
    const cached = n(first(f, ['input_cached_tokens', 'cached_tokens']));
    return {
      input: Math.max(0, n(f.input_tokens) - cached),
      cacheRead: cached,
      cacheWrite: 0,
      output: n(f.output_tokens),
    };
  }
  if (!has(f, 'uncached_input_tokens', 'input_tokens', 'output_tokens')) return null;
  const write5m = n(first(f, ['cache_creation.ephemeral_5m_input_tokens', 'cache_creation_ephemeral_5m_input_tokens']));
  const write1h = n(first(f, ['cache_creation.ephemeral_1h_input_tokens', 'cache_creation_ephemeral_1h_input_tokens']));
  const written = write5m + write1h > 0 ? write5m + write1h : n(f.cache_creation_input_tokens);
  return {
    input: n(first(f, ['uncached_input_tokens', 'input_tokens'])),
    cacheRead: n(f.cache_read_input_tokens),
    cacheWrite: written,
    output: n(f.output_tokens),
  };
}

/** Nano-USD of a cost row, or null when the row has no cost. */
function costOf(provider: ExportProvider, f: Record<string, unknown>): number | null {
  // JSON cost reports: OpenAI's amount.value is USD; Anthropic's amount is cents, as a decimal string.
  if (f['amount.value'] !== undefined) return Math.round(n(f['amount.value']) * 1e9);
  if (provider === 'anthropic' && f.amount !== undefined && f.currency !== undefined)
    return Math.round(n(f.amount) * 1e7);
  // CSV columns: USD unless named in cents.
  const cents = first(f, ['amount_cents', 'cost_cents']);
  if (cents !== undefined) return Math.round(n(cents) * 1e7);
  const usd = first(f, ['cost_usd', 'amount_usd', 'cost', 'amount', 'total_cost']);
  return usd === undefined ? null : Math.round(n(usd) * 1e9);
}

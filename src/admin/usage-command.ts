// `modelgate usage`: spend per day, key and model from the usage rows; with --group-by (or --from, --to,
// --model, --csv) the report `GET /admin/usage` gives, and `modelgate requests` the latest rows: the CLI
// front end of operations/usage-operations.ts.
import { parseArgs } from 'node:util';
import type { Store } from '../store/store.ts';
import { UsageError } from './key-flags.ts';
import { findKeyOrFail } from './operations/key-operations.ts';
import {
  latestRequests,
  parseGroupBy,
  requestDetail,
  toCsv,
  usageReport,
  type ReportRow,
  type AttemptView,
  type RequestRow,
  type UsageQuery,
} from './operations/usage-operations.ts';

const FILTER_OPTIONS = {
  from: { type: 'string' },
  to: { type: 'string' },
  key: { type: 'string' },
  model: { type: 'string' },
  deployment: { type: 'string' },
  endpoint: { type: 'string' },
  errors: { type: 'boolean' },
  json: { type: 'boolean' },
  config: { type: 'string' },
} as const;

export async function usageCommand(store: Store, argv: string[], out: (s: string) => void): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { ...FILTER_OPTIONS, days: { type: 'string' }, 'group-by': { type: 'string' }, csv: { type: 'boolean' } },
    strict: true,
  });
  const report =
    values['group-by'] !== undefined ||
    values.from !== undefined ||
    values.to !== undefined ||
    values.model !== undefined ||
    values.deployment !== undefined ||
    values.endpoint !== undefined ||
    values.errors === true ||
    values.csv === true;
  if (report) {
    if (values.days !== undefined) throw new UsageError('--days and --from/--to name the range twice: use one');
    const r = await usageReport(store, { ...filterQuery(values), groupBy: parseGroupBy(values['group-by']) });
    const rows = r.groups.length > 0 || r.group_by.length > 0 ? r.groups : [r.totals];
    if (values.csv) out(toCsv(rows).trimEnd());
    else if (values.json) out(JSON.stringify(r));
    else table(rows, out, `No usage from ${r.from} to ${r.to}.`);
    return;
  }
  const days = values.days === undefined ? 30 : Number(values.days);
  if (!Number.isFinite(days) || days <= 0) throw new UsageError('--days must be a number of days above 0');
  let keyId: string | undefined;
  if (values.key) {
    // A name or id that matches no key is a typo, not a key without usage.
    keyId = (await findKeyOrFail(store, values.key)).id;
  }
  const rows = await store.usageSummary({ sinceMs: Date.now() - days * 86_400_000, keyId });
  if (values.json) {
    out(JSON.stringify(rows.map((r) => ({ ...r, costUsd: r.costNanos / 1e9 }))));
    return;
  }
  table(
    rows.map((r) => ({
      day: r.day,
      key: r.keyName ?? r.keyId,
      model: r.model,
      requests: r.requests,
      errors: r.errors,
      input_tok: r.inputTokens,
      output_tok: r.outputTokens,
      cost_usd: (r.costNanos / 1e9).toFixed(6),
    })),
    out,
    `No usage in the last ${days} days.`,
  );
}

/** The request log's own filters, as `GET /admin/requests` names them (`--request-id` for `request_id`). */
const REQUEST_FILTER_OPTIONS = {
  status: { type: 'string' },
  team: { type: 'string' },
  q: { type: 'string' },
  'request-id': { type: 'string' },
} as const;

/**
 * `modelgate requests`: the latest usage rows, newest first, as `GET /admin/requests` gives them;
 * `modelgate requests show ID`: one request as `GET /admin/requests/{id}` gives it.
 */
export async function requestsCommand(store: Store, argv: string[], out: (s: string) => void): Promise<void> {
  if (argv[0] === 'show') return showRequest(store, argv.slice(1), out);
  const { values } = parseArgs({
    args: argv,
    options: {
      ...FILTER_OPTIONS,
      ...REQUEST_FILTER_OPTIONS,
      limit: { type: 'string' },
      before: { type: 'string' },
    },
    strict: true,
  });
  const num = (v: string | undefined, flag: string): number | undefined => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isSafeInteger(n) || n < 0) throw new UsageError(`--${flag} must be a whole number`);
    return n;
  };
  const page = await latestRequests(store, {
    ...filterQuery(values),
    ...(values.status === undefined ? {} : { status: values.status }),
    ...(values.team === undefined ? {} : { team: values.team }),
    ...(values.q === undefined ? {} : { text: values.q }),
    ...(values['request-id'] === undefined ? {} : { requestId: values['request-id'] }),
    limit: num(values.limit, 'limit') ?? 20,
    before: num(values.before, 'before'),
  });
  if (values.json) {
    out(JSON.stringify(page));
    return;
  }
  table(
    // The table shows the scalar columns; cost_breakdown is in --json.
    page.data
      .map((row) => scalars(row))
      .map((r) => ({
        time: r.time,
        key: r.key_name ?? r.key_id,
        masked: r.key_masked,
        model: r.model,
        deployment: r.deployment,
        status: r.status,
        tokens: `${Number(r.input_tokens) + Number(r.cache_read_tokens) + Number(r.cache_write_tokens)}/${r.output_tokens}`,
        cost_usd: Number(r.cost_usd).toFixed(6),
        latency_ms: r.latency_ms,
        ttfb_ms: r.ttfb_ms,
        error: r.error_code,
      })),
    out,
    'No requests.',
  );
  if (page.next_cursor !== null) out(`older: --before ${page.next_cursor}`);
}

/** One request: its facts, the error its caller saw (masked when stored) and each upstream attempt. */
async function showRequest(store: Store, argv: string[], out: (s: string) => void): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { json: { type: 'boolean' }, config: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1) throw new UsageError('modelgate requests show takes one request id (req_…) or row id');
  const d = await requestDetail(store, positionals[0]);
  if (values.json) {
    out(JSON.stringify(d));
    return;
  }
  const tokens = `${d.input_tokens} in, ${d.cache_read_tokens} cache read, ${d.cache_write_tokens} cache write, ${d.output_tokens} out`;
  const facts: [string, unknown][] = [
    ['request', d.request_id],
    ['time', d.time],
    ['key', `${d.key_name ?? d.key_id} ${d.key_masked ?? ''}`.trim()],
    ['team', d.team],
    ['endpoint', d.endpoint],
    ['model', d.model],
    ['deployment', d.deployment],
    ['status', d.error_code === null ? d.status : `${d.status} ${d.error_code}`],
    ['latency', `${d.latency_ms} ms (first byte ${d.ttfb_ms ?? '-'} ms)`],
    ['tokens', tokens],
    ['cost', `$${Number(d.cost_usd).toFixed(6)}`],
  ];
  for (const [name, value] of facts) out(`${name.padEnd(10)} ${value ?? '-'}`);
  if (d.error_message !== null) out(`error      ${String(d.error_message)}`);
  out('');
  table(
    (d.attempt_log as AttemptView[]).map((a, i) => ({
      attempt: i + 1,
      deployment: a.deployment,
      status: a.status,
      outcome: a.outcome,
      duration_ms: a.duration_ms,
    })),
    out,
    'No upstream attempt.',
  );
}

function filterQuery(values: {
  from?: string;
  to?: string;
  key?: string;
  model?: string;
  deployment?: string;
  endpoint?: string;
  errors?: boolean;
}): UsageQuery {
  const q: UsageQuery = {};
  for (const name of ['from', 'to', 'key', 'model', 'deployment', 'endpoint'] as const)
    if (values[name] !== undefined) q[name] = values[name];
  if (values.errors === true) q.errorsOnly = true;
  return q;
}

export function table(rows: readonly ReportRow[], out: (s: string) => void, empty: string): void {
  if (rows.length === 0) {
    out(empty);
    return;
  }
  const header = Object.keys(rows[0]);
  const cells = rows.map((r) => header.map((h) => (r[h] === null || r[h] === undefined ? '-' : String(r[h]))));
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((row) => row[i].length)));
  for (const row of [header, ...cells])
    out(
      row
        .map((c, i) => c.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    );
}

/** A request row's scalar columns (the table leaves out cost_breakdown, which --json carries). */
function scalars(row: RequestRow): ReportRow {
  const { cost_breakdown: _, ...rest } = row;
  return rest as ReportRow;
}

// Writing usage rows into PostgreSQL: one statement of column arrays for the rows and one for the keys'
// spend (the writer thread, pg-usage-worker.js), and the connection settings it shares with the store. JavaScript with JSDoc types, checked by tsc,
// for the same reason as usage-sql.js: a thread that loads TypeScript starts Node's type stripper too.
/** @import { SqlValue, SpendDelta } from './usage-sql.js' */

/**
 * What every gateway connection to PostgreSQL is opened with (the store's and its writer thread's). A
 * statement the server cannot finish in 30 s fails rather than holding the usage writer (whose writes
 * never overlap) or the key poll behind it; the writer then retries the batch.
 * @param {{ schema: string | null; applicationName: string }} options
 */
export function connectionOptions(options) {
  return {
    connect_timeout: 5,
    idle_timeout: 60,
    onnotice: () => undefined,
    connection: {
      application_name: options.applicationName,
      statement_timeout: 30_000,
      ...(options.schema === null ? {} : { search_path: options.schema }),
    },
  };
}

/** The columns of usage-sql.js's rowValues, in order, each with its array type. */
const USAGE_COLUMNS = [
  ['ts', 'int8'],
  ['request_id', 'text'],
  ['key_id', 'text'],
  ['endpoint', 'text'],
  ['model', 'text'],
  ['deployment', 'text'],
  ['status', 'int4'],
  ['input_tokens', 'int8'],
  ['output_tokens', 'int8'],
  ['cache_read_tokens', 'int8'],
  ['cache_write_tokens', 'int8'],
  ['cost_nanos', 'int8'],
  ['latency_ms', 'int8'],
  ['ttfb_ms', 'int8'],
  ['streamed', 'bool'],
  ['attempts', 'int4'],
  ['period_start', 'int8'],
  ['error_code', 'text'],
  ['routing', 'text'],
  ['cost_breakdown', 'text'],
  ['redactions', 'int4'],
  ['session_id', 'text'],
  ['request_bytes', 'int8'],
  ['response_bytes', 'int8'],
  ['error_message', 'text'],
  ['attempt_log', 'text'],
];

/** Its text never changes, so the server parses it once; each parameter is a whole column. */
export const INSERT_USAGE_SQL = `INSERT INTO usage (${USAGE_COLUMNS.map(([name]) => name).join(', ')})
  SELECT * FROM unnest(${USAGE_COLUMNS.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ')})`;

/** One logged request's bodies (usage-sql.js BodyRow). */
export const ADD_BODY_SQL = `INSERT INTO request_bodies (request_id, ts, key_id, request, response) VALUES ($1, $2, $3, $4, $5)`;

export const ADD_SPEND_SQL = `INSERT INTO key_spend (key_id, period_start, spent_nanos, spent_tokens)
  SELECT * FROM unnest($1::text[], $2::int8[], $3::int8[], $4::int8[])
  ON CONFLICT (key_id, period_start) DO UPDATE SET spent_nanos = key_spend.spent_nanos + excluded.spent_nanos,
    spent_tokens = key_spend.spent_tokens + excluded.spent_tokens`;

/** Each key's latest use (usage-sql.js's keyUses: one entry per key, as ON CONFLICT needs); the newer time wins. */
export const TOUCH_KEYS_SQL = `INSERT INTO key_last_used (key_id, ts)
  SELECT * FROM unnest($1::text[], $2::int8[])
  ON CONFLICT (key_id) DO UPDATE SET ts = GREATEST(key_last_used.ts, excluded.ts)`;

/**
 * Flat row values (usage-sql.js's rowValues, any number of rows) as one array literal a column
 * (`{1,NULL,"a\"b"}`): the driver's own array serialiser quotes and escapes every element with two
 * regular expressions, numbers included.
 * @param {readonly SqlValue[]} values
 * @returns {string[]}
 */
export function usageColumns(values) {
  const width = USAGE_COLUMNS.length;
  /** @type {string[]} */
  const out = [];
  for (let c = 0; c < width; c++) {
    let text = '{';
    for (let i = c; i < values.length; i += width) {
      if (i > c) text += ',';
      text += element(values[i]);
    }
    out.push(`${text}}`);
  }
  return out;
}

/**
 * @param {readonly SpendDelta[]} deltas
 * @returns {string[]}
 */
export function spendColumns(deltas) {
  return [0, 1, 2, 3].map((c) => `{${deltas.map((d) => element(d[c])).join(',')}}`);
}

/**
 * @param {readonly import('./usage-sql.js').KeyUse[]} uses
 * @returns {string[]}
 */
export function keyUseColumns(uses) {
  return [0, 1].map((c) => `{${uses.map((u) => element(u[c])).join(',')}}`);
}

/**
 * @param {SqlValue | boolean} v
 * @returns {string}
 */
function element(v) {
  if (v === null) return 'NULL';
  if (typeof v === 'number') return String(v);
  if (typeof v === 'boolean') return v ? 't' : 'f';
  return `"${v.replace(/[\\"]/g, '\\$&')}"`;
}

// What crosses to the usage writer thread: flat statement values in column order, packed (a holey array
// costs V8 several times as much to serialise), and spend summed per key and period.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import { DatabaseSync } from 'node:sqlite';
import { INSERT_BATCH, keyUses, rowValues, spendDeltas, UsageStatements } from '../../src/store/usage-sql.js';
import type { UsageRow } from '../../src/store/store.ts';

function row(over: Partial<UsageRow>): UsageRow {
  return {
    ts: 1_700_000_000_000,
    requestId: 'req_1',
    keyId: 'key_a',
    endpoint: '/v1/chat/completions',
    model: 'gpt-4o',
    deployment: 'gpt-4o#0',
    status: 200,
    inputTokens: 10,
    outputTokens: 5,
    cacheReadTokens: 1,
    cacheWriteTokens: 2,
    costNanos: 100,
    latencyMs: 3,
    ttfbMs: null,
    streamed: true,
    attempts: 1,
    periodStart: 0,
    errorCode: null,
    routing: null,
    ...over,
  };
}

test("statement values are the 26 columns of each row in the insert's order, streamed as 1", () => {
  assert.deepEqual(
    rowValues([
      row({}),
      row({
        requestId: 'req_2',
        streamed: false,
        errorCode: 'upstream_error',
        routing: 'panic',
        costBreakdown: '[]',
        redactions: 2,
        sessionId: 'sess-1',
        requestBytes: 12,
        responseBytes: 34,
        errorMessage: 'Upstream said: no',
        attemptLog: '[]',
      }),
    ]),
    [
      1_700_000_000_000,
      'req_1',
      'key_a',
      '/v1/chat/completions',
      'gpt-4o',
      'gpt-4o#0',
      200,
      10,
      5,
      1,
      2,
      100,
      3,
      null,
      1,
      1,
      0,
      null,
      null,
      null,
      0,
      null,
      null,
      null,
      null,
      null,
      1_700_000_000_000,
      'req_2',
      'key_a',
      '/v1/chat/completions',
      'gpt-4o',
      'gpt-4o#0',
      200,
      10,
      5,
      1,
      2,
      100,
      3,
      null,
      0,
      1,
      0,
      'upstream_error',
      'panic',
      '[]',
      2,
      'sess-1',
      12,
      34,
      'Upstream said: no',
      '[]',
    ],
  );
});

test('statement values serialise as a packed array, not element by element', () => {
  const rows = Array.from({ length: 64 }, (_, i) => row({ requestId: `req_${i}` }));
  const values = rowValues(rows);
  const holey: unknown[] = new Array(values.length);
  values.forEach((v, i) => (holey[i] = v));
  assert.ok(
    v8.serialize(values).length < v8.serialize(holey).length * 0.85,
    `${v8.serialize(values).length} vs ${v8.serialize(holey).length}`,
  );
});

test('spend is summed per key and period, and rows that cost nothing and used nothing are left out', () => {
  const deltas = spendDeltas([
    row({}),
    row({ periodStart: 5 }),
    row({ keyId: 'key_b', costNanos: 7, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }),
    row({ costNanos: 1 }),
    row({ keyId: 'key_c', costNanos: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }),
  ]);
  assert.deepEqual(deltas, [
    ['key_a', 0, 101, 36],
    ['key_a', 5, 100, 18],
    ['key_b', 0, 7, 0],
  ]);
});

test("each key's latest row time in a batch, once per key (ON CONFLICT takes a key once per statement)", () => {
  assert.deepEqual(
    keyUses([
      row({ ts: 5 }),
      row({ keyId: 'key_b', ts: 9 }),
      row({ ts: 7 }),
      row({ ts: 6 }),
      row({ keyId: 'key_b', ts: 1 }),
    ]),
    [
      ['key_a', 7],
      ['key_b', 9],
    ],
  );
});

const USAGE_TABLE = `CREATE TABLE usage (id INTEGER PRIMARY KEY, ts INTEGER, request_id TEXT, key_id TEXT, endpoint TEXT,
  model TEXT, deployment TEXT, status INTEGER, input_tokens INTEGER, output_tokens INTEGER, cache_read_tokens INTEGER,
  cache_write_tokens INTEGER, cost_nanos INTEGER, latency_ms INTEGER, ttfb_ms INTEGER, streamed INTEGER, attempts INTEGER,
  period_start INTEGER, error_code TEXT, routing TEXT, cost_breakdown TEXT, redactions INTEGER, session_id TEXT,
  request_bytes INTEGER, response_bytes INTEGER, error_message TEXT, attempt_log TEXT);
  CREATE TABLE key_spend (key_id TEXT, period_start INTEGER, spent_nanos INTEGER, spent_tokens INTEGER,
    PRIMARY KEY (key_id, period_start));
  CREATE TABLE key_last_used (key_id TEXT PRIMARY KEY, ts INTEGER)`;

test('batches of every size are inserted whole and in order by at most seven prepared statements', () => {
  const db = new DatabaseSync(':memory:');
  db.exec(USAGE_TABLE);
  const prepared: string[] = [];
  const counting = {
    prepare: (sql: string) => {
      prepared.push(sql);
      return db.prepare(sql);
    },
  } as unknown as DatabaseSync;
  const statements = new UsageStatements(counting);
  const spendAndTouch = prepared.length;
  let sent = 0;
  for (let size = 1; size <= INSERT_BATCH; size++) {
    const rows = Array.from({ length: size }, () => row({ requestId: `req_${sent++}` }));
    statements.insert(rowValues(rows));
  }
  const ids = db
    .prepare('SELECT request_id FROM usage ORDER BY id')
    .all()
    .map((r) => r.request_id);
  assert.deepEqual(
    ids,
    Array.from({ length: sent }, (_, i) => `req_${i}`),
  );
  assert.equal(prepared.length - spendAndTouch, Math.log2(INSERT_BATCH) + 1);
  db.close();
});

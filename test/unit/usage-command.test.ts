// `modelgate usage --group-by …` and `modelgate requests`: the CLI front end of the admin API's reports,
// the same numbers in a table, CSV or JSON; the old per-day report stays as it was.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import { requestsCommand, usageCommand } from '../../src/admin/usage-command.ts';
import { createKey } from '../../src/admin/operations/key-operations.ts';
import type { UsageRow } from '../../src/store/store.ts';

async function setup(): Promise<{ store: SqliteStore; keyId: string; masked: string }> {
  const store = new SqliteStore(':memory:');
  const { record } = await createKey({ store }, { name: 'ops' });
  const now = Date.now();
  const row = (over: Partial<UsageRow>): UsageRow => ({
    ts: now - 1000,
    requestId: 'r',
    keyId: record.id,
    endpoint: '/v1/chat/completions',
    model: 'gpt-up',
    deployment: 'gpt-up#0',
    status: 200,
    inputTokens: 10,
    outputTokens: 5,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    costNanos: 20_000,
    latencyMs: 40,
    ttfbMs: 30,
    streamed: false,
    attempts: 1,
    periodStart: 0,
    errorCode: null,
    routing: null,
    ...over,
  });
  await store.writeUsage([
    row({ requestId: 'r1' }),
    row({
      requestId: 'r2',
      model: 'claude-up',
      deployment: 'claude-up#0',
      status: 502,
      errorCode: 'upstream_error',
      costNanos: 0,
      errorMessage: 'Upstream said: overloaded (key sk-u…XYZa)',
      attemptLog: JSON.stringify([
        { deployment: 'claude-up#0', status: 529, outcome: 'status_529', duration_ms: 12 },
        { deployment: 'claude-up#1', status: null, outcome: 'timeout', duration_ms: 3000 },
      ]),
    }),
    row({ requestId: 'r3' }),
  ]);
  return { store, keyId: record.id, masked: record.masked };
}

async function run(cmd: typeof usageCommand, store: SqliteStore, argv: string[]): Promise<string> {
  const lines: string[] = [];
  await cmd(store, argv, (s) => lines.push(s));
  return lines.join('\n');
}

test('usage --group-by: the admin report as a table, CSV or JSON; filters as the API takes them', async () => {
  const { store } = await setup();
  const text = await run(usageCommand, store, ['--group-by', 'model']);
  const lines = text.split('\n');
  assert.match(lines[0], /^model\s+requests\s+errors\s+input_tokens/);
  assert.match(lines[1], /^claude-up\s+1\s+1\s+10\b/);
  assert.match(lines[2], /^gpt-up\s+2\s+0\s+20\b/);
  const csv = await run(usageCommand, store, ['--group-by', 'model', '--model', 'gpt-up', '--csv']);
  assert.equal(csv.split('\r\n')[1].split(',').slice(0, 9).join(','), 'gpt-up,2,0,20,10,0,0,30,0.00004');
  const json = JSON.parse(await run(usageCommand, store, ['--group-by', 'key', '--json'])) as {
    groups: { key_name: string; requests: number }[];
  };
  assert.deepEqual(
    json.groups.map((g) => [g.key_name, g.requests]),
    [['ops', 3]],
  );
  const totals = await run(usageCommand, store, ['--errors', '--csv']);
  assert.match(totals.split('\r\n')[1], /^1,1,/, 'no --group-by: one line of totals');
  await assert.rejects(run(usageCommand, store, ['--group-by', 'week']), { name: 'UsageError' });
  await assert.rejects(run(usageCommand, store, ['--group-by', 'day', '--days', '3']), /range twice/);
  assert.match(await run(usageCommand, store, []), /^day\s+key\s+model\s+requests/, 'the per-day report is unchanged');
  await store.close();
});

test('requests: newest first with the key masked, a cursor for the older page, JSON as the API gives it', async () => {
  const { store, masked } = await setup();
  const text = await run(requestsCommand, store, ['--limit', '2']);
  const lines = text.split('\n');
  assert.match(lines[0], /^time\s+key\s+masked\s+model/);
  assert.equal(lines.length, 4, 'header, two rows, the cursor');
  assert.ok(lines[1].includes(masked));
  assert.match(lines[3], /^older: --before \d+$/);
  const before = lines[3].split(' ').at(-1)!;
  const older = JSON.parse(await run(requestsCommand, store, ['--limit', '2', '--before', before, '--json'])) as {
    data: { request_id: string }[];
    next_cursor: number | null;
  };
  assert.deepEqual([older.data.map((r) => r.request_id), older.next_cursor], [['r1'], null]);
  assert.match(await run(requestsCommand, store, ['--errors']), /upstream_error/);
  await assert.rejects(run(requestsCommand, store, ['--limit', 'x']), /--limit must be a whole number/);
  await store.close();
});

test('requests: the request log’s filters; show ID prints the error its caller saw and each attempt', async () => {
  const { store } = await setup();
  const ids = async (...args: string[]): Promise<string[]> =>
    (JSON.parse(await run(requestsCommand, store, [...args, '--json'])) as { data: { request_id: string }[] }).data.map(
      (r) => r.request_id,
    );
  assert.deepEqual(await ids('--status', '5xx'), ['r2']);
  assert.deepEqual(await ids('--status', '200'), ['r3', 'r1']);
  assert.deepEqual(await ids('--q', 'OVERLOADED'), ['r2']);
  assert.deepEqual(await ids('--request-id', 'r1'), ['r1']);
  assert.deepEqual(await ids('--team', 'nobody'), []);
  await assert.rejects(run(requestsCommand, store, ['--status', 'bad']), /status must be a status code/);

  const shown = await run(requestsCommand, store, ['show', 'r2']);
  assert.match(shown, /^request {4}r2$/m);
  assert.match(shown, /^status {5}502 upstream_error$/m);
  assert.match(shown, /^error {6}Upstream said: overloaded \(key sk-u…XYZa\)$/m);
  assert.match(shown, /^1 +claude-up#0 +529 +status_529 +12$/m);
  assert.match(shown, /^2 +claude-up#1 +- +timeout +3000$/m);
  const json = JSON.parse(await run(requestsCommand, store, ['show', 'r2', '--json'])) as { attempt_log: unknown[] };
  assert.equal(json.attempt_log.length, 2);
  await assert.rejects(run(requestsCommand, store, ['show', 'r9']), /no request "r9"/);
  await assert.rejects(run(requestsCommand, store, ['show']), /one request id/);
  await store.close();
});

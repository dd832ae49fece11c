// /metrics through prom-client (issue 37): every series dashboards scraped before keeps its name and
// labels; Node's default process metrics and the GenAI histograms are there; refused paths and methods
// are counted by endpoint class, and a request refused by validation keeps its model.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFixture, call, type Fixture } from './fixture.ts';

/**
 * The series of the hand-written exposition before prom-client, with their labels (besides `le`); the
 * request duration is in seconds now (it was modelgate_request_duration_ms).
 */
const OLD_SERIES: Record<string, string[] | null> = {
  modelgate_requests_total: ['endpoint', 'model', 'status'],
  modelgate_tokens_total: ['endpoint', 'model', 'status', 'direction'],
  modelgate_request_duration_seconds_bucket: ['endpoint', 'model', 'status', 'le'],
  modelgate_request_duration_seconds_sum: ['endpoint', 'model', 'status'],
  modelgate_request_duration_seconds_count: ['endpoint', 'model', 'status'],
  modelgate_upstream_errors_total: ['deployment', 'kind'],
  modelgate_deployment_circuit: ['deployment', 'state'],
  modelgate_circuit_transitions_total: ['deployment', 'to'],
  modelgate_heap_used_bytes: [],
  modelgate_in_flight: [],
  modelgate_usage_rows_pending: [],
  modelgate_usage_write_failures_total: [],
  modelgate_usage_rows_dropped_total: [],
};

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

function parse(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(m !== null, `a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

function find(samples: Sample[], name: string, labels: Record<string, string>): Sample | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

let fx: Fixture;
let text: string;
let samples: Sample[];

before(async () => {
  fx = await startFixture();
  fx.up.enqueue({ kind: 'status', status: 500 });
  assert.equal(
    (
      await call(fx, {
        path: '/v1/chat/completions',
        body: { model: 'gpt-up', messages: [{ role: 'user', content: 'hi' }] },
      })
    ).status,
    200,
  );
  assert.equal(
    (
      await call(fx, {
        path: '/v1/chat/completions',
        body: { model: 'gpt-up', stream: true, messages: [{ role: 'user', content: 'hi' }] },
      })
    ).status,
    200,
  );
  assert.equal(
    (await call(fx, { path: '/v1/chat/completions', body: { model: 'gpt-up', messages: 'not a list' } })).status,
    400,
  );
  assert.equal((await call(fx, { path: '/v1/nope' })).status, 404);
  assert.equal(
    (await call(fx, { path: '/v1/messages/nope', headers: { 'anthropic-version': '2023-06-01' } })).status,
    404,
  );
  assert.equal((await call(fx, { path: '/v1/chat/completions', method: 'DELETE' })).status, 405);
  const r = await fetch(`${fx.gw.url}/metrics`);
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  text = await r.text();
  samples = parse(text);
});

after(async () => {
  await fx?.close();
});

test('every series scraped before prom-client is still exposed, with the same labels', () => {
  for (const [name, labels] of Object.entries(OLD_SERIES)) {
    const family = name.replace(/_(bucket|sum|count)$/, '');
    assert.match(text, new RegExp(`^# TYPE ${family} (counter|gauge|histogram)$`, 'm'), `# TYPE ${family}`);
    const series = samples.filter((s) => s.name === name);
    if (name === 'modelgate_deployment_circuit' || name === 'modelgate_circuit_transitions_total') continue; // present once a circuit changes
    assert.ok(series.length > 0, `samples of ${name}`);
    for (const s of series)
      assert.deepEqual(Object.keys(s.labels).sort(), [...(labels ?? [])].sort(), `labels of ${name}`);
  }
  const ok = { endpoint: '/v1/chat/completions', model: 'gpt-up', status: '200' };
  assert.equal(find(samples, 'modelgate_requests_total', ok)?.value, 2);
  assert.ok(find(samples, 'modelgate_tokens_total', { ...ok, direction: 'input' })!.value > 0);
  assert.ok(find(samples, 'modelgate_tokens_total', { ...ok, direction: 'output' })!.value > 0);
  assert.equal(find(samples, 'modelgate_request_duration_seconds_bucket', { ...ok, le: '+Inf' })?.value, 2);
  // Buckets reach past the longest request (600 s); the sum is in seconds, not milliseconds.
  assert.equal(find(samples, 'modelgate_request_duration_seconds_bucket', { ...ok, le: '1200' })?.value, 2);
  assert.ok(find(samples, 'modelgate_request_duration_seconds_sum', ok)!.value < 60);
  assert.equal(samples.filter((s) => s.name === 'modelgate_request_duration_ms_count').length, 0);
  assert.equal(
    find(samples, 'modelgate_upstream_errors_total', { deployment: 'gpt-up#0', kind: 'status_500' })?.value,
    1,
  );
  assert.ok(find(samples, 'modelgate_heap_used_bytes', {})!.value > 0);
});

test("Node's default process and event-loop metrics are exposed", () => {
  for (const name of [
    'process_cpu_user_seconds_total',
    'process_resident_memory_bytes',
    'nodejs_eventloop_lag_seconds',
    'nodejs_heap_size_used_bytes',
    'nodejs_active_handles',
  ]) {
    assert.ok(
      samples.some((s) => s.name === name),
      name,
    );
  }
  // Their `_total` sums are gauges, which Prometheus names must not end in: left out (sum the by-type series).
  assert.ok(!samples.some((s) => s.name === 'nodejs_active_handles_total'));
});

test('GenAI histograms: tokens per request by kind, time to first token of streams', () => {
  const genAi = { gen_ai_operation_name: 'chat', gen_ai_provider_name: 'openai', gen_ai_request_model: 'gpt-up' };
  assert.equal(find(samples, 'gen_ai_client_token_usage_count', { ...genAi, gen_ai_token_type: 'input' })?.value, 2);
  assert.equal(find(samples, 'gen_ai_client_token_usage_count', { ...genAi, gen_ai_token_type: 'output' })?.value, 2);
  assert.ok(find(samples, 'gen_ai_client_token_usage_sum', { ...genAi, gen_ai_token_type: 'output' })!.value > 0);
  assert.equal(find(samples, 'gen_ai_server_time_to_first_token_seconds_count', genAi)?.value, 1);
  // gen_ai.client.operation.duration, in seconds, with buckets past 600 s.
  assert.equal(find(samples, 'gen_ai_client_operation_duration_seconds_count', genAi)?.value, 2);
  assert.equal(find(samples, 'gen_ai_client_operation_duration_seconds_bucket', { ...genAi, le: '655.36' })?.value, 2);
});

test('unknown paths and methods are counted by endpoint class and logged at debug; a validation refusal keeps its model', () => {
  assert.equal(
    find(samples, 'modelgate_unrouted_requests_total', { endpoint_class: 'openai', reason: 'unknown_path' })?.value,
    1,
  );
  assert.equal(
    find(samples, 'modelgate_unrouted_requests_total', { endpoint_class: 'anthropic', reason: 'unknown_path' })?.value,
    1,
  );
  assert.equal(
    find(samples, 'modelgate_unrouted_requests_total', { endpoint_class: 'openai', reason: 'method_not_allowed' })
      ?.value,
    1,
  );
  assert.ok(!text.includes('/v1/nope'), 'no raw path in the metrics');
  assert.equal(
    find(samples, 'modelgate_requests_total', { endpoint: '/v1/chat/completions', model: 'gpt-up', status: '400' })
      ?.value,
    1,
  );
  const logs = fx.gw.logs();
  assert.match(logs, /"level":"debug"[^\n]*"path":"\/v1\/nope"[^\n]*request refused before routing/);
  assert.match(logs, /"level":"debug"[^\n]*"code":"invalid_request"[^\n]*"model":"gpt-up"[^\n]*request refused/);
});

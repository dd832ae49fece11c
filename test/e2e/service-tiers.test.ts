// Service tiers end to end: a request that asks for a tier by name is reserved at that tier's rates on the
// way in and charged at the rates of the tier the reply says it was served at — on a non-streamed reply
// (x-modelgate-cost, the row, its breakdown) and on a stream (its usage chunk names the tier).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startMockUpstream } from '../helpers/mock-upstream.ts';
import type { MockUpstream } from '../helpers/mock-upstream-types.ts';
import { startGateway, configYaml, waitUntil, type GatewayProcess } from '../helpers/gateway-process.ts';

const ADMIN = 'adm-0123456789abcdef-tiers';
let up: MockUpstream;
let gw: GatewayProcess;
let key: string;

before(async () => {
  up = await startMockUpstream({ replyText: 'four words of reply' });
  gw = await startGateway({
    env: { ADMIN_TOKEN: ADMIN },
    configYaml: configYaml({
      providers: `  - { name: up, kind: openai, base_url: "${up.url}/v1", api_key: "sk-upstream-0123456789abcdef" }`,
      models: `  - name: gpt-tiered
    price: { input: 1.25, output: 10, cache_read: 0.125, service_tiers: { flex: 0.5, priority: { input: 2.5, output: 20, cache_read: 0.25 } } }
    deployments: [ { provider: up, model: gpt-5-mock } ]`,
      extra: 'admin_token: "${ADMIN_TOKEN}"',
    }),
  });
  key = (await gw.createKey({ name: 'tiers', flags: ['--budget-usd', '0.75'] })).key;
});
after(async () => {
  await gw?.cleanup();
  await up?.close();
});

interface Row {
  request_id: string;
  cost_usd: number;
  input_tokens: number;
  output_tokens: number;
  cost_breakdown: Array<{ class: string; tokens?: number; unit_price_usd: number; service_tier?: string }>;
}

async function rowOf(requestId: string): Promise<Row> {
  let row: Row | undefined;
  await waitUntil(async () => {
    const r = await fetch(`${gw.url}/admin/requests?limit=50`, { headers: { authorization: `Bearer ${ADMIN}` } });
    const page = (await r.json()) as { data: Row[] };
    row = page.data.find((d) => d.request_id === requestId);
    return row !== undefined;
  }, 'the usage row');
  return row!;
}

function chat(extra: Record<string, unknown>): Promise<Response> {
  return fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: 'gpt-tiered', messages: [{ role: 'user', content: 'hello there' }], ...extra }),
  });
}

/** USD at `input` and `output` $/M for the row's own counts, rounded as rows are (nano-USD). */
function priced(row: Row, input: number, output: number): number {
  return Number(((row.input_tokens * input + row.output_tokens * output) / 1e6).toFixed(9));
}

test('a flex request is charged at flex rates, and the header, the row and its breakdown agree', async () => {
  const r = await chat({ service_tier: 'flex', max_tokens: 50 });
  assert.equal(r.status, 200, await r.clone().text());
  const body = (await r.json()) as { service_tier: string };
  assert.equal(body.service_tier, 'flex', 'the upstream served the tier asked for');
  const row = await rowOf(r.headers.get('x-request-id')!);
  assert.ok(row.input_tokens > 0 && row.output_tokens > 0);
  assert.equal(row.cost_usd, priced(row, 0.625, 5));
  assert.equal(Number(r.headers.get('x-modelgate-cost')), row.cost_usd);
  const output = row.cost_breakdown.find((l) => l.class === 'output');
  assert.equal(output?.service_tier, 'flex');
  assert.equal(output?.unit_price_usd, 5 / 1e6);
});

test('a streamed priority request is charged at the priority rates its usage chunk names', async () => {
  const r = await chat({ service_tier: 'priority', stream: true, stream_options: { include_usage: true } });
  assert.equal(r.status, 200);
  const text = await r.text();
  assert.match(text, /"service_tier":"priority"/);
  const row = await rowOf(r.headers.get('x-request-id')!);
  assert.equal(row.cost_usd, priced(row, 2.5, 20));
});

test('a request with no tier is charged the standard rates', async () => {
  const r = await chat({ max_tokens: 50 });
  assert.equal(r.status, 200);
  const row = await rowOf(r.headers.get('x-request-id')!);
  assert.equal(row.cost_usd, priced(row, 1.25, 10));
});

test('admission reserves at the tier asked for: a flex request fits a budget its standard twin does not', async () => {
  // 80,000 output tokens at most: $0.80 at standard rates, over the $0.75 budget; $0.40 at flex rates,
  // which fits beside the little the requests above spent.
  const standard = await chat({ max_tokens: 80_000 });
  assert.equal(standard.status, 403, await standard.clone().text());
  const flex = await chat({ max_tokens: 80_000, service_tier: 'flex' });
  assert.equal(flex.status, 200, await flex.clone().text());
});

// What a request costs, seen from outside: x-modelgate-cost on a non-streamed reply (and as a trailer on
// a stream) equals the cost on the request's row, whose cost_breakdown explains it; a per-token price in
// the config stops the start; `modelgate prices` shows each model's rates and where they came from.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request as httpRequest } from 'node:http';
import { startMockUpstream } from '../helpers/mock-upstream.ts';
import type { MockUpstream } from '../helpers/mock-upstream-types.ts';
import { startGateway, configYaml, waitUntil, type GatewayProcess } from '../helpers/gateway-process.ts';

const MAIN = new URL('../../src/main.ts', import.meta.url).pathname;
const ADMIN = 'adm-0123456789abcdef-spend';
let up: MockUpstream;
let gw: GatewayProcess;
let key: string;

before(async () => {
  up = await startMockUpstream({ cacheReadTokens: 1000, cacheWriteTokens: 200 });
  gw = await startGateway({
    env: { ADMIN_TOKEN: ADMIN },
    configYaml: configYaml({
      providers: `  - { name: upa, kind: anthropic, base_url: "${up.url}", api_key: "sk-upstream-0123456789abcdef" }
  - { name: up, kind: openai, base_url: "${up.url}/v1", api_key: "sk-upstream-0123456789abcdef" }`,
      models: `  - { name: claude-priced, price: { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 }, deployments: [ { provider: upa, model: claude-upstream-1 } ] }
  - { name: claude-sonnet, deployments: [ { provider: upa, model: claude-sonnet-4-5 } ] }`,
      extra: 'admin_token: "${ADMIN_TOKEN}"',
    }),
  });
  key = (await gw.createKey({ name: 'spend' })).key;
});
after(async () => {
  await gw?.cleanup();
  await up?.close();
});

interface Line {
  class: string;
  tokens?: number;
  units?: number;
  unit_price_usd: number;
  cost_usd: number;
}

async function rowOf(
  requestId: string,
): Promise<Record<string, unknown> & { cost_usd: number; cost_breakdown: Line[] }> {
  let row: (Record<string, unknown> & { cost_usd: number; cost_breakdown: Line[] }) | undefined;
  await waitUntil(async () => {
    const r = await fetch(`${gw.url}/admin/requests?limit=50`, { headers: { authorization: `Bearer ${ADMIN}` } });
    const page = (await r.json()) as { data: Array<Record<string, unknown>> };
    row = page.data.find((d) => d.request_id === requestId) as typeof row;
    return row !== undefined;
  }, 'the usage row');
  return row!;
}

function messages(model: string, stream: boolean): Promise<Response> {
  return fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model, max_tokens: 50, stream, messages: [{ role: 'user', content: 'hello there' }] }),
  });
}

test('x-modelgate-cost on a non-streamed reply equals the row cost, and cost_breakdown explains it', async () => {
  for (const model of ['claude-priced', 'claude-sonnet']) {
    const r = await messages(model, false);
    assert.equal(r.status, 200, await r.clone().text());
    const body = (await r.json()) as { usage: { input_tokens: number; output_tokens: number } };
    const header = r.headers.get('x-modelgate-cost');
    assert.match(header ?? '', /^\d+(\.\d+)?$/, 'a plain decimal number of USD');
    const row = await rowOf(r.headers.get('x-request-id')!);
    assert.equal(Number(header), row.cost_usd, model);
    // Sonnet comes from the catalogue at the same published rates as the configured model.
    const expected = (body.usage.input_tokens * 3 + 1000 * 0.3 + 200 * 3.75 + body.usage.output_tokens * 15) / 1e6;
    assert.equal(row.cost_usd, Number(expected.toFixed(9)), model);
    const classes = Object.fromEntries(row.cost_breakdown.map((l) => [l.class, l.tokens]));
    assert.deepEqual(classes, {
      input: body.usage.input_tokens,
      cache_read: 1000,
      cache_write_5m: 200,
      output: body.usage.output_tokens,
    });
    const write = row.cost_breakdown.find((l) => l.class === 'cache_write_5m')!;
    assert.equal(write.unit_price_usd, 0.00000375);
    const sum = row.cost_breakdown.reduce((s, l) => s + l.cost_usd, 0);
    assert.equal(Math.round(sum * 1e9), Math.round(row.cost_usd * 1e9));
  }
});

test('a streamed reply carries x-modelgate-cost as a trailer equal to the row cost', async () => {
  const url = new URL(`${gw.url}/v1/messages`);
  const { trailer, requestId, declared } = await new Promise<{ trailer: string; requestId: string; declared: string }>(
    (resolve, reject) => {
      const req = httpRequest(
        url,
        {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            authorization: `Bearer ${key}`,
            'anthropic-version': '2023-06-01',
          },
        },
        (res) => {
          res.resume();
          res.on('end', () =>
            resolve({
              trailer: String(res.trailers['x-modelgate-cost']),
              requestId: String(res.headers['x-request-id']),
              declared: String(res.headers.trailer),
            }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(
        JSON.stringify({
          model: 'claude-priced',
          max_tokens: 50,
          stream: true,
          messages: [{ role: 'user', content: 'hello there' }],
        }),
      );
    },
  );
  assert.equal(declared, 'x-modelgate-cost');
  const row = await rowOf(requestId);
  assert.ok(row.cost_usd > 0);
  assert.equal(Number(trailer), row.cost_usd);
});

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [MAIN, ...args],
      { env: { ...process.env, MODELGATE_NO_FIRST_KEY: '1' } },
      (err, stdout, stderr) =>
        resolve({ code: err === null ? 0 : ((err as { code?: number }).code ?? 1), stdout, stderr }),
    );
  });
}

test('a per-token price stops the start with a message that says so; prices shows rates and their source', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mg-spend-'));
  try {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(
      bad,
      `database: ${join(dir, 'gw.db')}
providers: [ { name: mock, kind: mock } ]
models:
  - { name: m, price: { input: 0.0000025, output: 10 }, deployments: [ { provider: mock, model: m } ] }
`,
    );
    const refused = await cli(['serve', '--config', bad, '--port', '0']);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /models\[0\]\.price\.input/);
    assert.match(
      refused.stderr,
      /0\.0000025 USD looks like a price per token: prices are USD per million tokens \(0\.0000025 per token is 2\.5 per million\)/,
    );

    // The new classes and the tiers are checked too.
    const bad1h = join(dir, 'bad-1h.yaml');
    writeFileSync(
      bad1h,
      `database: ${join(dir, 'gw.db')}
providers: [ { name: mock, kind: mock } ]
models:
  - { name: m, price: { input: 3, output: 15, cache_write_1h: 0.000006, tiers: [ { above: 200000, input: 0.000006, output: 22.5 } ] }, deployments: [ { provider: mock, model: m } ] }
`,
    );
    const refused1h = await cli(['serve', '--config', bad1h, '--port', '0']);
    assert.equal(refused1h.code, 2);
    assert.match(refused1h.stderr, /at models\[0\]\.price\.cache_write_1h: 0\.000006 USD looks like a price per token/);
    assert.match(refused1h.stderr, /at models\[0\]\.price\.tiers\[0\]\.input: 0\.000006 USD/);

    const good = join(dir, 'good.yaml');
    writeFileSync(
      good,
      `database: ${join(dir, 'gw.db')}
providers:
  - { name: an, kind: anthropic, base_url: "https://api.anthropic.com", api_key: "\${ANTHROPIC_API_KEY}" }
  - { name: mock, kind: mock }
models:
  - { name: sonnet, deployments: [ { provider: an, model: claude-sonnet-4-5 } ] }
  - { name: mine, price: { input: 1, output: 2, cache_write_1h: 2.5, units: { web_search: 0.01 } }, deployments: [ { provider: mock, model: m } ] }
`,
    );
    const prices = await cli(['prices', '--config', good, '--json']);
    assert.equal(prices.code, 0, prices.stderr);
    const data = (JSON.parse(prices.stdout) as { data: Array<Record<string, unknown>> }).data;
    assert.deepEqual(data[0].source, 'catalogue');
    assert.deepEqual(
      { ...(data[0].per_million_tokens as object) },
      { input: 3, cache_read: 0.3, cache_write_5m: 3.75, cache_write_1h: 6, output: 15, reasoning: 15 },
    );
    assert.deepEqual(data[0].per_unit, { web_search: 0.01 });
    assert.equal(data[1].source, 'config');
    assert.equal((data[1].per_million_tokens as Record<string, number>).cache_write_1h, 2.5);
    const text = await cli(['prices', '--config', good]);
    assert.match(text.stdout, /^sonnet\s+catalogue\s+3\s+0\.3\s+3\.75\s+6\s+15\s+15/m);
    assert.match(text.stdout, /^mine\s+config\s+1\s+0\.1\s+1\.25\s+2\.5\s+2\s+2\s+web_search 0\.01\/unit/m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

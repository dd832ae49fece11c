// Reconciliation against a provider's books: a month of traffic in the gateway's usage table, priced by
// the gateway, against exports generated from the same traffic and the providers' published rates (their
// admin APIs' JSON and a CSV). All match; a day changed in an export shows up as exactly that day and model.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { startGateway, type GatewayProcess } from '../helpers/gateway-process.ts';
import { seededRandom } from '../helpers/seeded-random.ts';
import { openStore } from '../../src/store/open-store.ts';
import { costNanos } from '../../src/core/budget.ts';
import { loadConfig } from '../../src/config/load.ts';
import type { UsageRow } from '../../src/store/store.ts';
import type { Usage } from '../../src/core/usage.ts';

const ADMIN = 'adm-0123456789abcdef-reconcile';
const MAIN = new URL('../../src/main.ts', import.meta.url).pathname;
const DAYS = 30;
const FIRST_DAY = Date.UTC(2026, 9, 1); // October 2026
const day = (i: number): string => new Date(FIRST_DAY + i * 86_400_000).toISOString().slice(0, 10);

let gw: GatewayProcess;
const ENV = {
  ADMIN_TOKEN: ADMIN,
  OPENAI_API_KEY: 'sk-test-0123456789abcdef',
  ANTHROPIC_API_KEY: 'sk-test-0123456789abcdef',
};

/** Per day: the traffic of each upstream model, summed as a provider sums it. */
interface DayTotals {
  uncached: number;
  cached: number;
  write5m: number;
  write1h: number;
  output: number;
  requests: number;
}
const sent = new Map<string, DayTotals>();

// Published rates, USD per million: gpt-5 1.25 / 0.125 cached / 10; claude-sonnet-4-5 3 / 0.30 read /
// 3.75 5 m write / 6 1 h write / 15.
function providerCostUsd(model: string, t: DayTotals): number {
  if (model === 'gpt-5') return (t.uncached * 1.25 + t.cached * 0.125 + t.output * 10) / 1e6;
  return (t.uncached * 3 + t.cached * 0.3 + t.write5m * 3.75 + t.write1h * 6 + t.output * 15) / 1e6;
}

before(async () => {
  gw = await startGateway({
    env: ENV,
    configYaml: `database: "{{DB}}"
usage_flush_ms: 20
admin_token: "\${ADMIN_TOKEN}"
providers:
  - { name: oa, kind: openai, base_url: "https://api.openai.com/v1", api_key: "\${OPENAI_API_KEY}" }
  - { name: an, kind: anthropic, base_url: "https://api.anthropic.com", api_key: "\${ANTHROPIC_API_KEY}" }
models:
  - { name: gpt-5, deployments: [ { provider: oa, model: gpt-5 } ] }
  - { name: claude-sonnet, deployments: [ { provider: an, model: claude-sonnet-4-5-20250929 } ] }
`,
  });
  // The month's traffic, as rows the gateway writes: usage normalised to its classes, priced by its tables.
  const config = loadConfig(gw.configPath, { ...process.env, ...ENV });
  const priceOf = (name: string) => config.models.find((m) => m.name === name)!.price;
  const random = seededRandom(50);
  const int = (max: number): number => Math.floor(random() * max);
  const rows: UsageRow[] = [];
  for (let d = 0; d < DAYS; d++)
    for (const [name, upstream] of [
      ['gpt-5', 'gpt-5'],
      ['claude-sonnet', 'claude-sonnet-4-5-20250929'],
    ]) {
      const totals: DayTotals = { uncached: 0, cached: 0, write5m: 0, write1h: 0, output: 0, requests: 0 };
      for (let r = 0, n = 3 + int(5); r < n; r++) {
        const anthropic = upstream !== 'gpt-5';
        const write5m = anthropic ? int(3000) : 0;
        const write1h = anthropic && r % 2 === 0 ? int(2000) : 0;
        const usage: Usage = {
          inputTokens: 1 + int(5000),
          cacheReadTokens: int(20_000),
          cacheWriteTokens: write5m + write1h,
          outputTokens: 1 + int(2000),
        };
        if (write1h > 0) usage.cacheWrite1hTokens = write1h;
        totals.uncached += usage.inputTokens;
        totals.cached += usage.cacheReadTokens;
        totals.write5m += write5m;
        totals.write1h += write1h;
        totals.output += usage.outputTokens;
        totals.requests++;
        rows.push({
          ts: FIRST_DAY + d * 86_400_000 + int(86_400_000),
          requestId: `req_${d}_${name}_${r}`,
          keyId: 'key_reconcile',
          endpoint: anthropic ? '/v1/messages' : '/v1/chat/completions',
          model: name,
          deployment: `${name}#0`,
          status: 200,
          inputTokens: usage.inputTokens,
          outputTokens: usage.outputTokens,
          cacheReadTokens: usage.cacheReadTokens,
          cacheWriteTokens: usage.cacheWriteTokens,
          costNanos: costNanos(usage, priceOf(name)),
          latencyMs: 100,
          ttfbMs: 50,
          streamed: false,
          attempts: 1,
          periodStart: 0,
          errorCode: null,
          routing: null,
        });
      }
      sent.set(`${day(d)} ${upstream}`, totals);
    }
  const store = await openStore(gw.dbPath);
  try {
    await store.writeUsage(rows);
  } finally {
    await store.close();
  }
});
after(async () => {
  await gw?.cleanup();
});

/** OpenAI's organization usage (completions, grouped by model) and costs, one bucket a day, as JSON pages. */
function openAiExports(change?: { day: string; outputTokens: number }): { usage: string; costs: string; csv: string } {
  const usageBuckets = [];
  const costBuckets = [];
  const csv = ['start_time,end_time,model,input_tokens,input_cached_tokens,output_tokens,num_model_requests,cost_usd'];
  for (let d = 0; d < DAYS; d++) {
    const start = (FIRST_DAY + d * 86_400_000) / 1000;
    const t = { ...sent.get(`${day(d)} gpt-5`)! };
    if (change?.day === day(d)) t.output += change.outputTokens;
    const result = {
      object: 'organization.usage.completions.result',
      input_tokens: t.uncached + t.cached,
      input_cached_tokens: t.cached,
      output_tokens: t.output,
      input_audio_tokens: 0,
      output_audio_tokens: 0,
      num_model_requests: t.requests,
      project_id: null,
      user_id: null,
      api_key_id: null,
      model: 'gpt-5-2025-08-07',
      batch: null,
    };
    usageBuckets.push({ object: 'bucket', start_time: start, end_time: start + 86_400, results: [result] });
    const cost = providerCostUsd('gpt-5', t);
    costBuckets.push({
      object: 'bucket',
      start_time: start,
      end_time: start + 86_400,
      results: [
        {
          object: 'organization.costs.result',
          amount: { value: cost, currency: 'usd' },
          line_item: 'gpt-5-2025-08-07, input',
          project_id: null,
        },
      ],
    });
    csv.push(
      `${start},${start + 86_400},gpt-5-2025-08-07,${t.uncached + t.cached},${t.cached},${t.output},${t.requests},${cost}`,
    );
  }
  const page = (data: unknown[]) => JSON.stringify({ object: 'page', data, has_more: false, next_page: null });
  return { usage: page(usageBuckets), costs: page(costBuckets), csv: `${csv.join('\r\n')}\r\n` };
}

/** Anthropic's usage report (messages, grouped by model, 1d buckets) and cost report (cents, as text). */
function anthropicExport(change?: { day: string; outputTokens: number }): string {
  const usage = [];
  const costs = [];
  for (let d = 0; d < DAYS; d++) {
    const t = { ...sent.get(`${day(d)} claude-sonnet-4-5-20250929`)! };
    if (change?.day === day(d)) t.output += change.outputTokens;
    const starting_at = `${day(d)}T00:00:00Z`;
    const ending_at = `${day(d + 1)}T00:00:00Z`;
    usage.push({
      starting_at,
      ending_at,
      results: [
        {
          uncached_input_tokens: t.uncached,
          cache_creation: { ephemeral_1h_input_tokens: t.write1h, ephemeral_5m_input_tokens: t.write5m },
          cache_read_input_tokens: t.cached,
          output_tokens: t.output,
          server_tool_use: { web_search_requests: 0 },
          api_key_id: null,
          workspace_id: null,
          model: 'claude-sonnet-4-5-20250929',
          service_tier: 'standard',
          context_window: '0-200k',
        },
      ],
    });
    costs.push({
      starting_at,
      ending_at,
      results: [
        {
          currency: 'USD',
          amount: (providerCostUsd('claude', t) * 100).toFixed(7),
          workspace_id: null,
          description: null,
          cost_type: null,
          context_window: null,
          model: 'claude-sonnet-4-5-20250929',
          service_tier: null,
          token_type: null,
        },
      ],
    });
  }
  return JSON.stringify({
    usage_report: { data: usage, has_more: false, next_page: null },
    cost_report: { data: costs, has_more: false, next_page: null },
  });
}

function reconcileCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [MAIN, 'reconcile', ...args, '--config', gw.configPath],
      { env: { ...process.env, ...ENV } },
      (err, stdout, stderr) =>
        resolve({ code: err === null ? 0 : ((err as { code?: number }).code ?? 1), stdout, stderr }),
    );
  });
}

function file(name: string, text: string): string {
  const path = join(gw.dir, name);
  writeFileSync(path, text);
  return path;
}

test('a month of traffic matches the providers’ usage and cost exports, JSON and CSV', async () => {
  const oa = openAiExports();
  for (const [provider, path] of [
    ['openai', file('openai-usage.json', oa.usage)],
    ['openai', file('openai-costs.json', oa.costs)],
    ['openai', file('openai.csv', oa.csv)],
    ['anthropic', file('anthropic.json', anthropicExport())],
  ]) {
    const r = await reconcileCli(['--provider', provider, '--file', path]);
    assert.equal(r.code, 0, `${path}: ${r.stdout}${r.stderr}`);
    assert.equal(
      r.stdout.trim(),
      `all ${DAYS} day-model totals match the ${provider} export from ${day(0)} to ${day(DAYS - 1)}`,
    );
  }
});

test('one changed day shows as exactly that day and model, with the token and cost differences', async () => {
  const changed = { day: day(16), outputTokens: 1000 };
  const r = await reconcileCli([
    '--provider',
    'anthropic',
    '--file',
    file('anthropic-changed.json', anthropicExport(changed)),
  ]);
  assert.equal(r.code, 1, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.deepEqual(lines, [
    `${day(16)} claude-sonnet-4-5-20250929 tokens -1000 (input 0 cache_read 0 cache_write 0 output -1000) cost_usd -0.015`,
    `1 of ${DAYS} day-model totals differ from the anthropic export (gateway minus provider)`,
  ]);
  // A range that leaves the changed day out matches; the OpenAI side is untouched by the change.
  const before = await reconcileCli([
    '--provider',
    'anthropic',
    '--file',
    join(gw.dir, 'anthropic-changed.json'),
    '--from',
    day(0),
    '--to',
    day(15),
  ]);
  assert.equal(before.code, 0, before.stdout);
  const oa = openAiExports({ day: day(3), outputTokens: -10 });
  const csv = await reconcileCli(['--provider', 'openai', '--file', file('openai-changed.csv', oa.csv)]);
  assert.equal(csv.code, 1);
  assert.match(
    csv.stdout,
    new RegExp(
      `^${day(3)} gpt-5-2025-08-07 tokens 10 \\(input 0 cache_read 0 cache_write 0 output 10\\) cost_usd 0\\.0001$`,
      'm',
    ),
  );
});

test('POST /admin/reconcile answers the same comparison as JSON', async () => {
  const res = await fetch(`${gw.url}/admin/reconcile?provider=anthropic`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: anthropicExport({ day: day(29), outputTokens: 1 }),
  });
  assert.equal(res.status, 200);
  const report = (await res.json()) as {
    differing: number;
    lines: Array<{
      day: string;
      model: string;
      matches: boolean;
      difference: { cost_usd: number; tokens: { output: number } };
    }>;
  };
  assert.equal(report.lines.length, DAYS);
  assert.equal(report.differing, 1);
  const bad = report.lines.filter((l) => !l.matches);
  assert.deepEqual(
    bad.map((l) => [l.day, l.model, l.difference.tokens.output, l.difference.cost_usd]),
    [[day(29), 'claude-sonnet-4-5-20250929', -1, -0.000015]],
  );
  const wrong = await fetch(`${gw.url}/admin/reconcile?provider=azure`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}` },
    body: '{}',
  });
  assert.equal(wrong.status, 400);
  assert.match(await wrong.text(), /provider must be openai or anthropic/);
});

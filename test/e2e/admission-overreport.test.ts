// Issue 39, item 8: an upstream whose real usage beats the estimate (here it reports 10 × the prompt
// tokens it was sent, as images, PDFs and tool definitions can) must not overspend a budget by the number
// of requests in flight. 300 parallel requests on a key whose budget fits about 20 such requests keep the
// spend within 1.5 × the budget while still serving several — on one node and on two (Redis).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startMockUpstream } from '../helpers/mock-upstream.ts';
import type { MockUpstream } from '../helpers/mock-upstream-types.ts';
import { startGateway, configYaml, waitUntil, type GatewayProcess } from '../helpers/gateway-process.ts';
import { redisOrSkip, dropPrefix, REDIS_URL } from '../helpers/redis.ts';
import { estimatePromptTokens } from '../../src/admission/estimate-tokens.ts';
import { keySpent, usageRows } from '../admission/usage-db.ts';

const PARALLEL = 300;
const FITS = 20;
const OVER = 10;
const PRICE = 10; // USD per million tokens, in and out
const PROMPT = Array.from({ length: 150 }, (_, i) => `item${i}`).join(' ');
const body = { model: 'gpt-over', max_tokens: 5, messages: [{ role: 'user', content: PROMPT }] };

/** The upstream's bill: 10 × the prompt tokens it was sent, one output token. */
function overReporting(up: MockUpstream): void {
  up.setBehaviour(() => ({
    kind: 'custom',
    handle: async ({ res, recorded }) => {
      await new Promise((r) => setTimeout(r, 30));
      const prompt = OVER * estimatePromptTokens(recorded.json, { model: 'upstream-gpt' });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'c1',
          object: 'chat.completion',
          created: 1,
          model: 'upstream-gpt',
          choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: prompt, completion_tokens: 1, total_tokens: prompt + 1 },
        }),
      );
    },
  }));
}

function config(up: MockUpstream, extra = ''): string {
  return configYaml({
    providers: `  - { name: up, kind: openai, base_url: "${up.url}/v1", api_key: "sk-upstream-0123456789abcdef" }`,
    models: `  - { name: gpt-over, price: { input: ${PRICE}, output: ${PRICE} }, deployments: [ { provider: up, model: upstream-gpt } ] }`,
    extra,
  });
}

async function burst(gateways: GatewayProcess[], key: string): Promise<{ status: number; text: string }[]> {
  return Promise.all(
    Array.from({ length: PARALLEL }, async (_, i) => {
      const res = await fetch(`${gateways[i % gateways.length].url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, text: await res.text() };
    }),
  );
}

async function check(
  t: { diagnostic: (s: string) => void },
  gateways: GatewayProcess[],
  up: MockUpstream,
): Promise<void> {
  const realNanos = Math.ceil((OVER * estimatePromptTokens(body, { model: 'upstream-gpt' }) + 1) * PRICE * 1000);
  const budgetNanos = FITS * realNanos;
  const { key, id } = await gateways[0].createKey({ name: 'over', flags: ['--budget-usd', String(budgetNanos / 1e9)] });
  for (const gw of gateways.slice(1)) {
    await waitUntil(
      async () => (await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).status === 200,
      'every gateway to know the key',
    );
  }
  const results = await burst(gateways, key);
  const served = results.filter((r) => r.status === 200).length;
  for (const r of results.filter((x) => x.status !== 200)) {
    assert.equal(r.status, 403, r.text);
    assert.match(r.text, /budget_exhausted/);
  }
  await waitUntil(() => usageRows(gateways[0].dbPath, id).length === PARALLEL, 'every usage row');
  const spent = keySpent(gateways[0].dbPath, id).nanos;
  t.diagnostic(`served ${served} of ${PARALLEL}; spent ${(spent / budgetNanos).toFixed(2)} × the budget`);
  assert.equal(up.requests.length, served);
  assert.ok(
    spent <= 1.5 * budgetNanos,
    `spend ${spent} stays within 1.5 × the budget ${budgetNanos} (${(spent / budgetNanos).toFixed(2)} ×)`,
  );
  assert.ok(served >= 5, `several requests are still served (${served})`);
}

test('one node: an upstream reporting 10 × the prompt keeps spend within 1.5 × the budget', async (t) => {
  const up = await startMockUpstream();
  overReporting(up);
  const gw = await startGateway({ configYaml: config(up) });
  try {
    await check(t, [gw], up);
  } finally {
    await gw.cleanup();
    await up.close();
  }
});

test('two nodes on one Redis: an upstream reporting 10 × the prompt keeps spend within 1.5 × the budget', async (t) => {
  const redis = await redisOrSkip(t);
  if (redis === null) return;
  const prefix = `mgtest:${randomUUID()}:`;
  const up = await startMockUpstream();
  overReporting(up);
  const env = { MODELGATE_REDIS_PREFIX: prefix };
  const a = await startGateway({ configYaml: config(up, `redis: ${REDIS_URL}`), env });
  let b: GatewayProcess | null = null;
  try {
    b = await startGateway({
      configYaml: config(up, `redis: ${REDIS_URL}`).replace('"{{DB}}"', JSON.stringify(a.dbPath)),
      env,
    });
    await check(t, [a, b], up);
  } finally {
    await b?.cleanup();
    await a.cleanup();
    await up.close();
    await dropPrefix(redis, prefix);
    redis.disconnect();
  }
});

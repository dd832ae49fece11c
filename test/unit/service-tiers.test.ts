// Service tiers: the tier a reply says it was served at (OpenAI's service_tier beside the usage,
// Anthropic's inside it) selects that tier's rates, set in `price.service_tiers` or derived for a
// catalogue price; the breakdown names the tier, and the standard tier changes nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { costNanos } from '../../src/core/budget.ts';
import { emptyUsage, servedTier, type Usage } from '../../src/core/usage.ts';
import { readAnthropicUsage } from '../../src/dialects/anthropic-messages/usage.ts';
import { PassthroughStreamTap } from '../../src/dialects/passthrough-tap.ts';
import { stringField } from '../../src/dialects/json-text.ts';
import { breakdownJson, costBreakdown } from '../../src/pricing/breakdown.ts';
import { configuredPrice, modelPrice } from '../../src/pricing/model-price.ts';
import { parseConfigText } from '../../src/config/load.ts';
import { checkConfig } from '../../src/config/check.ts';
import { modelPrices } from '../../src/admin/prices-command.ts';
import { decodeChatReply } from '../../src/dialects/openai-chat/decode-reply.ts';

/** A chat completion served at `tier`, decoded by the hub's reader (a translated route's). */
function decodeOpenAIChatReply(tier: string): Usage {
  const reply = decodeChatReply(
    {
      id: 'c',
      object: 'chat.completion',
      model: 'gpt-5',
      service_tier: tier,
      choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
    },
    undefined,
  );
  return reply.usage;
}

const PRICE = configuredPrice({
  input: 1.25,
  output: 10,
  cache_read: 0.125,
  service_tiers: { flex: 0.5, priority: { input: 2.5, output: 20, cache_read: 0.25 } },
});

function usage(tier?: string): Usage {
  const u: Usage = { inputTokens: 1000, outputTokens: 200, cacheReadTokens: 4000, cacheWriteTokens: 0 };
  if (tier !== undefined) u.serviceTier = tier;
  return u;
}

test('tier names: the standard ones and anything but a short lowercase name mean the standard rates', () => {
  for (const standard of ['default', 'standard', 'auto', 'standard_only', 'on_demand', undefined, null, 3, 'Priority'])
    assert.equal(servedTier(standard), undefined, String(standard));
  assert.equal(servedTier('x'.repeat(33)), undefined);
  assert.equal(servedTier('priority'), 'priority');
  assert.equal(servedTier('flex'), 'flex');
});

test('each tier is charged its own rates, to the nano-dollar; an unpriced tier pays the standard ones', () => {
  const standard = 1000 * 1250 + 200 * 10_000 + 4000 * 125;
  assert.equal(costNanos(usage(), PRICE), standard);
  assert.equal(costNanos(usage('flex'), PRICE), standard / 2);
  assert.equal(costNanos(usage('priority'), PRICE), 1000 * 2500 + 200 * 20_000 + 4000 * 250);
  assert.equal(costNanos(usage('scale'), PRICE), standard);
});

test('the breakdown prices each line at the tier and names it; its lines sum to the cost', () => {
  const lines = costBreakdown(usage('priority'), PRICE);
  assert.deepEqual(
    lines.map((l) => [l.class, l.unit_price_usd, l.service_tier]),
    [
      ['input', 0.0000025, 'priority'],
      ['cache_read', 0.00000025, 'priority'],
      ['output', 0.00002, 'priority'],
    ],
  );
  const json = JSON.parse(breakdownJson(usage('priority'), PRICE)!);
  const sum = json.reduce((a: number, l: { cost_usd: number }) => a + l.cost_usd, 0);
  assert.equal(Math.round(sum * 1e9), costNanos(usage('priority'), PRICE));
  // The standard tier's fast path writes no tier.
  assert.doesNotMatch(breakdownJson(usage(), PRICE)!, /service_tier/);
});

test('Anthropic: usage.service_tier is read; standard leaves the usage as it was', () => {
  const u = emptyUsage();
  readAnthropicUsage({ input_tokens: 10, output_tokens: 2, service_tier: 'priority' }, u);
  assert.equal(u.serviceTier, 'priority');
  const s = emptyUsage();
  readAnthropicUsage({ input_tokens: 10, output_tokens: 2, service_tier: 'standard' }, s);
  assert.deepEqual(s, { inputTokens: 10, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 });
});

test('OpenAI stream: the usage chunk says the tier served', () => {
  const tap = new PassthroughStreamTap({
    dialect: 'openai',
    clientModel: 'm',
    upstreamModel: 'm',
    stripUsageChunk: false,
  });
  tap.push(
    Buffer.from(
      'data: {"id":"c","object":"chat.completion.chunk","model":"m","service_tier":"flex","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6}}\n\ndata: [DONE]\n\n',
    ),
  );
  assert.equal(tap.usage.serviceTier, 'flex');
});

test('OpenAI reply: the top-level service_tier, never a key inside a string', () => {
  assert.equal(stringField('{"id":"x","service_tier":"priority","usage":{}}', 'service_tier'), 'priority');
  assert.equal(stringField('{"id":"x","service_tier" : "flex"}', 'service_tier'), 'flex');
  assert.equal(stringField('{"content":"say \\"service_tier\\": \\"flex\\""}', 'service_tier'), undefined);
  assert.equal(stringField('{"service_tier":null}', 'service_tier'), undefined);
  assert.equal(decodeOpenAIChatReply('priority').serviceTier, 'priority');
  assert.equal(decodeOpenAIChatReply('default').serviceTier, undefined);
});

test('catalogue prices get the tiers providers publish as a share (OpenAI flex and batch: half)', () => {
  const deployments = [{ model: 'gpt-5', provider: { kind: 'openai', baseUrl: 'https://api.openai.com/v1' } }];
  const price = modelPrice(undefined, deployments)!;
  assert.equal(price.input, 1.25);
  assert.equal(price.serviceTiers?.flex?.input, 0.625);
  assert.equal(price.serviceTiers?.flex?.output, 5);
  assert.equal(price.serviceTiers?.batch?.cacheRead, 0.0625);
  assert.equal(price.serviceTiers?.priority, undefined, 'priority rates differ per model: not derived');
});

test('config: service_tiers load, show in modelgate prices, and a per-token tier price is refused', () => {
  const config = parseConfigText(
    `
providers: [{ name: up, kind: openai, base_url: "https://api.openai.com/v1", api_key: x }]
models:
  - name: m
    price: { input: 2, output: 8, service_tiers: { flex: 0.5, priority: { input: 3.5, output: 14 } } }
    deployments: [{ provider: up, model: gpt-4.1 }]
  - name: bad
    price: { input: 2, output: 8, service_tiers: { priority: { input: 0.0000035, output: 14 } } }
    deployments: [{ provider: up, model: gpt-4.1 }]
`,
    { source: 'test', env: {} },
  );
  const rows = modelPrices(config.models);
  assert.deepEqual(rows[0].service_tiers.flex.input, 1);
  assert.equal(rows[0].service_tiers.priority.output, 14);
  const findings = checkConfig(config).filter((f) => f.fatal === true);
  assert.ok(
    findings.some((f) => f.path.includes('service_tiers.priority')),
    JSON.stringify(findings),
  );
  assert.throws(
    () =>
      parseConfigText(
        `
providers: [{ name: up, kind: openai, base_url: "https://api.openai.com/v1", api_key: x }]
models: [{ name: m, price: { input: 2, output: 8, service_tiers: { Fast: 2 } }, deployments: [{ provider: up, model: x }] }]
`,
        { source: 'test', env: {} },
      ),
    /service_tiers\.Fast/,
  );
});

test('a reservation for a request that names a priced tier uses its rates; an unpriced or absent tier the standard ones', async () => {
  const { reservationNanos } = await import('../../src/core/budget.ts');
  const { serviceTierOf } = await import('../../src/admission/sizing.ts');
  const sizes = { promptTokens: 1000, maxTokens: 1000, cacheWrite: 'none' as const };
  const standard = reservationNanos(sizes, PRICE);
  assert.equal(standard, 1000 * 1250 + 1000 * 10_000);
  assert.equal(reservationNanos({ ...sizes, serviceTier: 'flex' }, PRICE), standard / 2);
  assert.equal(reservationNanos({ ...sizes, serviceTier: 'priority' }, PRICE), standard * 2);
  assert.equal(reservationNanos({ ...sizes, serviceTier: 'scale' }, PRICE), standard);
  const model = { price: PRICE } as Parameters<typeof serviceTierOf>[0];
  assert.equal(serviceTierOf(model, { service_tier: 'flex' }), 'flex');
  assert.equal(serviceTierOf(model, { service_tier: 'auto' }), undefined);
  assert.equal(serviceTierOf(model, { service_tier: 'toString' }), undefined, 'no inherited property is a tier');
  assert.equal(serviceTierOf(model, {}), undefined);
  assert.equal(
    serviceTierOf({ price: null } as Parameters<typeof serviceTierOf>[0], { service_tier: 'flex' }),
    undefined,
  );
});

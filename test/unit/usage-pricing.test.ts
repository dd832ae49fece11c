// Literal usage blocks from each provider, normalised by their dialect's reader and priced from the
// catalogue, against the provider's published rates worked out by hand, to the nano-dollar.
import { specOfKind } from '../../src/registry.ts';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { costNanos } from '../../src/core/budget.ts';
import type { Price } from '../../src/core/config-types.ts';
import { billableUsage, emptyUsage, type Usage } from '../../src/core/usage.ts';
import { readAnthropicUsage } from '../../src/dialects/anthropic-messages/usage.ts';
import { usageFromGemini } from '../../src/dialects/gemini/usage.ts';
import { usageFromOpenAi } from '../../src/dialects/openai-chat/usage.ts';
import { readResponsesToolCalls, usageFromResponses } from '../../src/dialects/openai-responses/usage.ts';
import { extractUsage } from '../../src/dialects/json-text.ts';
import { breakdownJson, costBreakdown, usdText } from '../../src/pricing/breakdown.ts';
import { cataloguePrice } from '../../src/pricing/catalogue.ts';
import { configuredPrice } from '../../src/pricing/model-price.ts';
import { parseConfigText } from '../../src/config/load.ts';
import { priceRequest, RequestState } from '../../src/accounting/record.ts';
import { modelPrices } from '../../src/admin/prices-command.ts';

function anthropic(raw: unknown): Usage {
  const u = emptyUsage();
  assert.ok(readAnthropicUsage(raw, u));
  return u;
}

function catalogue(kind: string, model: string): Price {
  const url = {
    openai: 'https://api.openai.com/v1',
    anthropic: 'https://api.anthropic.com',
    gemini: 'https://generativelanguage.googleapis.com',
  }[kind]!;
  const found = cataloguePrice(specOfKind(kind)?.priceCatalogue, url, model);
  assert.ok(found, `${model} is in the catalogue`);
  return found.price;
}

interface Case {
  name: string;
  usage: () => Usage;
  price: () => Price;
  /** The provider's bill in nano-USD, from its published rates: rate ($/M) × 1000 × tokens. */
  nanos: number;
  /** Classes the breakdown lists, with their counts. */
  lines?: Record<string, number>;
}

const CASES: Case[] = [
  {
    name: 'OpenAI chat, gpt-5: cached tokens inside prompt_tokens, reasoning inside completion_tokens (billed once)',
    usage: () =>
      usageFromOpenAi({
        prompt_tokens: 2006,
        completion_tokens: 300,
        total_tokens: 2306,
        prompt_tokens_details: { cached_tokens: 1920, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 192, audio_tokens: 0, accepted_prediction_tokens: 0 },
      })!,
    price: () => catalogue('openai', 'gpt-5'),
    nanos: 86 * 1250 + 1920 * 125 + 300 * 10_000,
    lines: { input: 86, cache_read: 1920, output: 108, reasoning: 192 },
  },
  {
    name: 'OpenAI Responses, gpt-5: input_tokens include cached, output_tokens include reasoning',
    usage: () =>
      usageFromResponses({
        input_tokens: 5000,
        input_tokens_details: { cached_tokens: 4096 },
        output_tokens: 1200,
        output_tokens_details: { reasoning_tokens: 1024 },
        total_tokens: 6200,
      })!,
    price: () => catalogue('openai', 'gpt-5'),
    nanos: 904 * 1250 + 4096 * 125 + 1200 * 10_000,
  },
  {
    name: 'Anthropic, claude-sonnet-4-5: input excludes cache; 5 m and 1 h writes; reads; web searches',
    usage: () =>
      anthropic({
        input_tokens: 50,
        cache_creation_input_tokens: 3000,
        cache_read_input_tokens: 10_000,
        cache_creation: { ephemeral_5m_input_tokens: 1000, ephemeral_1h_input_tokens: 2000 },
        output_tokens: 500,
        server_tool_use: { web_search_requests: 3 },
        service_tier: 'standard',
      }),
    price: () => catalogue('anthropic', 'claude-sonnet-4-5'),
    // $10 per 1,000 searches: 3 are 0.03 USD.
    nanos: 50 * 3000 + 10_000 * 300 + 1000 * 3750 + 2000 * 6000 + 500 * 15_000 + 30_000_000,
    lines: { input: 50, cache_read: 10_000, cache_write_5m: 1000, cache_write_1h: 2000, output: 500, web_search: 3 },
  },
  {
    name: 'Anthropic message_delta: later cumulative usage keeps the message_start counts it lacks',
    usage: () => {
      const u = anthropic({ input_tokens: 20, cache_read_input_tokens: 4000, output_tokens: 1 });
      assert.ok(readAnthropicUsage({ output_tokens: 250, server_tool_use: { web_search_requests: 1 } }, u));
      return u;
    },
    price: () => catalogue('anthropic', 'claude-sonnet-4-5'),
    nanos: 20 * 3000 + 4000 * 300 + 250 * 15_000 + 10_000_000,
  },
  {
    name: 'Gemini 2.5 pro: promptTokenCount includes cached content; thoughts are output beside candidates',
    usage: () =>
      usageFromGemini({
        promptTokenCount: 12_000,
        cachedContentTokenCount: 8000,
        candidatesTokenCount: 400,
        thoughtsTokenCount: 600,
        totalTokenCount: 13_000,
      })!,
    price: () => catalogue('gemini', 'gemini-2.5-pro'),
    nanos: 4000 * 1250 + 8000 * 125 + 1000 * 10_000,
    lines: { input: 4000, cache_read: 8000, output: 400, reasoning: 600 },
  },
  {
    name: 'Gemini 2.5 pro above 200k prompt tokens: every token at the long-context rates',
    usage: () => usageFromGemini({ promptTokenCount: 250_000, candidatesTokenCount: 1000, totalTokenCount: 251_000 })!,
    price: () => catalogue('gemini', 'gemini-2.5-pro'),
    nanos: 250_000 * 2500 + 1000 * 15_000,
  },
  {
    name: 'Gemini 2.5 flash: audio priced apart, cached audio out of the prompt audio',
    usage: () =>
      usageFromGemini({
        promptTokenCount: 1000,
        cachedContentTokenCount: 400,
        promptTokensDetails: [
          { modality: 'TEXT', tokenCount: 600 },
          { modality: 'AUDIO', tokenCount: 400 },
        ],
        cacheTokensDetails: [
          { modality: 'AUDIO', tokenCount: 300 },
          { modality: 'TEXT', tokenCount: 100 },
        ],
        candidatesTokenCount: 100,
        totalTokenCount: 1100,
      })!,
    price: () => catalogue('gemini', 'gemini-2.5-flash'),
    nanos: 500 * 300 + 100 * 1000 + 100 * 30 + 300 * 100 + 100 * 2500,
    lines: { input: 500, input_audio: 100, cache_read: 100, cache_read_audio: 300, output: 100 },
  },
  {
    name: 'OpenAI Responses, gpt-5 with web search: each web_search_call output item is a call charged beside the tokens',
    usage: () => {
      const response = {
        output: [
          { type: 'web_search_call', id: 'ws_1', status: 'completed' },
          { type: 'web_search_call', id: 'ws_2', status: 'completed' },
          { type: 'message', content: [{ type: 'output_text', text: 'a web_search_call is…' }] },
        ],
        usage: { input_tokens: 1000, output_tokens: 100, input_tokens_details: { cached_tokens: 0 } },
      };
      const u = usageFromResponses(response.usage)!;
      assert.ok(readResponsesToolCalls(response, u));
      // The pass-through body, read from its text, comes to the same.
      assert.deepEqual(extractUsage(JSON.stringify(response), 'responses'), u);
      return u;
    },
    price: () => catalogue('openai', 'gpt-5'),
    // $10 per 1,000 calls.
    nanos: 1000 * 1250 + 100 * 10_000 + 2 * 10_000_000,
    lines: { input: 1000, output: 100, web_search: 2 },
  },
  // The peers' billing bugs, replayed.
  {
    name: 'negative input after cache hits: cached_tokens above prompt_tokens bills no negative input',
    usage: () =>
      usageFromOpenAi({ prompt_tokens: 100, completion_tokens: 10, prompt_tokens_details: { cached_tokens: 150 } })!,
    price: () => catalogue('openai', 'gpt-5'),
    nanos: 150 * 125 + 10 * 10_000,
  },
  {
    name: 'negative input after cache hits: an Anthropic block is not reduced by its cache reads a second time',
    usage: () => anthropic({ input_tokens: 5, cache_read_input_tokens: 10_000, output_tokens: 10 }),
    price: () => catalogue('anthropic', 'claude-sonnet-4-5'),
    nanos: 5 * 3000 + 10_000 * 300 + 10 * 15_000,
  },
  {
    name: 'cache writes priced 0: Anthropic cache_creation_input_tokens are charged at the write rate',
    usage: () => anthropic({ input_tokens: 10, cache_creation_input_tokens: 2000, output_tokens: 1 }),
    price: () => catalogue('anthropic', 'claude-sonnet-4-5'),
    nanos: 10 * 3000 + 2000 * 3750 + 15_000,
  },
  {
    name: 'cache writes split only by cache_creation (no total) are still charged',
    usage: () =>
      anthropic({
        input_tokens: 0,
        cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 100 },
      }),
    price: () => catalogue('anthropic', 'claude-sonnet-4-5'),
    nanos: 100 * 3750 + 100 * 6000,
  },
  {
    name: '1 h write priced as 5 m: a configured price without cache_write_1h charges 2× input, not the 5 m rate',
    usage: () =>
      anthropic({
        input_tokens: 0,
        cache_creation_input_tokens: 1000,
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 1000 },
      }),
    price: () => configuredPrice({ input: 3, output: 15, cache_write: 3.75 }),
    nanos: 1000 * 6000,
  },
  {
    name: 'image tokens billed twice inside cache hits: image counts are parts of the prompt, cached ones apart',
    usage: () =>
      usageFromResponses({
        input_tokens: 1000,
        input_tokens_details: {
          cached_tokens: 600,
          text_tokens: 200,
          image_tokens: 800,
          cached_tokens_details: { text_tokens: 100, image_tokens: 500 },
        },
        output_tokens: 0,
      })!,
    price: () => catalogue('openai', 'gpt-image-1'),
    nanos: 100 * 5000 + 300 * 10_000 + 100 * 1250 + 500 * 2500,
    lines: { input: 100, input_image: 300, cache_read: 100, cache_read_image: 500 },
  },
];

for (const c of CASES)
  test(c.name, () => {
    const usage = billableUsage(c.usage());
    const price = c.price();
    assert.equal(costNanos(usage, price), c.nanos);
    const lines = costBreakdown(usage, price);
    const sum = lines.reduce((s, l) => s + l.cost_usd, 0);
    assert.equal(Math.round(sum * 1e9), c.nanos, 'the breakdown adds up to the cost');
    if (c.lines !== undefined)
      assert.deepEqual(Object.fromEntries(lines.map((l) => [l.class, l.tokens ?? l.units])), c.lines);
  });

test('the catalogue carries the published rates the gateway is checked against', () => {
  const sonnet = catalogue('anthropic', 'claude-sonnet-4-5-20250929');
  assert.deepEqual(
    [sonnet.input, sonnet.output, sonnet.cacheWrite, sonnet.cacheWrite1h, sonnet.cacheRead, sonnet.units?.web_search],
    [3, 15, 3.75, 6, 0.3, 0.01],
  );
  const gpt5 = catalogue('openai', 'gpt-5');
  assert.deepEqual([gpt5.input, gpt5.cacheRead, gpt5.output], [1.25, 0.125, 10]);
  // OpenAI charges no cache writes: the rate is plain input, never a made-up 1.25×.
  assert.equal(gpt5.cacheWrite, 1.25);
  assert.equal(cataloguePrice('openai', 'http://127.0.0.1:1/v1', 'no-such-model-anywhere'), null);
  assert.equal(cataloguePrice(specOfKind('mock')?.priceCatalogue, 'http://mock.invalid', 'gpt-5'), null);
});

test('usage never bills a negative, fractional or absurd count, nor a part larger than its class', () => {
  const u = billableUsage({
    inputTokens: -5,
    outputTokens: 10.4,
    cacheReadTokens: Number.NaN,
    cacheWriteTokens: 100,
    cacheWrite1hTokens: 500,
    reasoningTokens: -1,
    units: { web_search: -2, web_fetch: 1 },
  });
  assert.deepEqual(u, {
    inputTokens: 0,
    outputTokens: 10,
    cacheReadTokens: 0,
    cacheWriteTokens: 100,
    cacheWrite1hTokens: 100,
    units: { web_fetch: 1 },
  });
});

test('the stored breakdown of plain usage reads back as the lines, and x-modelgate-cost text is exact', () => {
  const prices = [
    catalogue('anthropic', 'claude-sonnet-4-5'),
    catalogue('openai', 'gpt-4o-mini'),
    configuredPrice({ input: 0.15, output: 0.6, cache_read: 0.075 }),
    configuredPrice({ input: 1, output: 2, tiers: [{ above: 1000, input: 2, output: 4 }] }),
  ];
  let seed = 7;
  const next = (max: number): number => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed % max;
  };
  for (let i = 0; i < 400; i++) {
    const usage: Usage = {
      inputTokens: next(3) === 0 ? 0 : next(300_000),
      outputTokens: next(5000),
      cacheReadTokens: next(2) === 0 ? 0 : next(50_000),
      cacheWriteTokens: next(3) === 0 ? next(4000) : 0,
    };
    for (const price of prices) {
      const json = breakdownJson(usage, price);
      const lines = costBreakdown(usage, price);
      assert.deepEqual(json === null ? [] : JSON.parse(json), lines);
    }
  }
  assert.equal(usdText(0), '0');
  assert.equal(usdText(1), '0.000000001');
  assert.equal(usdText(3_347_500), '0.0033475');
  assert.equal(usdText(12_000_000_000), '12');
  assert.equal(usdText(1_234_567_890_123), '1234.567890123');
});

test('a model served by deployments the catalogue prices differently charges what the answering one costs', () => {
  const config = parseConfigText(
    `providers:
  - { name: an, kind: anthropic, base_url: "https://api.anthropic.com", api_key: k }
  - { name: oa, kind: openai, base_url: "https://api.openai.com/v1", api_key: k }
models:
  - { name: mixed, deployments: [ { provider: an, model: claude-sonnet-4-5 }, { provider: oa, model: gpt-5 } ] }
  - { name: fixed, price: { input: 1, output: 2 }, deployments: [ { provider: oa, model: gpt-5 } ] }
`,
    { source: 'test', env: {} },
  );
  const [mixed, fixed] = config.models;
  assert.equal(mixed.price?.input, 3, 'the model: its first deployment the catalogue knows');
  assert.equal(mixed.deployments[1].price?.input, 1.25);
  assert.equal(fixed.deployments[0].price, undefined, 'a price: block holds for every deployment');
  const catalog = { get: (name: string) => config.models.find((m) => m.name === name) };
  const state = new RequestState({ requestId: 'req_1', dialect: 'openai', endpoint: '/v1/chat/completions' });
  state.model = 'mixed';
  state.usage = { inputTokens: 1000, outputTokens: 100, cacheReadTokens: 0, cacheWriteTokens: 0 };
  state.price = mixed.deployments[1].price;
  assert.equal(priceRequest({ catalog } as never, state), 1000 * 1250 + 100 * 10_000);
  assert.deepEqual(
    modelPrices(config.models).map((r) => [r.model, r.source, r.per_million_tokens.input]),
    [
      ['mixed', 'catalogue', 3],
      ['mixed (mixed#1)', 'catalogue', 1.25],
      ['fixed', 'config', 1],
    ],
  );
});

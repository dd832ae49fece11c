// A configured model's price: its `price:` block when it has one, else the catalogue's for the first of
// its deployments the catalogue knows (by the upstream model id and provider). Decided once, at load.
import { specOfKind } from '../registry.ts';
import type { Price, PriceTier, RateField, Rates } from '../core/config-types.ts';
import { cataloguePrice } from './catalogue.ts';

/** A long-context tier in a `price:` block: the rates of a prompt above `above` tokens. */
export interface TierBlock {
  above: number;
  input: number;
  output: number;
  cache_read?: number;
  cache_write?: number;
  cache_write_1h?: number;
}

/** The YAML `price:` block (snake_case, USD per million tokens; units USD each). */
export interface PriceBlock {
  input: number;
  output: number;
  cache_read?: number;
  cache_write?: number;
  cache_write_1h?: number;
  reasoning?: number;
  input_audio?: number;
  input_image?: number;
  cache_read_audio?: number;
  cache_read_image?: number;
  output_audio?: number;
  output_image?: number;
  units?: Record<string, number>;
  tiers?: Array<TierBlock>;
  /** A tier's own rates, or a factor on every standard rate. */
  service_tiers?: Record<string, number | RateBlock>;
}

type RateBlock = Omit<PriceBlock, 'units' | 'tiers' | 'service_tiers'>;

const OPTIONAL_RATES: ReadonlyArray<readonly [RateField, keyof RateBlock]> = [
  ['cacheWrite1h', 'cache_write_1h'],
  ['reasoning', 'reasoning'],
  ['inputAudio', 'input_audio'],
  ['inputImage', 'input_image'],
  ['cacheReadAudio', 'cache_read_audio'],
  ['cacheReadImage', 'cache_read_image'],
  ['outputAudio', 'output_audio'],
  ['outputImage', 'output_image'],
];

function ratesOf(b: RateBlock): Rates {
  // Without their own rate, cache reads cost a tenth of input and writes 1.25× (2× for an hour), as at
  // the providers that charge for them; a 1 h write never defaults to the 5 m rate.
  const rates: Rates = {
    input: b.input,
    output: b.output,
    cacheRead: b.cache_read ?? b.input * 0.1,
    cacheWrite: b.cache_write ?? b.input * 1.25,
  };
  for (const [field, key] of OPTIONAL_RATES) {
    const v = b[key];
    if (typeof v === 'number') rates[field] = v;
  }
  rates.cacheWrite1h ??= b.input * 2;
  return rates;
}

/** The price a `price:` block sets (a per-token price in it stops the start: config/check.ts). */
export function configuredPrice(block: PriceBlock): Price {
  const price: Price = { ...ratesOf(block), source: 'config' };
  if (block.units !== undefined && Object.keys(block.units).length > 0) price.units = { ...block.units };
  if (block.tiers !== undefined && block.tiers.length > 0) {
    const tiers: PriceTier[] = block.tiers.map((t) => ({ above: t.above, rates: ratesOf(t) }));
    tiers.sort((a, b) => a.above - b.above);
    price.tiers = tiers;
  }
  if (block.service_tiers !== undefined) {
    const byTier: Record<string, Price> = {};
    for (const [tier, set] of Object.entries(block.service_tiers))
      byTier[tier] = typeof set === 'number' ? scaledPrice(price, set) : { ...ratesOf(set), source: 'config' };
    price.serviceTiers = byTier;
  }
  return price;
}

const SCALED_RATES: readonly RateField[] = [
  'input',
  'output',
  'cacheRead',
  'cacheWrite',
  ...OPTIONAL_RATES.map(([f]) => f),
];

function scaledRates(r: Rates, factor: number): Rates {
  const out: Rates = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  for (const f of SCALED_RATES) {
    const v = r[f];
    // Twelve significant digits: 2.5 × 0.5 is 1.25, not a float's neighbour of it.
    if (v !== undefined) out[f] = Number((v * factor).toPrecision(12));
  }
  return out;
}

/** A price with every token rate (long-context tiers too) times `factor`; per-unit charges do not scale. */
export function scaledPrice(p: Price, factor: number): Price {
  const out: Price = { ...scaledRates(p, factor), source: p.source };
  if (p.tiers !== undefined) out.tiers = p.tiers.map((t) => ({ above: t.above, rates: scaledRates(t.rates, factor) }));
  return out;
}

/**
 * The tiers a catalogue price gets without a `price:` block: the discounts providers publish as a fixed
 * share of the standard rates (OpenAI's flex processing and Batch API, Anthropic's Message Batches: half).
 * Priority rates differ per model and are not derived: set them in `price.service_tiers`.
 */
const CATALOGUE_TIER_FACTORS: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  openai: { flex: 0.5, batch: 0.5 },
  azure: { batch: 0.5 },
  anthropic: { batch: 0.5 },
};

/** The deployment facts the catalogue is searched by; `price` is set to its own catalogue price. */
export interface PricedDeployment {
  model: string;
  provider: { kind: string; baseUrl: string };
  price?: Price;
}

/**
 * The model's price: the configured block, else the catalogue's for its first deployment the catalogue
 * knows, else null (the model costs nothing and USD budgets do not limit it). Without a block, each
 * deployment the catalogue knows also gets its own price (`price`): a request is charged what the
 * deployment that answered it costs, as its provider bills it.
 */
export function modelPrice(block: PriceBlock | undefined, deployments: readonly PricedDeployment[]): Price | null {
  if (block !== undefined) return configuredPrice(block);
  let first: Price | null = null;
  for (const d of deployments) {
    const found = cataloguePrice(specOfKind(d.provider.kind)?.priceCatalogue, d.provider.baseUrl, d.model);
    if (found === null) continue;
    const factors = CATALOGUE_TIER_FACTORS[found.provider];
    if (factors !== undefined && found.price.serviceTiers === undefined) {
      const byTier: Record<string, Price> = {};
      for (const [tier, factor] of Object.entries(factors)) byTier[tier] = scaledPrice(found.price, factor);
      found.price.serviceTiers = byTier;
    }
    d.price = found.price;
    first ??= found.price;
  }
  return first;
}

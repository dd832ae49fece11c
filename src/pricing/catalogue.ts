// Prices from the maintained catalogue (@pydantic/genai-prices): each provider's published rates per token
// class, long-context tiers and per-call charges, looked up once per model when the config loads.
import { createRequire } from 'node:module';
import type * as GenaiPrices from '@pydantic/genai-prices';
import type { ModelPrice, Provider, TieredPrices } from '@pydantic/genai-prices';
import type { Price, PriceTier, RateField, Rates } from '../core/config-types.ts';

const require = createRequire(import.meta.url);
let lib: typeof GenaiPrices | null = null;

/**
 * The catalogue, loaded on first use only (synchronously, as config loading is): a config whose every
 * model has a `price:` block never pays for it (≈ 20 MB of data and a few hundred ms).
 */
function catalogue(): typeof GenaiPrices {
  lib ??= require('@pydantic/genai-prices') as typeof GenaiPrices;
  return lib;
}

/** Lets the catalogue's data be collected once every model's price has been read from it. */
export function releaseCatalogue(): void {
  if (lib === null) return;
  lib = null;
  delete require.cache[require.resolve('@pydantic/genai-prices')];
}

/** The catalogue's per-million keys, by the rate they fill. */
const TOKEN_KEYS: ReadonlyArray<readonly [RateField, string]> = [
  ['input', 'input_mtok'],
  ['output', 'output_mtok'],
  ['cacheRead', 'cache_read_mtok'],
  ['cacheWrite', 'cache_write_mtok'],
  ['cacheWrite1h', 'cache_write_1h_mtok'],
  ['reasoning', 'output_reasoning_mtok'],
  ['inputAudio', 'input_audio_mtok'],
  ['inputImage', 'input_image_mtok'],
  ['cacheReadAudio', 'cache_audio_read_mtok'],
  ['cacheReadImage', 'cache_image_read_mtok'],
  ['outputAudio', 'output_audio_mtok'],
  ['outputImage', 'output_image_mtok'],
];

/** The catalogue's per-thousand-calls keys, by the unit name usage carries (usage.ts `units`). */
const UNIT_KEYS: ReadonlyArray<readonly [string, string]> = [
  ['web_search', 'web_searches_kcount'],
  ['file_search', 'storage_searches_kcount'],
  ['code_execution', 'code_executions_kcount'],
  ['request', 'requests_kcount'],
];

/** A catalogue entry: the price and the catalogue's own name for the model and provider. */
export interface CatalogueEntry {
  price: Price;
  provider: string;
  model: string;
}

/**
 * The catalogue's price for `model` as `byKind` (the provider kind's catalogue id, ProviderSpec.priceCatalogue)
 * serves it at `baseUrl` (the URL picks the provider when the
 * catalogue knows it: OpenAI-compatible hosts price differently), or null when it has none. Rates a
 * provider does not publish cost what plain input costs: cache reads and writes where it has no cache.
 */
export function cataloguePrice(
  byKind: string | undefined,
  baseUrl: string,
  model: string,
  at = new Date(),
): CatalogueEntry | null {
  if (byKind === undefined) return null;
  const { calcPrice, findProvider } = catalogue();
  let provider: Provider | undefined = findProvider({ providerApiUrl: baseUrl });
  if (provider === undefined || !knows(provider, model)) provider = findProvider({ providerId: byKind });
  if (provider === undefined) return null;
  const found = calcPrice({ input_tokens: 0 }, model, { provider, timestamp: at });
  if (found === null) return null;
  const price = priceOf(found.model_price);
  if (price === null) return null;
  return { price, provider: found.provider.id, model: found.model.id };
}

function knows(provider: Provider, model: string): boolean {
  return catalogue().calcPrice({ input_tokens: 0 }, model, { provider }) !== null;
}

function isTiered(v: unknown): v is TieredPrices {
  return typeof v === 'object' && v !== null && 'base' in v && 'tiers' in v;
}

function priceOf(mp: ModelPrice): Price | null {
  const base = ratesAt(mp, 0);
  if (base === null) return null;
  const price: Price = { ...base, source: 'catalogue' };
  const starts = new Set<number>();
  for (const v of Object.values(mp)) if (isTiered(v)) for (const t of v.tiers) starts.add(t.start);
  if (starts.size > 0) {
    const tiers: PriceTier[] = [];
    for (const start of [...starts].sort((a, b) => a - b)) tiers.push({ above: start, rates: ratesAt(mp, start)! });
    price.tiers = tiers;
  }
  for (const [unit, key] of UNIT_KEYS) {
    const perThousand = mp[key];
    if (typeof perThousand === 'number' && perThousand > 0) (price.units ??= {})[unit] = perThousand / 1000;
  }
  return price;
}

/** The rates for a prompt above `above` tokens (0: the base rates); null when there is no input rate. */
function ratesAt(mp: ModelPrice, above: number): Rates | null {
  const at = (key: string): number | undefined => {
    const v = mp[key];
    if (typeof v === 'number') return v;
    if (!isTiered(v)) return undefined;
    let p = v.base;
    for (const t of v.tiers) if (above >= t.start) p = t.price;
    return p;
  };
  const input = at('input_mtok');
  if (input === undefined) return null;
  const rates: Rates = { input, output: at('output_mtok') ?? 0, cacheRead: input, cacheWrite: input };
  for (const [field, key] of TOKEN_KEYS) {
    const v = at(key);
    if (v !== undefined) rates[field] = v;
  }
  return rates;
}

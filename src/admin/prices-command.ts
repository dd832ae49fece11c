// `modelgate prices`: what each configured model is charged, USD per million tokens of each class (per
// unit for units), and where the numbers came from: the catalogue or the model's `price:` block.
import { parseArgs } from 'node:util';
import type { ModelConfig, Price, RateField, Rates } from '../core/config-types.ts';
import { table } from './usage-command.ts';

/** The classes as the breakdown names them (pricing/breakdown.ts), and the rate of each. */
const CLASSES: ReadonlyArray<readonly [string, (r: Rates) => number]> = [
  ['input', (r) => r.input],
  ['cache_read', (r) => r.cacheRead],
  ['cache_write_5m', (r) => r.cacheWrite],
  ['cache_write_1h', (r) => r.cacheWrite1h ?? r.cacheWrite],
  ['output', (r) => r.output],
  ['reasoning', (r) => r.reasoning ?? r.output],
];

/** Media classes, shown only where their rate is not their parent class's. */
const MEDIA: ReadonlyArray<readonly [string, RateField]> = [
  ['input_audio', 'inputAudio'],
  ['input_image', 'inputImage'],
  ['cache_read_audio', 'cacheReadAudio'],
  ['cache_read_image', 'cacheReadImage'],
  ['output_audio', 'outputAudio'],
  ['output_image', 'outputImage'],
];

export interface ModelPrices {
  model: string;
  source: 'catalogue' | 'config' | 'none';
  /** USD per million tokens, by class. */
  per_million_tokens: Record<string, number>;
  /** USD per unit, by unit name. */
  per_unit: Record<string, number>;
  tiers: Array<{ above_prompt_tokens: number; per_million_tokens: Record<string, number> }>;
  /** USD per million tokens of each service tier a request can be served at (priority, flex, batch). */
  service_tiers: Record<string, Record<string, number>>;
}

function perMillion(r: Rates): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, rate] of CLASSES) out[name] = rate(r);
  for (const [name, field] of MEDIA) if (r[field] !== undefined) out[name] = r[field];
  return out;
}

/** One row per model, then one per deployment whose own catalogue price differs from its model's. */
export function modelPrices(models: readonly ModelConfig[]): ModelPrices[] {
  const rows: ModelPrices[] = [];
  for (const m of models) {
    rows.push(pricesRow(m.name, m.price));
    for (const d of m.deployments)
      if (d.price !== undefined && d.price !== m.price) rows.push(pricesRow(`${m.name} (${d.id})`, d.price));
  }
  return rows;
}

function pricesRow(name: string, p: Price | null): ModelPrices {
  if (p === null)
    return { model: name, source: 'none', per_million_tokens: {}, per_unit: {}, tiers: [], service_tiers: {} };
  return {
    model: name,
    source: p.source ?? 'config',
    per_million_tokens: perMillion(p),
    per_unit: { ...p.units },
    tiers: (p.tiers ?? []).map((t) => ({ above_prompt_tokens: t.above, per_million_tokens: perMillion(t.rates) })),
    service_tiers: Object.fromEntries(Object.entries(p.serviceTiers ?? {}).map(([tier, tp]) => [tier, perMillion(tp)])),
  };
}

export function pricesCommand(models: readonly ModelConfig[], args: string[], out: (s: string) => void): void {
  const { values } = parseArgs({
    args,
    options: { config: { type: 'string' }, json: { type: 'boolean' } },
    strict: true,
  });
  const prices = modelPrices(models);
  if (values.json) {
    out(JSON.stringify({ data: prices }));
    return;
  }
  out('USD per million tokens (units: USD each)');
  table(
    prices.map((p) => ({
      model: p.model,
      source: p.source,
      ...Object.fromEntries(CLASSES.map(([c]) => [c, p.per_million_tokens[c] ?? null])),
      other: other(p) || null,
    })),
    out,
    'no models configured',
  );
}

/** The rest of a model's price in one cell: media classes that differ, units, tiers. */
function other(p: ModelPrices): string {
  const parts: string[] = [];
  for (const [c] of MEDIA) if (p.per_million_tokens[c] !== undefined) parts.push(`${c} ${p.per_million_tokens[c]}`);
  for (const [u, v] of Object.entries(p.per_unit)) parts.push(`${u} ${v}/unit`);
  for (const t of p.tiers)
    parts.push(
      `prompt > ${t.above_prompt_tokens}: input ${t.per_million_tokens.input} output ${t.per_million_tokens.output}`,
    );
  for (const [tier, rates] of Object.entries(p.service_tiers))
    parts.push(`${tier}: input ${rates.input} output ${rates.output}`);
  return parts.join('; ');
}

// Mistakes a valid configuration can still hold, each of which would only show later as failed or
// mispriced requests: `modelgate config check` lists them, and a start logs them. An error is a setting
// that cannot work as written; a warning one that is very likely wrong but has legitimate uses.
import type { GatewayConfig, ModelConfig, ProviderConfig, RateField, Rates } from '../core/config-types.ts';
import { providerSpec } from '../registry.ts';

export interface Finding {
  level: 'error' | 'warning';
  /** The setting's key path, as configuration errors name it (`providers[0].base_url`). */
  path: string;
  message: string;
  /** A start refuses to run with it (a per-token price would budget a million times too loose). */
  fatal?: boolean;
}

/**
 * Prices are USD per million tokens. A price per token is a million times smaller: gpt-4o's input,
 * $2.50 per million, is 0.0000025 per token. Under this (a tenth of a cent per million tokens, far below
 * any model's price) a non-zero price is taken for a price per token.
 */
export const PER_TOKEN_PRICE_THRESHOLD = 0.001;

export function checkConfig(config: GatewayConfig): Finding[] {
  const findings: Finding[] = [];
  config.providers.forEach((p, i) => findings.push(...checkBaseUrl(p, `providers[${i}]`)));
  const used = new Set<string>();
  config.models.forEach((m, i) => {
    for (const d of m.deployments) used.add(d.provider.name);
    findings.push(...checkPrice(m, `models[${i}].price`), ...checkServed(m, `models[${i}]`));
  });
  config.providers.forEach((p, i) => {
    if (!used.has(p.name))
      findings.push({
        level: 'warning',
        path: `providers[${i}]`,
        message: `provider "${p.name}" is used by no model's deployments`,
      });
  });
  return findings;
}

function checkBaseUrl(p: ProviderConfig, path: string): Finding[] {
  const findings = providerSpec(p).check?.(p) ?? [];
  return findings.map((f) => ({ level: f.level, path: `${path}.${f.key}`, message: f.message }));
}

/** The rates of a `price:` block by their YAML names (the catalogue's prices are not the operator's to fix). */
const RATE_KEYS: ReadonlyArray<readonly [string, RateField]> = [
  ['input', 'input'],
  ['output', 'output'],
  ['cache_read', 'cacheRead'],
  ['cache_write', 'cacheWrite'],
  ['cache_write_1h', 'cacheWrite1h'],
  ['reasoning', 'reasoning'],
  ['input_audio', 'inputAudio'],
  ['input_image', 'inputImage'],
  ['cache_read_audio', 'cacheReadAudio'],
  ['cache_read_image', 'cacheReadImage'],
  ['output_audio', 'outputAudio'],
  ['output_image', 'outputImage'],
];

function checkPrice(m: ModelConfig, path: string): Finding[] {
  if (m.price === null || m.price.source === 'catalogue') return [];
  const findings = perTokenRates(m.price, path);
  (m.price.tiers ?? []).forEach((t, i) => findings.push(...perTokenRates(t.rates, `${path}.tiers[${i}]`)));
  for (const [tier, p] of Object.entries(m.price.serviceTiers ?? {}))
    findings.push(...perTokenRates(p, `${path}.service_tiers.${tier}`));
  return findings;
}

function perTokenRates(rates: Rates, path: string): Finding[] {
  const perToken = (v: number | undefined): boolean => v !== undefined && v > 0 && v < PER_TOKEN_PRICE_THRESHOLD;
  // The cache and part prices default to shares of the input price: said once, at the input, when that is the mistake.
  const keys = perToken(rates.input) ? RATE_KEYS.slice(0, 2) : RATE_KEYS;
  return keys
    .filter(([, field]) => perToken(rates[field]))
    .map(([key, field]) => {
      const value = rates[field]!;
      return {
        level: 'error',
        fatal: true,
        path: `${path}.${key}`,
        message: `${value} USD looks like a price per token: prices are USD per million tokens (${value} per token is ${+(value * 1e6).toPrecision(6)} per million)`,
      };
    });
}

/** Whether a deployment's provider can answer the model's kind of request. */
function serves(m: ModelConfig, p: ProviderConfig): boolean {
  const spec = providerSpec(p);
  if (m.mode === 'embedding') return spec.embeddingsDialect(p) !== null;
  return spec.generates?.(p) ?? true;
}

function checkServed(m: ModelConfig, path: string): Finding[] {
  const unable = m.deployments.filter((d) => !serves(m, d.provider));
  if (unable.length === 0) return [];
  const what = m.mode === 'embedding' ? 'embeddings' : 'chat';
  const names = unable.map((d) => `${d.provider.name} (kind ${d.provider.kind})`).join(', ');
  if (unable.length === m.deployments.length)
    return [
      {
        level: 'error',
        path: `${path}.deployments`,
        message: `no deployment of "${m.name}" serves ${what}: ${names} cannot, so every request for it fails`,
      },
    ];
  return [
    {
      level: 'warning',
      path: `${path}.deployments`,
      message: `deployments of "${m.name}" on ${names} cannot serve ${what}: its requests routed there are refused`,
    },
  ];
}

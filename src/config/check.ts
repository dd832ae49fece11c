// Mistakes a valid configuration can still hold, each of which would only show later as failed or
// mispriced requests: `modelgate config check` lists them, and a start logs them. An error is a setting
// that cannot work as written; a warning one that is very likely wrong but has legitimate uses.
import type { GatewayConfig, ModelConfig, ProviderConfig, RateField, Rates } from '../core/config-types.ts';

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
  config.providers.forEach((p, i) => findings.push(...checkBaseUrl(p, `providers[${i}].base_url`)));
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
  if (p.kind === 'mock') return [];
  let pathname: string;
  try {
    pathname = new URL(p.baseUrl).pathname.replace(/\/+$/, '');
  } catch {
    return [];
  }
  const versioned = /\/v\d+[a-z0-9]*(\/|$)/i.test(pathname);
  if (p.kind === 'openai' && !versioned)
    return [
      {
        level: 'warning',
        path,
        message: `${p.baseUrl} has no /v1: OpenAI-style URLs include it, as the SDKs' baseURL does (https://api.openai.com/v1); without it most upstreams answer 404 to every request`,
      },
    ];
  if ((p.kind === 'anthropic' || p.kind === 'gemini') && versioned)
    return [
      {
        level: 'error',
        path,
        message: `${p.baseUrl} ends in a version path: kind ${p.kind} takes the API's origin (${p.kind === 'anthropic' ? 'https://api.anthropic.com' : 'https://generativelanguage.googleapis.com'}); the gateway adds ${p.kind === 'anthropic' ? '/v1/messages' : '/v1beta/models/…'} itself, so every request would go to a path that does not exist`,
      },
    ];
  return [];
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
  const apis = p.apis ?? ['chat', 'embeddings'];
  if (m.mode === 'embedding')
    return p.kind === 'mock' || p.kind === 'gemini' || (p.kind === 'openai' && apis.includes('embeddings'));
  return p.kind !== 'openai' || apis.includes('chat') || apis.includes('responses');
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

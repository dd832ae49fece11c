// How admission sizes a request: its prompt estimate (the quick byte bound far from every limit, the
// tokenizer near one) and its worst-case output, priced.
import type { ModelConfig } from '../core/config-types.ts';
import { reservationNanos } from '../core/budget.ts';
import {
  estimateEmbeddingTokens,
  estimatePromptTokens,
  reservationTokens,
  type EstimateOptions,
} from './estimate-tokens.ts';
import type { KeyEntry } from './key-entry.ts';
import { cacheWriteAsked, type CacheWrite } from './cache-request.ts';

/**
 * The cache write to reserve for: looked for in the body only where a write costs more than plain input
 * (Anthropic-style prices); elsewhere the answer cannot change the reservation.
 */
export function cacheWriteOf(model: ModelConfig, body: Record<string, unknown>): CacheWrite {
  const p = model.price;
  if (p === null || (p.cacheWrite <= p.input && (p.cacheWrite1h ?? p.cacheWrite) <= p.input)) return 'none';
  return cacheWriteAsked(body);
}

/**
 * The service tier to reserve at: the tier the body names when the model's price has rates for it (a flex
 * request reserves at flex rates); undefined (standard rates) for every other request.
 */
export function serviceTierOf(model: ModelConfig, body: Record<string, unknown>): string | undefined {
  const tiers = model.price?.serviceTiers;
  if (tiers === undefined) return undefined;
  const tier = body.service_tier;
  return typeof tier === 'string' && Object.hasOwn(tiers, tier) ? tier : undefined;
}

/** How admit sized one request: the prompt estimate, and whether it was the quick byte bound. */
export interface Sizing {
  model: ModelConfig;
  target: string;
  maxTokens: number;
  /** The output limit the request names itself; null when the default was reserved. */
  named: number | null;
  promptTokens: number;
  quick: boolean;
  embedding?: boolean;
  /** The cache write the request asks for: what its prompt may be charged (core/budget.ts reservationNanos). */
  cacheWrite: CacheWrite;
  /** The priced service tier the request names (serviceTierOf), reserved at its rates. */
  serviceTier?: string;
}

export function promptTokensOf(
  body: Record<string, unknown>,
  options: EstimateOptions,
  embedding: boolean | undefined,
): number {
  return embedding === true ? estimateEmbeddingTokens(body.input, options) : estimatePromptTokens(body, options);
}

/** Money and token limits need the prompt's size; RPM and concurrency do not. */
export function needsTokens(entry: KeyEntry): boolean {
  return entry.budgeted || entry.limits.tpm !== null;
}

/** The quick estimate is used only while every limit has this many times the request's size left. */
const QUICK_HEADROOM = 100;

/** True when the key is far from every money and token limit, judged on its last known snapshot. */
export function roomy(entry: KeyEntry, sizes: { nanos: number; tokens: number }): boolean {
  const s = entry.last;
  if (s === null) return false;
  const l = entry.limits;
  if (l.budgetNanos !== null && l.budgetNanos - s.spentNanos - s.reservedNanos < QUICK_HEADROOM * sizes.nanos)
    return false;
  if (l.tokenBudget !== null && l.tokenBudget - s.spentTokens - s.reservedTokens < QUICK_HEADROOM * sizes.tokens)
    return false;
  if (l.tpm !== null && l.tpm - s.tpmUsed < QUICK_HEADROOM * sizes.tokens) return false;
  return true;
}

/** What a request reserves for a prompt of `promptTokens` and its worst-case output. */
export function reservationOf(
  model: ModelConfig,
  promptTokens: number,
  maxTokens: number,
  cacheWrite: CacheWrite,
  serviceTier?: string,
): { nanos: number; tokens: number } {
  const sizes = { promptTokens, maxTokens, cacheWrite, serviceTier };
  return { nanos: reservationNanos(sizes, model.price), tokens: reservationTokens(sizes) };
}

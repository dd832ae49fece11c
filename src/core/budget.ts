// A key's budget arithmetic: what a request costs, in nano-USD integers so that sums of usage rows are
// exact, and the budget period it counts in.
import type { Price, Rates } from './config-types.ts';
import type { BudgetPeriod } from './key-record.ts';
import type { Usage } from './usage.ts';

/** 1 USD = 1e9 nano-USD. A Number holds integers exactly up to ~9.007e15 nanos (~9 million USD). */
export const NANOS_PER_USD = 1_000_000_000;

/**
 * The rates a request pays: a long-context tier's when its prompt (input, cache reads and writes) is
 * above the tier's threshold, as the providers bill it — every token of the request at the tier's rates.
 */
export function ratesFor(price: Price, promptTokens: number, serviceTier?: string): Rates {
  if (serviceTier !== undefined) {
    const tierPrice = price.serviceTiers?.[serviceTier];
    if (tierPrice !== undefined) price = tierPrice;
  }
  const tiers = price.tiers;
  if (tiers === undefined) return price;
  let rates: Rates = price;
  for (let i = 0; i < tiers.length; i++) if (promptTokens > tiers[i].above) rates = tiers[i].rates;
  return rates;
}

/**
 * Price is USD per million tokens, so one token costs `price * 1000` nano-USD. The row is rounded
 * once at the end (not per token class) so that a price like 0.15 $/M never rounds each class up.
 * A part class (usage.ts) is inside its parent's count: it adds only the difference of its rate.
 */
export function costNanos(u: Usage, price: Price | null): number {
  if (price === null) return 0;
  const r = ratesFor(price, u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens, u.serviceTier);
  let perM =
    u.inputTokens * r.input +
    u.outputTokens * r.output +
    u.cacheReadTokens * r.cacheRead +
    u.cacheWriteTokens * r.cacheWrite;
  if (u.cacheWrite1hTokens !== undefined)
    perM += u.cacheWrite1hTokens * ((r.cacheWrite1h ?? r.cacheWrite) - r.cacheWrite);
  if (u.reasoningTokens !== undefined) perM += u.reasoningTokens * ((r.reasoning ?? r.output) - r.output);
  if (u.inputAudioTokens !== undefined) perM += u.inputAudioTokens * ((r.inputAudio ?? r.input) - r.input);
  if (u.inputImageTokens !== undefined) perM += u.inputImageTokens * ((r.inputImage ?? r.input) - r.input);
  if (u.cacheReadAudioTokens !== undefined)
    perM += u.cacheReadAudioTokens * ((r.cacheReadAudio ?? r.cacheRead) - r.cacheRead);
  if (u.cacheReadImageTokens !== undefined)
    perM += u.cacheReadImageTokens * ((r.cacheReadImage ?? r.cacheRead) - r.cacheRead);
  if (u.outputAudioTokens !== undefined) perM += u.outputAudioTokens * ((r.outputAudio ?? r.output) - r.output);
  if (u.outputImageTokens !== undefined) perM += u.outputImageTokens * ((r.outputImage ?? r.output) - r.output);
  let exact = perM * 1000;
  if (u.units !== undefined && price.units !== undefined)
    for (const name in u.units) {
      const each = price.units[name];
      if (each !== undefined) exact += u.units[name] * each * NANOS_PER_USD;
    }
  return Math.round(exact);
}

/**
 * The worst case a request can cost, for the budget reservation: the prompt at the dearest rate it can
 * be charged, at the long-context tier its size reaches, and the full max_tokens as output. `cacheWrite`
 * says what the request asks the provider's cache for: 'none' (the prompt costs at most plain input:
 * cache reads only make it cheaper), '5m' or '1h' (it may all be written); unknown is taken as '5m'.
 * `serviceTier` is the tier the request asks for by name (`flex`, `priority`, …): its rates when the price
 * has them, as the reply that names the tier is charged; otherwise the standard rates.
 */
export function reservationNanos(
  tokens: { promptTokens: number; maxTokens: number; cacheWrite?: 'none' | '5m' | '1h'; serviceTier?: string },
  price: Price | null,
): number {
  if (price === null) return 0;
  const r = ratesFor(price, tokens.promptTokens, tokens.serviceTier);
  const write = tokens.cacheWrite ?? '5m';
  const promptRate =
    write === 'none' ? r.input : Math.max(r.input, write === '1h' ? (r.cacheWrite1h ?? r.cacheWrite) : r.cacheWrite);
  const nanos = Math.ceil(tokens.promptTokens * promptRate * 1000 + tokens.maxTokens * r.output * 1000);
  // Past 2^53 nano-USD (≈ 9 million USD) the amount is no longer an exact integer; no budget is that
  // large, so the cap keeps such a request a budget refusal rather than an amount the stores reject.
  return Math.min(nanos, Number.MAX_SAFE_INTEGER);
}

export function usdToNanos(usd: number): number {
  return Math.round(usd * NANOS_PER_USD);
}

export function nanosToUsd(nanos: number): number {
  return nanos / NANOS_PER_USD;
}

/** Quota units as new-api shows them (DESIGN.md: default 500,000 per USD), rounded to whole units. */
export function nanosToQuota(nanos: number, quotaPerUsd: number): number {
  return Math.round((nanos * quotaPerUsd) / NANOS_PER_USD);
}

/** Budget periods start at UTC midnight (daily), Monday 00:00 UTC (weekly) or the 1st 00:00 UTC (monthly). */
export function periodStart(period: BudgetPeriod | null, nowMs: number): number {
  if (period === null) return 0;
  const d = new Date(nowMs);
  if (period === 'monthly') return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  const day = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  if (period === 'daily') return day;
  const sinceMonday = (d.getUTCDay() + 6) % 7;
  return day - sinceMonday * 86_400_000;
}

export function nextPeriodStart(period: BudgetPeriod | null, nowMs: number): number | null {
  if (period === null) return null;
  const start = periodStart(period, nowMs);
  const d = new Date(start);
  if (period === 'monthly') return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  return start + (period === 'daily' ? 86_400_000 : 7 * 86_400_000);
}

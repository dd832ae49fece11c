// A key's budget arithmetic: what a request costs, in nano-USD integers so that sums of usage rows are
// exact, and the budget period it counts in.
import type { Price } from './config-types.ts';
import type { BudgetPeriod } from './key-record.ts';
import type { Usage } from './usage.ts';

/** 1 USD = 1e9 nano-USD. A Number holds integers exactly up to ~9.007e15 nanos (~9 million USD). */
export const NANOS_PER_USD = 1_000_000_000;

/**
 * Price is USD per million tokens, so one token costs `price * 1000` nano-USD. The row is rounded
 * once at the end (not per token class) so that a price like 0.15 $/M never rounds each class up.
 */
export function costNanos(usage: Usage, price: Price | null): number {
  if (price === null) return 0;
  const exact =
    usage.inputTokens * price.input * 1000 +
    usage.outputTokens * price.output * 1000 +
    usage.cacheReadTokens * price.cacheRead * 1000 +
    usage.cacheWriteTokens * price.cacheWrite * 1000;
  return Math.round(exact);
}

/**
 * The worst case a request can cost, for the budget reservation: every prompt token priced at the
 * dearest prompt rate (a cache write costs more than plain input at Anthropic) and the full
 * max_tokens as output.
 */
export function reservationNanos(tokens: { promptTokens: number; maxTokens: number }, price: Price | null): number {
  if (price === null) return 0;
  const promptRate = Math.max(price.input, price.cacheRead, price.cacheWrite);
  const nanos = Math.ceil(tokens.promptTokens * promptRate * 1000 + tokens.maxTokens * price.output * 1000);
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

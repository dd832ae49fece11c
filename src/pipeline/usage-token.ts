// GET /api/usage/token: the caller's own quota in the new-api shape (DESIGN.md "Listing and self-check").
import type { KeyRecord } from '../core/key-record.ts';
import { nanosToQuota } from '../accounting/price.ts';
import { nextPeriodStart, periodStart } from '../accounting/period.ts';
import type { Gateway } from './gateway.ts';

export async function usageTokenBody(gw: Gateway, key: KeyRecord, now: number): Promise<string> {
  const start = periodStart(key.budgetPeriod, now);
  const spent = await gw.store.keySpend(key.id, start);
  const q = (nanos: number): number => nanosToQuota(nanos, gw.config.quotaPerUsd);
  const unlimited = key.budgetUsd === null;
  const granted = unlimited ? 0 : Math.round(key.budgetUsd! * gw.config.quotaPerUsd);
  const used = q(spent.nanos);
  const modelLimits: Record<string, boolean> = {};
  if (key.models) for (const m of gw.catalog.listFor(key)) modelLimits[m.name] = true;
  const next = nextPeriodStart(key.budgetPeriod, now);
  return JSON.stringify({
    code: true,
    message: 'ok',
    data: {
      object: 'token_usage',
      name: key.name,
      total_granted: granted,
      total_used: used,
      total_available: unlimited ? 0 : Math.max(0, granted - used),
      unlimited_quota: unlimited,
      model_limits: modelLimits,
      model_limits_enabled: key.models !== null,
      expires_at: key.expiresAt === null ? 0 : Math.floor(key.expiresAt / 1000),
      budget_usd: key.budgetUsd,
      spent_usd: spent.nanos / 1e9,
      token_budget: key.tokenBudget,
      tokens_used: spent.tokens,
      budget_period: key.budgetPeriod,
      period_resets_at: next === null ? 0 : Math.floor(next / 1000),
      limits: { rpm: key.rpm, tpm: key.tpm, max_concurrency: key.maxConcurrency },
    },
  });
}

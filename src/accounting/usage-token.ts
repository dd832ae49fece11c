// GET /api/usage/token: the caller's own quota in the new-api shape (DESIGN.md "Listing and self-check"),
// plus the key's limits and the live counters of the admission store under `data`.
import type { KeyRecord } from '../core/key-record.ts';
import { nanosToQuota, nanosToUsd, usdToNanos, nextPeriodStart } from '../core/budget.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { Admission } from '../admission/admission.ts';
import type { Store } from '../store/store.ts';
import type { Logger } from '../observability/logger.ts';
import type { SecretMasker } from '../core/mask-secrets.ts';
import { GatewayError } from '../core/errors.ts';

/** What the self-check reads: the admission store's live counters, the database's totals, the key's models. */
export interface UsageTokenServices {
  admission: Pick<Admission, 'view' | 'teamView'>;
  store: Pick<Store, 'keySpend'>;
  catalog: Catalog;
  config: { quotaPerUsd: number };
  log: Logger;
  masker: SecretMasker;
}

export async function usageTokenBody(gw: UsageTokenServices, key: KeyRecord, now: number): Promise<string> {
  const { limits, snapshot, period } = await gw.admission.view(key, now);
  const { spentNanos, spentTokens } = await spentOf(gw, key.id, period, snapshot);
  const team = await teamUsage(gw, key, now);
  const q = (nanos: number): number => nanosToQuota(nanos, gw.config.quotaPerUsd);
  const unlimited = key.budgetUsd === null;
  const budgetNanos = unlimited ? 0 : usdToNanos(key.budgetUsd!);
  const granted = q(budgetNanos);
  const used = q(spentNanos);
  const modelLimits: Record<string, boolean> = {};
  if (key.models) for (const m of gw.catalog.listFor(key)) modelLimits[m.name] = true;
  const next = nextPeriodStart(key.budgetPeriod, now);
  const leftNanos = Math.max(0, budgetNanos - spentNanos - snapshot.reservedNanos);
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
      spent_usd: nanosToUsd(spentNanos),
      reserved_usd: nanosToUsd(snapshot.reservedNanos),
      left_usd: unlimited ? null : nanosToUsd(leftNanos),
      token_budget: key.tokenBudget,
      tokens_used: spentTokens,
      tokens_reserved: snapshot.reservedTokens,
      tokens_left:
        limits.tokenBudget === null ? null : Math.max(0, limits.tokenBudget - spentTokens - snapshot.reservedTokens),
      budget_period: key.budgetPeriod,
      period_resets_at: next === null ? 0 : Math.floor(next / 1000),
      limits: { rpm: key.rpm, tpm: key.tpm, max_concurrency: key.maxConcurrency },
      window: {
        requests: snapshot.rpmUsed,
        tokens: snapshot.tpmUsed,
        in_flight: snapshot.inFlight,
        resets_in_seconds: snapshot.windowResetSec,
      },
      team,
    },
  });
}

/**
 * What a key or a team (its subject id) spent this period. The store is ahead of the database by the rows
 * not flushed yet; the database knows subjects the store never saw (no limits, or spent before this
 * process started). The larger one is the truth.
 */
async function spentOf(
  gw: UsageTokenServices,
  subject: string,
  period: number,
  snapshot: { spentNanos: number; spentTokens: number },
): Promise<{ spentNanos: number; spentTokens: number }> {
  const durable = await gw.store.keySpend(subject, period).catch((err: unknown) => {
    // A database away (PostgreSQL down) is the caller's to retry, not the gateway's failure.
    gw.log.warn({ err: gw.masker.mask(String(err)), keyId: subject }, 'usage self-check: the database did not answer');
    throw new GatewayError('usage_unavailable', { headers: { 'retry-after': '1' } });
  });
  return {
    spentNanos: Math.max(durable.nanos, snapshot.spentNanos),
    spentTokens: Math.max(durable.tokens, snapshot.spentTokens),
  };
}

/**
 * The key's team as the self-check shows it: its budget, what its keys spent together and what is left
 * (what a request of this key may still take is the smaller of the key's `left_usd` and this), and its
 * limits; null for a key without a team object.
 */
async function teamUsage(gw: UsageTokenServices, key: KeyRecord, now: number): Promise<Record<string, unknown> | null> {
  const team = key.teamRecord;
  if (team === null || team === undefined) return null;
  const view = await gw.admission.teamView(key, now);
  if (view === null) return null;
  const { snapshot } = view;
  const { spentNanos, spentTokens } = await spentOf(gw, view.subject, view.period, snapshot);
  const budgetNanos = team.budgetUsd === null ? null : usdToNanos(team.budgetUsd);
  const next = nextPeriodStart(team.budgetPeriod, now);
  return {
    name: team.name,
    budget_usd: team.budgetUsd,
    spent_usd: nanosToUsd(spentNanos),
    reserved_usd: nanosToUsd(snapshot.reservedNanos),
    left_usd: budgetNanos === null ? null : nanosToUsd(Math.max(0, budgetNanos - spentNanos - snapshot.reservedNanos)),
    token_budget: team.tokenBudget,
    tokens_used: spentTokens,
    tokens_reserved: snapshot.reservedTokens,
    tokens_left:
      team.tokenBudget === null ? null : Math.max(0, team.tokenBudget - spentTokens - snapshot.reservedTokens),
    budget_period: team.budgetPeriod,
    period_resets_at: next === null ? 0 : Math.floor(next / 1000),
    models: team.models,
    limits: { rpm: team.rpm, tpm: team.tpm, max_concurrency: team.maxConcurrency },
    window: {
      requests: snapshot.rpmUsed,
      tokens: snapshot.tpmUsed,
      in_flight: snapshot.inFlight,
      resets_in_seconds: snapshot.windowResetSec,
    },
  };
}

// What the key spend metrics show (modelgate_key_spend_usd_total, modelgate_key_budget_remaining_usd, and
// the team_ ones):
// for keys with a USD budget, the spend of their current period as admission counts it (the durable
// total loaded at start, plus what was settled since: on Redis, every replica's), read when scraped.
import type { KeyRecord } from '../core/key-record.ts';
import { nanosToUsd } from '../core/budget.ts';
import { MAX_KEY_SERIES, type KeySpendSample } from './metrics.ts';

export interface SpendView {
  view(key: KeyRecord, now: number): Promise<{ snapshot: { spentNanos: number } }>;
  teamView(key: KeyRecord, now: number): Promise<{ snapshot: { spentNanos: number } } | null>;
}

/**
 * Keys with a USD budget that are not disabled, the most recently created first, at most MAX_KEY_SERIES;
 * then the teams with a USD budget that those or other keys belong to, at most as many.
 */
export async function keySpendSamples(
  keys: Iterable<KeyRecord>,
  admission: SpendView,
  now: number,
): Promise<KeySpendSample[]> {
  const budgeted: KeyRecord[] = [];
  /** One key per team with a USD budget: the team's counters are read through it. */
  const teams = new Map<string, KeyRecord>();
  for (const k of keys) {
    if (k.budgetUsd !== null && !k.disabled) budgeted.push(k);
    const t = k.teamRecord;
    if (t !== null && t !== undefined && t.budgetUsd !== null && !teams.has(t.id)) teams.set(t.id, k);
  }
  budgeted.sort((a, b) => b.createdAt - a.createdAt);
  const shown = budgeted.slice(0, MAX_KEY_SERIES);
  const keySamples = shown.map(async (k): Promise<KeySpendSample> => {
    const { snapshot } = await admission.view(k, now);
    const spentUsd = nanosToUsd(snapshot.spentNanos);
    return {
      subject: 'key',
      keyId: k.id,
      keyName: k.name,
      team: k.team ?? '',
      spentUsd,
      remainingUsd: Math.max(0, k.budgetUsd! - spentUsd),
    };
  });
  const teamSamples = [...teams.values()].slice(0, MAX_KEY_SERIES).map(async (k): Promise<KeySpendSample | null> => {
    const view = await admission.teamView(k, now);
    const team = k.teamRecord!;
    if (view === null) return null;
    const spentUsd = nanosToUsd(view.snapshot.spentNanos);
    return {
      subject: 'team',
      keyId: '',
      keyName: '',
      team: team.name,
      spentUsd,
      remainingUsd: Math.max(0, team.budgetUsd! - spentUsd),
    };
  });
  const all = await Promise.all([...keySamples, ...teamSamples]);
  return all.filter((s) => s !== null);
}

// What the key spend metrics show (modelgate_key_spend_usd_total, modelgate_key_budget_remaining_usd):
// for keys with a USD budget, the spend of their current period as admission counts it (the durable
// total loaded at start, plus what was settled since: on Redis, every replica's), read when scraped.
import type { KeyRecord } from '../core/key-record.ts';
import { nanosToUsd } from '../core/budget.ts';
import { MAX_KEY_SERIES, type KeySpendSample } from './metrics.ts';

export interface SpendView {
  view(key: KeyRecord, now: number): Promise<{ snapshot: { spentNanos: number } }>;
}

/** Keys with a USD budget that are not disabled, the most recently created first, at most MAX_KEY_SERIES. */
export async function keySpendSamples(
  keys: Iterable<KeyRecord>,
  admission: SpendView,
  now: number,
): Promise<KeySpendSample[]> {
  const budgeted: KeyRecord[] = [];
  for (const k of keys) if (k.budgetUsd !== null && !k.disabled) budgeted.push(k);
  budgeted.sort((a, b) => b.createdAt - a.createdAt);
  const shown = budgeted.slice(0, MAX_KEY_SERIES);
  return Promise.all(
    shown.map(async (k) => {
      const { snapshot } = await admission.view(k, now);
      const spentUsd = nanosToUsd(snapshot.spentNanos);
      return { keyId: k.id, keyName: k.name, spentUsd, remainingUsd: Math.max(0, k.budgetUsd! - spentUsd) };
    }),
  );
}

// Reconciling the gateway's books with a provider's export: shared by `modelgate reconcile` and
// POST /admin/reconcile.
import type { ModelConfig } from '../../core/config-types.ts';
import type { Store } from '../../store/store.ts';
import { gatewayTotals, reconcile, type ReconcileReport } from '../../reconcile/compare.ts';
import { ExportError, readProviderExport, type ExportProvider } from '../../reconcile/provider-export.ts';
import { UsageError } from '../key-flags.ts';

/** Provider rounding: a day's cost within this of the gateway's matches (a provider reports whole cents at worst). */
export const DEFAULT_TOLERANCE_USD = 0.000001;

export interface ReconcileRequest {
  provider: string | undefined;
  /** The export's text: JSON or CSV. */
  text: string;
  from?: string;
  to?: string;
  toleranceUsd?: number;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

export async function reconcileExport(
  store: Store,
  models: readonly ModelConfig[],
  r: ReconcileRequest,
): Promise<ReconcileReport> {
  if (r.provider !== 'openai' && r.provider !== 'anthropic')
    throw new UsageError('provider must be openai or anthropic');
  const provider: ExportProvider = r.provider;
  for (const [name, v] of [
    ['from', r.from],
    ['to', r.to],
  ] as const)
    if (v !== undefined && !DAY.test(v)) throw new UsageError(`${name} must be a UTC day, YYYY-MM-DD`);
  let exported: ReturnType<typeof readProviderExport>;
  try {
    exported = readProviderExport(provider, r.text);
  } catch (err) {
    if (err instanceof ExportError) throw new UsageError(`the export cannot be read: ${err.message}`);
    throw err;
  }
  const days = exported.map((e) => e.day);
  const from = r.from ?? days[0];
  const to = r.to ?? days[days.length - 1];
  if (from === undefined || to === undefined)
    throw new UsageError('the export has no rows: pass --from and --to to compare the gateway with nothing');
  const tolerance = r.toleranceUsd ?? DEFAULT_TOLERANCE_USD;
  if (!(tolerance >= 0)) throw new UsageError('tolerance must be a number of USD, 0 or more');
  const range = { from, to };
  const gateway = await gatewayTotals(store, models, provider, range);
  return reconcile(provider, range, gateway, exported, Math.round(tolerance * 1e9));
}

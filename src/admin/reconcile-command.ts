// `modelgate reconcile --provider openai|anthropic --file EXPORT [--from D] [--to D]`: the gateway's
// usage per day and model beside a provider's export; each differing day printed, exit 1 when any differs.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { ModelConfig } from '../core/config-types.ts';
import type { Store } from '../store/store.ts';
import { formatReport } from '../reconcile/compare.ts';
import { UsageError } from './key-flags.ts';
import { reconcileExport } from './operations/reconcile-operations.ts';

/** True when every day and model matches. */
export async function reconcileCommand(
  store: Store,
  models: readonly ModelConfig[],
  args: string[],
  out: (s: string) => void,
): Promise<boolean> {
  const { values } = parseArgs({
    args,
    options: {
      config: { type: 'string' },
      provider: { type: 'string' },
      file: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      'tolerance-usd': { type: 'string' },
      json: { type: 'boolean' },
    },
    strict: true,
  });
  if (values.file === undefined) throw new UsageError('--file EXPORT is required (the provider usage or cost export)');
  let text: string;
  try {
    text = readFileSync(values.file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${values.file}: ${(err as Error).message}`);
  }
  const report = await reconcileExport(store, models, {
    provider: values.provider,
    text,
    from: values.from,
    to: values.to,
    toleranceUsd: values['tolerance-usd'] === undefined ? undefined : Number(values['tolerance-usd']),
  });
  if (values.json) out(JSON.stringify(report));
  else for (const line of formatReport(report)) out(line);
  return report.differing === 0;
}

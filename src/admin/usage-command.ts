// `modelgate usage`: spend per day, key and model from the usage rows.
import { parseArgs } from 'node:util';
import type { Store } from '../store/store.ts';
import { UsageError } from './key-flags.ts';
import { findKeyOrFail } from './operations/key-operations.ts';

export async function usageCommand(store: Store, argv: string[], out: (s: string) => void): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { days: { type: 'string' }, key: { type: 'string' }, json: { type: 'boolean' }, config: { type: 'string' } }, strict: true });
  const days = values.days === undefined ? 30 : Number(values.days);
  if (!Number.isFinite(days) || days <= 0) throw new UsageError('--days must be a number of days above 0');
  let keyId: string | undefined;
  if (values.key) {
    // A name or id that matches no key is a typo, not a key without usage.
    keyId = (await findKeyOrFail(store, values.key)).id;
  }
  const rows = await store.usageSummary({ sinceMs: Date.now() - days * 86_400_000, keyId });
  if (values.json) {
    out(JSON.stringify(rows.map((r) => ({ ...r, costUsd: r.costNanos / 1e9 }))));
    return;
  }
  if (rows.length === 0) {
    out(`No usage in the last ${days} days.`);
    return;
  }
  const header = ['day', 'key', 'model', 'requests', 'errors', 'input_tok', 'output_tok', 'cost_usd'];
  const table = rows.map((r) => [r.day, r.keyName ?? r.keyId, r.model, String(r.requests), String(r.errors), String(r.inputTokens), String(r.outputTokens), (r.costNanos / 1e9).toFixed(6)]);
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i].length)));
  for (const row of [header, ...table]) out(row.map((c, i) => c.padEnd(widths[i])).join('  '));
}

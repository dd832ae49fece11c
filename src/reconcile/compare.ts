// Reconciliation: the gateway's usage rows, summed per UTC day and upstream model, beside a provider's
// export of the same days, and the difference of each.
import { providerSpec } from '../registry.ts';
import type { DeploymentConfig, ModelConfig } from '../core/config-types.ts';
import type { Store } from '../store/store.ts';
import type { DayModelTotals, ExportProvider, TokenCounts } from './provider-export.ts';

export interface ReconcileLine {
  day: string;
  model: string;
  gateway: { tokens: TokenCounts; cost_usd: number };
  provider: { tokens: TokenCounts | null; cost_usd: number | null };
  /** Gateway minus provider, for what the export carries (null where it carries nothing). */
  difference: { tokens: TokenCounts | null; cost_usd: number | null };
  matches: boolean;
}

export interface ReconcileReport {
  provider: ExportProvider;
  from: string;
  to: string;
  lines: ReconcileLine[];
  differing: number;
}

const ZERO: TokenCounts = { input: 0, cacheRead: 0, cacheWrite: 0, output: 0 };

/**
 * The gateway's totals per day and upstream model id, for deployments whose kind the provider's export covers, over
 * [from, to] (UTC days, inclusive).
 */
export async function gatewayTotals(
  store: Store,
  models: readonly ModelConfig[],
  provider: ExportProvider,
  range: { from: string; to: string },
): Promise<Array<{ day: string; model: string; tokens: TokenCounts; costNanos: number }>> {
  const deployments = new Map<string, DeploymentConfig>();
  for (const m of models) for (const d of m.deployments) deployments.set(d.id, d);
  const groups = await store.usageGroups(
    { fromMs: Date.parse(`${range.from}T00:00:00Z`), toMs: Date.parse(`${range.to}T00:00:00Z`) + 86_400_000 },
    ['day', 'deployment'],
  );
  const totals = new Map<string, { day: string; model: string; tokens: TokenCounts; costNanos: number }>();
  for (const g of groups) {
    const d = deployments.get(String(g.dims[1]));
    if (d === undefined || providerSpec(d.provider).priceCatalogue !== provider) continue;
    const day = new Date(Number(g.dims[0])).toISOString().slice(0, 10);
    const k = `${day}\u0000${d.model}`;
    let t = totals.get(k);
    if (t === undefined) totals.set(k, (t = { day, model: d.model, tokens: { ...ZERO }, costNanos: 0 }));
    t.tokens.input += g.inputTokens;
    t.tokens.cacheRead += g.cacheReadTokens;
    t.tokens.cacheWrite += g.cacheWriteTokens;
    t.tokens.output += g.outputTokens;
    t.costNanos += g.costNanos;
  }
  return [...totals.values()];
}

/**
 * The provider's name for a model the gateway sent as `id`: the same, or a dated version of it
 * (`gpt-4o` billed as `gpt-4o-2024-08-06`) when that is the only one in the export.
 */
function providerName(id: string, exported: ReadonlySet<string>): string {
  if (exported.has(id)) return id;
  const dated = [...exported].filter((m) => m.startsWith(`${id}-`));
  return dated.length === 1 ? dated[0] : id;
}

function minus(a: TokenCounts, b: TokenCounts): TokenCounts {
  return {
    input: a.input - b.input,
    cacheRead: a.cacheRead - b.cacheRead,
    cacheWrite: a.cacheWrite - b.cacheWrite,
    output: a.output - b.output,
  };
}

function plus(a: TokenCounts, b: TokenCounts): TokenCounts {
  return {
    input: a.input + b.input,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
    output: a.output + b.output,
  };
}

const usd = (nanos: number): number => nanos / 1e9;

/**
 * Every day and model on either side within [from, to]; a line matches when the token counts the export
 * carries are equal and its cost is within `toleranceNanos`.
 */
export function reconcile(
  provider: ExportProvider,
  range: { from: string; to: string },
  gateway: ReadonlyArray<{ day: string; model: string; tokens: TokenCounts; costNanos: number }>,
  exported: readonly DayModelTotals[],
  toleranceNanos: number,
): ReconcileReport {
  const inRange = exported.filter((e) => e.day >= range.from && e.day <= range.to);
  const names = new Set(inRange.map((e) => e.model));
  const byKey = new Map<
    string,
    { gw: (typeof gateway)[number] | null; ex: DayModelTotals | null; model: string; day: string }
  >();
  for (const g of gateway) {
    const model = providerName(g.model, names);
    const k = `${g.day}\u0000${model}`;
    const at = byKey.get(k);
    if (at === undefined) byKey.set(k, { gw: { ...g, tokens: { ...g.tokens } }, ex: null, model, day: g.day });
    else if (at.gw !== null) {
      // Two deployment ids the provider bills as one model.
      at.gw.tokens = plus(at.gw.tokens, g.tokens);
      at.gw.costNanos += g.costNanos;
    }
  }
  for (const e of inRange) {
    const k = `${e.day}\u0000${e.model}`;
    const at = byKey.get(k);
    if (at === undefined) byKey.set(k, { gw: null, ex: e, model: e.model, day: e.day });
    else at.ex = e;
  }
  // What the export carries: a day it does not list is zero of that, and nothing of what it never has.
  const hasTokens = inRange.some((e) => e.tokens !== null);
  const hasCost = inRange.some((e) => e.costNanos !== null);
  const lines: ReconcileLine[] = [];
  for (const { gw, ex, model, day } of byKey.values()) {
    const gTokens = gw?.tokens ?? ZERO;
    const gCost = gw?.costNanos ?? 0;
    const eTokens = ex === null ? (hasTokens ? ZERO : null) : ex.tokens;
    const eCost = ex === null ? (hasCost ? 0 : null) : ex.costNanos;
    const dTokens = eTokens === null ? null : minus(gTokens, eTokens);
    const dCost = eCost === null ? null : gCost - eCost;
    const matches =
      (dTokens === null ||
        (dTokens.input === 0 && dTokens.cacheRead === 0 && dTokens.cacheWrite === 0 && dTokens.output === 0)) &&
      (dCost === null || Math.abs(dCost) <= toleranceNanos);
    lines.push({
      day,
      model,
      gateway: { tokens: gTokens, cost_usd: usd(gCost) },
      provider: { tokens: eTokens, cost_usd: eCost === null ? null : usd(eCost) },
      difference: { tokens: dTokens, cost_usd: dCost === null ? null : usd(dCost) },
      matches,
    });
  }
  lines.sort((a, b) => (a.day === b.day ? a.model.localeCompare(b.model) : a.day < b.day ? -1 : 1));
  return { provider, from: range.from, to: range.to, lines, differing: lines.filter((l) => !l.matches).length };
}

const total = (t: TokenCounts): number => t.input + t.cacheRead + t.cacheWrite + t.output;

/** One line per differing day and model: `YYYY-MM-DD model tokens Δ (per class) cost_usd Δ`, then a summary. */
export function formatReport(r: ReconcileReport): string[] {
  const out: string[] = [];
  for (const l of r.lines) {
    if (l.matches) continue;
    const t = l.difference.tokens;
    const tokens =
      t === null
        ? 'tokens n/a'
        : `tokens ${total(t)} (input ${t.input} cache_read ${t.cacheRead} cache_write ${t.cacheWrite} output ${t.output})`;
    const cost =
      l.difference.cost_usd === null ? 'cost_usd n/a' : `cost_usd ${Number(l.difference.cost_usd.toFixed(9))}`;
    out.push(`${l.day} ${l.model} ${tokens} ${cost}`);
  }
  out.push(
    r.differing === 0
      ? `all ${r.lines.length} day-model totals match the ${r.provider} export from ${r.from} to ${r.to}`
      : `${r.differing} of ${r.lines.length} day-model totals differ from the ${r.provider} export (gateway minus provider)`,
  );
  return out;
}

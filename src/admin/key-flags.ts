// Parsing the key options shared by `keys create` and `keys update` into a KeyRecord patch.
import type { BudgetPeriod, KeyRecord } from '../core/key-record.ts';

export const KEY_OPTION_SPEC = {
  name: { type: 'string' },
  models: { type: 'string' },
  expires: { type: 'string' },
  'budget-usd': { type: 'string' },
  'token-budget': { type: 'string' },
  'budget-period': { type: 'string' },
  rpm: { type: 'string' },
  tpm: { type: 'string' },
  concurrency: { type: 'string' },
  'mcp-tools': { type: 'string' },
  team: { type: 'string' },
} as const;

export type KeyFlags = Partial<Record<keyof typeof KEY_OPTION_SPEC, string>>;

/** What went wrong in an operation: the CLI prints it (exit 2); the admin API answers 400, 404 or 409. */
export type UsageErrorKind = 'invalid' | 'not_found' | 'conflict';

export class UsageError extends Error {
  override name = 'UsageError';
  readonly kind: UsageErrorKind;
  /** The query parameter or field at fault, when one is: the admin API's error names it in `param`. */
  readonly param: string | null;

  constructor(message: string, kind: UsageErrorKind = 'invalid', param: string | null = null) {
    super(message);
    this.kind = kind;
    this.param = param;
  }
}

/** `none`/`''` clears a limit; anything else must parse. */
function limit(v: string | undefined, flag: string, integer: boolean): number | null | undefined {
  if (v === undefined) return undefined;
  if (v === '' || v === 'none' || v === 'unlimited') return null;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0 || (integer && !Number.isInteger(n)))
    throw new UsageError(`--${flag} must be a ${integer ? 'whole ' : ''}number ≥ 0 (or "none")`);
  return n;
}

export function keyPatchFromFlags(f: KeyFlags): Partial<KeyRecord> {
  const patch: Partial<KeyRecord> = {};
  if (f.name !== undefined) {
    if (!f.name.trim()) throw new UsageError('--name must not be empty');
    patch.name = f.name.trim();
  }
  if (f.models !== undefined) {
    const list = f.models
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    patch.models = list.length === 0 || (list.length === 1 && list[0] === '*') ? null : list;
  }
  if (f.team !== undefined) patch.team = f.team.trim() === '' || f.team === 'none' ? null : f.team.trim();
  if (f['mcp-tools'] !== undefined) {
    // `""` = no MCP tool, `*` = every configured tool (as if absent), else comma-separated SERVER__TOOL patterns.
    const list = f['mcp-tools']
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    patch.mcpTools = list.length === 1 && list[0] === '*' ? null : list;
  }
  if (f.expires !== undefined) {
    if (f.expires === '' || f.expires === 'never') patch.expiresAt = null;
    else {
      const t = Date.parse(f.expires);
      if (Number.isNaN(t)) throw new UsageError(`--expires must be an ISO-8601 date or time (got "${f.expires}")`);
      patch.expiresAt = t;
    }
  }
  const budget = limit(f['budget-usd'], 'budget-usd', false);
  if (budget !== undefined) patch.budgetUsd = budget;
  const tokens = limit(f['token-budget'], 'token-budget', true);
  if (tokens !== undefined) patch.tokenBudget = tokens;
  if (f['budget-period'] !== undefined) {
    const p = f['budget-period'];
    if (p === '' || p === 'none') patch.budgetPeriod = null;
    else if (p === 'daily' || p === 'weekly' || p === 'monthly') patch.budgetPeriod = p as BudgetPeriod;
    else throw new UsageError('--budget-period must be daily, weekly, monthly or none');
  }
  const rpm = limit(f.rpm, 'rpm', true);
  if (rpm !== undefined) patch.rpm = rpm;
  const tpm = limit(f.tpm, 'tpm', true);
  if (tpm !== undefined) patch.tpm = tpm;
  const conc = limit(f.concurrency, 'concurrency', true);
  if (conc !== undefined) patch.maxConcurrency = conc;
  return patch;
}

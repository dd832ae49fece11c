// A team's row in either SQL store, and back: the columns are the same in SQLite and PostgreSQL.
import type { BudgetPeriod } from '../core/key-record.ts';
import type { TeamRecord } from '../core/team-record.ts';

export interface TeamDbRow {
  id: string;
  name: string;
  models: string | null;
  mcp_tools: string | null;
  budget_usd: number | null;
  token_budget: number | null;
  budget_period: string | null;
  rpm: number | null;
  tpm: number | null;
  max_concurrency: number | null;
  created_at: number;
}

/** A list of names or patterns as JSON text; NULL means no limit (every one), `[]` none. */
export function listColumn(list: readonly string[] | null | undefined): string | null {
  return list === null || list === undefined ? null : JSON.stringify(list);
}

export function toTeam(r: TeamDbRow): TeamRecord {
  return {
    id: r.id,
    name: r.name,
    models: r.models === null ? null : (JSON.parse(r.models) as string[]),
    mcpTools: r.mcp_tools === null ? null : (JSON.parse(r.mcp_tools) as string[]),
    budgetUsd: r.budget_usd,
    tokenBudget: r.token_budget === null ? null : Number(r.token_budget),
    budgetPeriod: r.budget_period as BudgetPeriod | null,
    rpm: r.rpm === null ? null : Number(r.rpm),
    tpm: r.tpm === null ? null : Number(r.tpm),
    maxConcurrency: r.max_concurrency === null ? null : Number(r.max_concurrency),
    createdAt: Number(r.created_at),
  };
}

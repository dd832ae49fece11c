// What the gateway knows about one team: the limits and rights it holds above each of its keys. A key
// names its team by `name`; the team's budget and rate limits are counted over all of its keys at once.
import type { BudgetPeriod } from './key-record.ts';

export interface TeamRecord {
  id: string;
  /** Unique; what a key's `team` field names. */
  name: string;
  /** Models (names or `*` patterns) every key of the team is limited to, on top of its own; null = no limit. */
  models: string[] | null;
  /** MCP tools every key of the team is limited to, on top of its own; null = no limit. */
  mcpTools: string[] | null;
  budgetUsd: number | null;
  tokenBudget: number | null;
  budgetPeriod: BudgetPeriod | null;
  rpm: number | null;
  tpm: number | null;
  maxConcurrency: number | null;
  createdAt: number;
}

/**
 * The admission subject a team's counters live under, by its id (a rename keeps them): never a key id,
 * so the team's spend and windows share the admission store and the spend table with the keys.
 */
export function teamSubject(teamId: string): string {
  return `team:${teamId}`;
}

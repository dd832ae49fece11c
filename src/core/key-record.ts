// What the gateway knows about one operator-issued API key once it has been looked up.
// The whole key is never stored: only its SHA-256 hash and a masked display form.
import type { TeamRecord } from './team-record.ts';

export type BudgetPeriod = 'daily' | 'weekly' | 'monthly';

export interface KeyRecord {
  id: string;
  name: string;
  /** hex SHA-256 of the whole key. */
  hash: string;
  /** First 4 + last 4 characters, e.g. `sk-A…9xQz`; the only form ever printed. */
  masked: string;
  /** Allowed model names or glob patterns (`claude-*`); null means every configured model. */
  models: string[] | null;
  /** Unix milliseconds; null means never. */
  expiresAt: number | null;
  /** MCP tools (`SERVER__TOOL`) or `*` patterns the key may list and call; null = every configured tool. */
  mcpTools?: string[] | null;
  disabled: boolean;
  budgetUsd: number | null;
  tokenBudget: number | null;
  budgetPeriod: BudgetPeriod | null;
  rpm: number | null;
  tpm: number | null;
  maxConcurrency: number | null;
  createdAt: number;
  /** The team the key belongs to, by name; absent or null = none. */
  team?: string | null;
  /**
   * The team object `team` names, as the key cache resolved it: its budget, limits and rights hold on top
   * of the key's own. Absent or null when the key has no team or its team has no object (a bare label).
   */
  teamRecord?: TeamRecord | null;
  /** The digest of the secret before the last rotation, accepted until `previousUntil` (unix ms). */
  previousHash?: string;
  previousUntil?: number;
}

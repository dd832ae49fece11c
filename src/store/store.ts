// The persistence interface: keys, usage rows and per-key spend. SQLite (one host) and PostgreSQL (several) implement it.
import type { KeyRecord } from '../core/key-record.ts';
import type { TeamRecord } from '../core/team-record.ts';

export interface UsageRow {
  ts: number;
  requestId: string;
  keyId: string;
  endpoint: string;
  model: string;
  /** The deployment that answered (`model#index`), or null when none was reached. */
  deployment: string | null;
  status: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costNanos: number;
  latencyMs: number;
  /** Time to first byte sent to the client, ms; null when nothing was sent. */
  ttfbMs: number | null;
  streamed: boolean;
  attempts: number;
  /** The budget period the cost counts against (unix ms of its start; 0 = lifetime). */
  periodStart: number;
  errorCode: string | null;
  /** How the request was routed when not the usual way: 'panic' (every deployment was cooling down); else null. */
  routing: string | null;
  /** The cost explained (pricing/breakdown.ts CostLine[] as JSON); null or absent when nothing was charged. */
  costBreakdown?: string | null;
  /** Texts the stages masked in the request and its reply (or found in a refused request); absent = 0. */
  redactions?: number;
  /** The agent session the request belongs to (a client's session header, or its prompt_cache_key); null when none. */
  sessionId?: string | null;
  /** The id of the team whose budget the request also counted against (the key's team, when it has one). */
  teamId?: string | null;
  /** The team's budget period the cost counts against (unix ms of its start; 0 = lifetime). */
  teamPeriodStart?: number;
  /** Body logging: the request as it went upstream and the reply as the caller got it, masked and cut to size. */
  requestBody?: string | null;
  responseBody?: string | null;
  /** An MCP tool call's row (endpoint `/mcp`): the bytes of its arguments and of its result, as JSON; else absent. */
  requestBytes?: number | null;
  responseBytes?: number | null;
  /** A failed request's error message as its caller was answered, masked; null or absent otherwise. */
  errorMessage?: string | null;
  /**
   * Each upstream attempt, as JSON `[{deployment, status, outcome, duration_ms}]` in order; null or absent
   * when none was made (refused before routing, an MCP call).
   */
  attemptLog?: string | null;
}

export interface SpendTotals {
  nanos: number;
  tokens: number;
}

/** What one subject (a key id, or `team:<id>`) was billed in one budget period. */
export interface PeriodSpend extends SpendTotals {
  keyId: string;
  periodStart: number;
}

export interface UsageSummaryRow {
  day: string;
  keyId: string;
  keyName: string | null;
  model: string;
  requests: number;
  errors: number;
  inputTokens: number;
  outputTokens: number;
  costNanos: number;
}

/** Which usage rows a report or a listing reads: a time range [fromMs, toMs) (open where absent), then exact matches. */
export interface UsageFilter {
  fromMs?: number;
  toMs?: number;
  keyId?: string;
  model?: string;
  deployment?: string;
  /** Only rows of this endpoint (`/mcp`: the MCP tool calls). */
  endpoint?: string;
  /** Only rows of the keys of this team (as the keys are now; '' matches no key). */
  team?: string;
  /** Only rows with status >= 400. */
  errorsOnly?: boolean;
  /** Only rows whose status is in this range (inclusive). */
  status?: { min: number; max: number };
  requestId?: string;
  /** One row, by its id in the table (the listing's `id`). */
  rowId?: number;
  /** A case-insensitive substring of the request id, model, deployment, error code, error message or key name. */
  text?: string;
}

/** What `GET /admin/usage` groups by: a UTC day or hour (its start, unix ms), or a column. */
export type UsageDimension = 'day' | 'hour' | 'model' | 'key' | 'deployment' | 'session' | 'endpoint' | 'team';

export interface UsageGroup {
  /** One value per requested dimension, in the order asked (day/hour as unix ms; key as the key id). */
  dims: (string | number | null)[];
  requests: number;
  errors: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costNanos: number;
  latencyP50Ms: number | null;
  latencyP95Ms: number | null;
  latencyP99Ms: number | null;
}

/** One usage row as the admin listing shows it, with the key's masked form and name when it still exists. */
export interface UsageRecord extends UsageRow {
  /** The row's position in the table: newer rows have larger ids (the listing's cursor). */
  id: number;
  keyName: string | null;
  keyMasked: string | null;
  /** The key's team (a deleted key's as it was); null without one. */
  keyTeam: string | null;
}

/** The key fields `updateKey` may change, and their columns (the same in every SQL store). */
export const KEY_COLUMNS: Readonly<Record<string, string>> = {
  name: 'name',
  models: 'models',
  expiresAt: 'expires_at',
  disabled: 'disabled',
  budgetUsd: 'budget_usd',
  tokenBudget: 'token_budget',
  budgetPeriod: 'budget_period',
  rpm: 'rpm',
  tpm: 'tpm',
  maxConcurrency: 'max_concurrency',
  mcpTools: 'mcp_tools',
  team: 'team',
};

/** The team fields `updateTeam` may change, and their columns (the same in every SQL store). */
export const TEAM_COLUMNS: Readonly<Record<string, string>> = {
  name: 'name',
  models: 'models',
  mcpTools: 'mcp_tools',
  budgetUsd: 'budget_usd',
  tokenBudget: 'token_budget',
  budgetPeriod: 'budget_period',
  rpm: 'rpm',
  tpm: 'tpm',
  maxConcurrency: 'max_concurrency',
};

/** What an operator may change on a team. */
export type TeamPatch = Partial<Omit<TeamRecord, 'id' | 'createdAt'>>;

/** A gateway serving from a database, as it registers itself there. */
export interface GatewayBeat {
  id: string;
  host: string;
  pid: number;
  startedAt: number;
  beatAt: number;
  /** Whether it counts limits in a shared admission store (Redis) rather than in its own memory. */
  shared: boolean;
}

export interface KeyRotation {
  hash: string;
  masked: string;
  previousHash: string | null;
  previousUntil: number | null;
}

/** What a deleted key leaves behind. */
export interface DeletedKey {
  id: string;
  name: string;
  masked: string;
  team: string | null;
}

export interface Store {
  insertKey(key: KeyRecord): Promise<void>;
  updateKey(id: string, patch: Partial<Omit<KeyRecord, 'id' | 'hash' | 'masked' | 'createdAt'>>): Promise<boolean>;
  deleteKey(id: string): Promise<boolean>;
  /**
   * How long a write waits for another process's lock (SQLite): `ms` on the event loop's connection,
   * `writerMs` (default `ms`) on the usage writer thread's. Absent where it means nothing.
   */
  busyTimeout?(ms: number, writerMs?: number): void;
  /** By id, or by name when no id matches. */
  findKey(idOrName: string): Promise<KeyRecord | null>;
  listKeys(): Promise<KeyRecord[]>;
  /** A new secret for a key; the old digest stays valid until `previousUntil` (null: not at all). */
  rotateKey(id: string, to: KeyRotation): Promise<boolean>;
  /** The keys deleted so far, as they were named: reports name their rows with them. */
  listDeletedKeys(): Promise<DeletedKey[]>;
  /** Teams, by creation; each change moves the keys version too (the key cache reloads teams with keys). */
  listTeams(): Promise<TeamRecord[]>;
  /** By id, or by name when no id matches. */
  findTeam(idOrName: string): Promise<TeamRecord | null>;
  insertTeam(team: TeamRecord): Promise<void>;
  /** A new name moves the team's keys along, in the same transaction (its spend is counted by id). */
  updateTeam(id: string, patch: TeamPatch): Promise<boolean>;
  deleteTeam(id: string): Promise<boolean>;
  /** The key with this digest (an indexed read), for a key the server's cache does not know yet. */
  findKeyByHash(hash: string): Promise<KeyRecord | null>;
  /** A number that changes whenever any process changes a key; the server polls it. */
  keysVersion(): Promise<number>;
  /** Writes the rows and adds their cost/tokens to the keys' spend totals, in one transaction. */
  writeUsage(rows: UsageRow[]): Promise<void>;
  /**
   * A key's spend billed to periods starting at or after `periodStart`: its current period's total,
   * and, after an operator moved the key to a period that starts earlier (daily → monthly), what the
   * gateway billed to the shorter periods inside it (a store that outlived the change keeps billing
   * to the period it was in until the new one ends).
   */
  keySpend(keyId: string, periodStart: number): Promise<SpendTotals>;
  /**
   * Every subject's spend per period, for periods starting at or after `since`: one read for a listing,
   * each subject's own period applied by the caller (spendFrom).
   */
  spendByPeriod(since: number): Promise<PeriodSpend[]>;
  /** Each key's latest usage row time (unix ms), deleted keys' too; a key never used is absent. */
  keysLastUsed?(): Promise<Map<string, number>>;
  usageSummary(opts: { sinceMs?: number; keyId?: string }): Promise<UsageSummaryRow[]>;
  /** Totals per group of `dims` (none: one group for the whole range), ordered by the dimensions. */
  usageGroups(filter: UsageFilter, dims: UsageDimension[]): Promise<UsageGroup[]>;
  /** The newest rows first, `limit` of them, older than the row id `beforeId` when given. */
  usageRecords(filter: UsageFilter, page: { limit: number; beforeId?: number }): Promise<UsageRecord[]>;
  /** A logged request's bodies (body logging), or null when none were kept for it. */
  requestBodies(requestId: string): Promise<{ request: string | null; response: string | null } | null>;
  /** Removes logged bodies older than `beforeMs`; returns how many. */
  purgeBodies(beforeMs: number): Promise<number>;
  /** The gateways registered on this database, so that each can tell it is not alone. */
  putGateway?(g: GatewayBeat): Promise<void>;
  listGateways?(): Promise<GatewayBeat[]>;
  removeGateway?(id: string): Promise<void>;
  close(): Promise<void>;
}

/** A key's MCP rights as stored: JSON text, where `[]` (no tool) differs from NULL (every tool). */
export function mcpToolsColumn(tools: readonly string[] | null | undefined): string | null {
  return tools === null || tools === undefined ? null : JSON.stringify(tools);
}

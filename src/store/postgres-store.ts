// PostgreSQL implementation of Store: what several gateway hosts share (keys, usage rows, spend totals),
// where SQLite's file can only be shared on one host. Requests are served from memory (keys, admission);
// this is read by the key cache's version poll (four times a second), when a key's spend is loaded (a
// start, a new period, `/api/usage/token`), and written by the usage writer's batches on a thread.
import type postgres from 'postgres';
import type { BudgetPeriod, KeyRecord } from '../core/key-record.ts';
import type { TeamRecord } from '../core/team-record.ts';
import { listColumn, toTeam, type TeamDbRow } from './team-rows.ts';
import {
  KEY_COLUMNS,
  TEAM_COLUMNS,
  type TeamPatch,
  mcpToolsColumn,
  type DeletedKey,
  type KeyRotation,
  type GatewayBeat,
  type PeriodSpend,
  type SpendTotals,
  type Store,
  type UsageDimension,
  type UsageFilter,
  type UsageGroup,
  type UsageRecord,
  type UsageRow,
  type UsageSummaryRow,
} from './store.ts';
import {
  usageGroupQueries,
  usageGroupsFrom,
  usageRecordFrom,
  usageRecordsQuery,
  type SumsRow,
} from './usage-report-sql.ts';
import { POSTGRES_WRITER, UsageThread, WRITE_SLICE_ROWS } from './usage-thread.ts';
import { maskDatabaseUrl, parseDatabaseUrl } from './database-url.ts';
import { connectionOptions } from './pg-usage-sql.js';
import { migratePg, reportPg, type Migrations, type OnMigrated } from './migrations.ts';

type Sql = postgres.Sql<Record<string, unknown>>;

const MIGRATIONS: string[] = [
  `CREATE TABLE keys (
     id TEXT PRIMARY KEY, name TEXT NOT NULL, hash TEXT NOT NULL UNIQUE, masked TEXT NOT NULL,
     models TEXT, expires_at BIGINT, disabled BOOLEAN NOT NULL DEFAULT FALSE,
     budget_usd DOUBLE PRECISION, token_budget BIGINT, budget_period TEXT,
     rpm BIGINT, tpm BIGINT, max_concurrency BIGINT, created_at BIGINT NOT NULL)`,
  `CREATE INDEX keys_name ON keys (name)`,
  `CREATE TABLE meta (k TEXT PRIMARY KEY, v BIGINT NOT NULL)`,
  `INSERT INTO meta (k, v) VALUES ('keys_version', 0)`,
  `CREATE TABLE usage (
     id BIGSERIAL PRIMARY KEY, ts BIGINT NOT NULL, request_id TEXT NOT NULL, key_id TEXT NOT NULL,
     endpoint TEXT NOT NULL, model TEXT NOT NULL, deployment TEXT, status INTEGER NOT NULL,
     input_tokens BIGINT NOT NULL, output_tokens BIGINT NOT NULL, cache_read_tokens BIGINT NOT NULL,
     cache_write_tokens BIGINT NOT NULL, cost_nanos BIGINT NOT NULL, latency_ms BIGINT NOT NULL,
     ttfb_ms BIGINT, streamed BOOLEAN NOT NULL, attempts INTEGER NOT NULL, period_start BIGINT NOT NULL,
     error_code TEXT)`,
  // Reports select a time range, then maybe a key (as the SQLite store's index).
  `CREATE INDEX usage_ts ON usage (ts)`,
  `CREATE TABLE key_spend (
     key_id TEXT NOT NULL, period_start BIGINT NOT NULL, spent_nanos BIGINT NOT NULL, spent_tokens BIGINT NOT NULL,
     PRIMARY KEY (key_id, period_start))`,
  // A panic-routed request says so in its row.
  `ALTER TABLE usage ADD COLUMN routing TEXT`,
  // Each gateway's row, so one that counts limits in its own memory can tell it is not alone (solo-guard.ts).
  `CREATE TABLE gateways (
     id TEXT PRIMARY KEY, host TEXT NOT NULL, pid INTEGER NOT NULL, started_at BIGINT NOT NULL,
     beat_at BIGINT NOT NULL, shared BOOLEAN NOT NULL)`,
  // Cost breakdown: each row's charged classes, counts and unit prices (JSON), as priced when it ran.
  `ALTER TABLE usage ADD COLUMN cost_breakdown TEXT`,
  // Redactions: the texts the stages masked in a request and its reply (docs/redaction.md).
  `ALTER TABLE usage ADD COLUMN redactions INTEGER NOT NULL DEFAULT 0`,
  // The agent session a request belongs to (usage reports group by it).
  `ALTER TABLE usage ADD COLUMN session_id TEXT`,
  // MCP rights: the key's `mcp_tools` patterns as JSON; NULL = every configured tool, `[]` = none.
  `ALTER TABLE keys ADD COLUMN mcp_tools TEXT`,
  // MCP tool calls are usage rows too (endpoint `/mcp`): the bytes of their arguments and results.
  `ALTER TABLE usage ADD COLUMN request_bytes BIGINT`,
  `ALTER TABLE usage ADD COLUMN response_bytes BIGINT`,
  // The team a key belongs to, by name (a team administrator manages its team's keys).
  `ALTER TABLE keys ADD COLUMN team TEXT`,
  // Deleted keys leave their name behind: reports and the request log still name whose rows they were.
  `CREATE TABLE IF NOT EXISTS deleted_keys (
     id TEXT PRIMARY KEY, name TEXT NOT NULL, masked TEXT NOT NULL, team TEXT, deleted_at BIGINT NOT NULL)`,
  // Rotation: the secret a key had before its last rotation, valid until `previous_until` (unix ms).
  `ALTER TABLE keys ADD COLUMN previous_hash TEXT`,
  `ALTER TABLE keys ADD COLUMN previous_until BIGINT`,
  `CREATE INDEX IF NOT EXISTS keys_previous_hash ON keys (previous_hash)`,
  // Teams: limits and rights above their keys; keys name their team by `name`.
  `CREATE TABLE teams (
     id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, models TEXT, mcp_tools TEXT,
     budget_usd DOUBLE PRECISION, token_budget BIGINT, budget_period TEXT,
     rpm BIGINT, tpm BIGINT, max_concurrency BIGINT, created_at BIGINT NOT NULL)`,
  // The request log for incidents: a failed request's error message as its caller saw it (masked), and
  // each upstream attempt (deployment, status, outcome, duration) as JSON.
  `ALTER TABLE usage ADD COLUMN error_message TEXT`,
  `ALTER TABLE usage ADD COLUMN attempt_log TEXT`,
  // Each key's latest request, kept by the usage writer, so the key list shows it without a usage scan.
  `CREATE TABLE IF NOT EXISTS key_last_used (key_id TEXT PRIMARY KEY, ts BIGINT NOT NULL)`,
  `INSERT INTO key_last_used (key_id, ts) SELECT key_id, MAX(ts) FROM usage GROUP BY key_id`,
  // Body logging (config body_log): the masked request and reply of the chosen keys' requests, kept for
  // the retention period.
  `CREATE TABLE request_bodies (
     request_id TEXT NOT NULL, ts BIGINT NOT NULL, key_id TEXT NOT NULL, request TEXT, response TEXT)`,
  `CREATE INDEX request_bodies_id ON request_bodies (request_id)`,
  `CREATE INDEX request_bodies_ts ON request_bodies (ts)`,
];

/** The keys and usage schema (migrations.ts): its steps only ever grow at the end. */
export const PG_MIGRATIONS: Migrations = { name: 'keys and usage', table: 'schema_version', steps: MIGRATIONS };

/** Any constant: replicas starting at once take turns at the migrations instead of racing them. */
const MIGRATION_LOCK = 0x6d67_0001;

interface KeyDbRow {
  id: string;
  name: string;
  hash: string;
  masked: string;
  models: string | null;
  mcp_tools?: string | null;
  team?: string | null;
  previous_hash?: string | null;
  previous_until?: number | string | null;
  expires_at: number | null;
  disabled: boolean;
  budget_usd: number | null;
  token_budget: number | null;
  budget_period: string | null;
  rpm: number | null;
  tpm: number | null;
  max_concurrency: number | null;
  created_at: number;
}

export class PostgresStore implements Store {
  readonly #sql: Sql;
  /** Started on the first usage write: the CLI never writes usage, so it never starts one. */
  readonly #thread: UsageThread;

  private constructor(sql: Sql, writer: { url: string; schema: string | null }) {
    this.#sql = sql;
    this.#thread = new UsageThread(POSTGRES_WRITER, writer);
  }

  /**
   * Connects, creates the schema when the URL names one, and migrates. The client loads only here, so a
   * gateway on SQLite never pays its memory.
   */
  static async open(databaseUrl: string, onMigrated?: OnMigrated): Promise<PostgresStore> {
    const { url, schema } = parseDatabaseUrl(databaseUrl);
    const { default: connect } = await import('postgres');
    const sql = connect(url, {
      ...connectionOptions({ schema, applicationName: 'modelgate' }),
      // The key poll, a spend read and the CLI at once; requests never wait on the database.
      max: 4,
      // BIGINT and the sums over it come back as numbers: every amount here is below 2^53 (nano-USD
      // totals reach that at 9 million USD).
      types: {
        bigint: { to: 20, from: [20, 1700], serialize: (x: number) => String(x), parse: (x: string) => Number(x) },
      },
    }) as unknown as Sql;
    try {
      reportPg(PG_MIGRATIONS, await migrate(sql, schema), onMigrated);
    } catch (err) {
      await sql.end({ timeout: 1 }).catch(() => undefined);
      throw new Error(`PostgreSQL at ${maskDatabaseUrl(databaseUrl)}: ${(err as Error).message}`);
    }
    return new PostgresStore(sql, { url, schema });
  }

  async insertKey(k: KeyRecord): Promise<void> {
    await this.#sql.begin(async (tx) => {
      await tx`INSERT INTO keys (id, name, hash, masked, models, expires_at, disabled, budget_usd, token_budget,
          budget_period, rpm, tpm, max_concurrency, created_at, mcp_tools, team)
        VALUES (${k.id}, ${k.name}, ${k.hash}, ${k.masked}, ${k.models ? JSON.stringify(k.models) : null}, ${k.expiresAt},
          ${k.disabled}, ${k.budgetUsd}, ${k.tokenBudget}, ${k.budgetPeriod}, ${k.rpm}, ${k.tpm}, ${k.maxConcurrency}, ${k.createdAt},
          ${mcpToolsColumn(k.mcpTools)}, ${k.team ?? null})`;
      await bumpVersion(tx);
    });
  }

  async updateKey(id: string, patch: Partial<KeyRecord>): Promise<boolean> {
    const sets: Record<string, string | number | boolean | null> = {};
    for (const [field, value] of Object.entries(patch)) {
      const col = KEY_COLUMNS[field];
      if (!col || value === undefined) continue;
      sets[col] =
        field === 'models'
          ? value
            ? JSON.stringify(value)
            : null
          : field === 'mcpTools'
            ? mcpToolsColumn(value as string[] | null)
            : (value as string | number | boolean | null);
    }
    const cols = Object.keys(sets);
    if (cols.length === 0) return (await this.findKey(id)) !== null;
    return this.#sql.begin(async (tx) => {
      const res = await tx`UPDATE keys SET ${tx(sets, cols)} WHERE id = ${id}`;
      if (res.count > 0) await bumpVersion(tx);
      return res.count > 0;
    });
  }

  async deleteKey(id: string): Promise<boolean> {
    return this.#sql.begin(async (tx) => {
      await tx`INSERT INTO deleted_keys (id, name, masked, team, deleted_at)
        SELECT id, name, masked, team, ${Date.now()} FROM keys WHERE id = ${id} ON CONFLICT (id) DO NOTHING`;
      const res = await tx`DELETE FROM keys WHERE id = ${id}`;
      if (res.count > 0) await bumpVersion(tx);
      return res.count > 0;
    });
  }

  async rotateKey(id: string, to: KeyRotation): Promise<boolean> {
    return this.#sql.begin(async (tx) => {
      const res = await tx`UPDATE keys SET hash = ${to.hash}, masked = ${to.masked}, previous_hash = ${to.previousHash},
        previous_until = ${to.previousUntil} WHERE id = ${id}`;
      if (res.count > 0) await bumpVersion(tx);
      return res.count > 0;
    });
  }

  async listDeletedKeys(): Promise<DeletedKey[]> {
    const rows = await this.#sql<DeletedKey[]>`SELECT id, name, masked, team FROM deleted_keys ORDER BY deleted_at`;
    return rows.map((r) => ({ id: r.id, name: r.name, masked: r.masked, team: r.team ?? null }));
  }

  async findKey(idOrName: string): Promise<KeyRecord | null> {
    const byId = await this.#sql<KeyDbRow[]>`SELECT * FROM keys WHERE id = ${idOrName}`;
    const row =
      byId[0] ??
      (await this.#sql<KeyDbRow[]>`SELECT * FROM keys WHERE name = ${idOrName} ORDER BY created_at DESC LIMIT 1`)[0];
    return row ? toKey(row) : null;
  }

  async requestBodies(requestId: string): Promise<{ request: string | null; response: string | null } | null> {
    const rows = await this.#sql<{ request: string | null; response: string | null }[]>`SELECT request, response
      FROM request_bodies WHERE request_id = ${requestId} ORDER BY ts DESC LIMIT 1`;
    return rows[0] === undefined ? null : { request: rows[0].request, response: rows[0].response };
  }

  async purgeBodies(beforeMs: number): Promise<number> {
    return (await this.#sql`DELETE FROM request_bodies WHERE ts < ${beforeMs}`).count;
  }

  async listTeams(): Promise<TeamRecord[]> {
    return (await this.#sql<TeamDbRow[]>`SELECT * FROM teams ORDER BY created_at, name`).map(toTeam);
  }

  async findTeam(idOrName: string): Promise<TeamRecord | null> {
    const row = (
      await this.#sql<TeamDbRow[]>`SELECT * FROM teams WHERE id = ${idOrName} OR name = ${idOrName}
        ORDER BY (id = ${idOrName}) DESC LIMIT 1`
    )[0];
    return row ? toTeam(row) : null;
  }

  async insertTeam(t: TeamRecord): Promise<void> {
    await this.#sql.begin(async (tx) => {
      await tx`INSERT INTO teams (id, name, models, mcp_tools, budget_usd, token_budget, budget_period, rpm, tpm,
          max_concurrency, created_at)
        VALUES (${t.id}, ${t.name}, ${listColumn(t.models)}, ${listColumn(t.mcpTools)}, ${t.budgetUsd}, ${t.tokenBudget},
          ${t.budgetPeriod}, ${t.rpm}, ${t.tpm}, ${t.maxConcurrency}, ${t.createdAt})`;
      await bumpVersion(tx);
    });
  }

  async updateTeam(id: string, patch: TeamPatch): Promise<boolean> {
    const sets: Record<string, string | number | null> = {};
    for (const [field, value] of Object.entries(patch)) {
      const col = TEAM_COLUMNS[field];
      if (!col || value === undefined) continue;
      sets[col] =
        field === 'models' || field === 'mcpTools'
          ? listColumn(value as string[] | null)
          : (value as string | number | null);
    }
    const cols = Object.keys(sets);
    if (cols.length === 0) return (await this.findTeam(id)) !== null;
    return this.#sql.begin(async (tx) => {
      const before = await tx<{ name: string }[]>`SELECT name FROM teams WHERE id = ${id} FOR UPDATE`;
      const res = await tx`UPDATE teams SET ${tx(sets, cols)} WHERE id = ${id}`;
      if (before[0] !== undefined && patch.name !== undefined && patch.name !== before[0].name)
        await tx`UPDATE keys SET team = ${patch.name} WHERE team = ${before[0].name}`;
      if (res.count > 0) await bumpVersion(tx);
      return res.count > 0;
    });
  }

  async deleteTeam(id: string): Promise<boolean> {
    return this.#sql.begin(async (tx) => {
      const res = await tx`DELETE FROM teams WHERE id = ${id}`;
      if (res.count > 0) await bumpVersion(tx);
      return res.count > 0;
    });
  }

  async findKeyByHash(hash: string): Promise<KeyRecord | null> {
    const row = (
      await this.#sql<KeyDbRow[]>`SELECT * FROM keys WHERE hash = ${hash} OR previous_hash = ${hash}
      ORDER BY (hash = ${hash}) DESC LIMIT 1`
    )[0];
    return row ? toKey(row) : null;
  }

  async listKeys(): Promise<KeyRecord[]> {
    return (await this.#sql<KeyDbRow[]>`SELECT * FROM keys ORDER BY created_at`).map(toKey);
  }

  async keysVersion(): Promise<number> {
    const rows = await this.#sql<{ v: number }[]>`SELECT v FROM meta WHERE k = 'keys_version'`;
    return rows[0]?.v ?? 0;
  }

  /**
   * On a thread of its own (pg-usage-worker.js), as SQLite's rows are: the driver builds the wire protocol
   * in JavaScript, CPU a row that the event loop then no longer pays.
   */
  async writeUsage(rows: UsageRow[]): Promise<void> {
    if (rows.length === 0) return;
    return this.#thread.write(rows, WRITE_SLICE_ROWS);
  }

  async keySpend(keyId: string, periodStart: number): Promise<SpendTotals> {
    const rows = await this.#sql<
      { nanos: number; tokens: number }[]
    >`SELECT COALESCE(SUM(spent_nanos), 0)::int8 AS nanos,
        COALESCE(SUM(spent_tokens), 0)::int8 AS tokens FROM key_spend WHERE key_id = ${keyId} AND period_start >= ${periodStart}`;
    return { nanos: rows[0].nanos, tokens: rows[0].tokens };
  }

  async spendByPeriod(since: number): Promise<PeriodSpend[]> {
    const rows = await this.#sql<PeriodSpend[]>`SELECT key_id AS "keyId", period_start AS "periodStart",
        spent_nanos AS nanos, spent_tokens AS tokens FROM key_spend WHERE period_start >= ${since}`;
    return [...rows];
  }

  async usageSummary(opts: { sinceMs?: number; keyId?: string }): Promise<UsageSummaryRow[]> {
    const keyId = opts.keyId ?? null;
    // The same report as the SQLite store's, row for row (keys without a name first, as SQLite sorts NULL).
    const rows = await this.#sql<
      UsageSummaryRow[]
    >`SELECT to_char(to_timestamp(u.ts / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
        u.key_id AS "keyId", COALESCE(k.name, dk.name) AS "keyName", u.model AS model, COUNT(*)::int8 AS requests,
        SUM(CASE WHEN u.status >= 400 THEN 1 ELSE 0 END)::int8 AS errors,
        SUM(u.input_tokens + u.cache_read_tokens + u.cache_write_tokens)::int8 AS "inputTokens",
        SUM(u.output_tokens)::int8 AS "outputTokens", SUM(u.cost_nanos)::int8 AS "costNanos"
      FROM usage u LEFT JOIN keys k ON k.id = u.key_id LEFT JOIN deleted_keys dk ON dk.id = u.key_id
      WHERE u.ts >= ${opts.sinceMs ?? 0} AND (${keyId}::text IS NULL OR u.key_id = ${keyId})
      GROUP BY day, u.key_id, k.name, dk.name, u.model ORDER BY day, "keyName" NULLS FIRST, u.model`;
    return [...rows];
  }

  async keysLastUsed(): Promise<Map<string, number>> {
    const rows = await this.#sql<{ key_id: string; ts: string | number }[]>`SELECT key_id, ts FROM key_last_used`;
    return new Map(rows.map((r) => [r.key_id, Number(r.ts)]));
  }

  async usageGroups(filter: UsageFilter, dims: UsageDimension[]): Promise<UsageGroup[]> {
    const { sums, latencies } = usageGroupQueries(filter, dims, (n) => `$${n}`);
    const [sumRows, latencyRows] = await Promise.all([
      this.#sql.unsafe(sums.text, sums.params),
      this.#sql.unsafe(latencies.text, latencies.params),
    ]);
    return usageGroupsFrom(dims, sumRows as unknown as SumsRow[], latencyRows as unknown as Record<string, unknown>[]);
  }

  async usageRecords(filter: UsageFilter, page: { limit: number; beforeId?: number }): Promise<UsageRecord[]> {
    const q = usageRecordsQuery(filter, page, (n) => `$${n}`);
    return (await this.#sql.unsafe(q.text, q.params)).map((r) => usageRecordFrom(r as Record<string, unknown>));
  }

  async putGateway(g: GatewayBeat): Promise<void> {
    await this.#sql`INSERT INTO gateways (id, host, pid, started_at, beat_at, shared)
      VALUES (${g.id}, ${g.host}, ${g.pid}, ${g.startedAt}, ${g.beatAt}, ${g.shared})
      ON CONFLICT (id) DO UPDATE SET beat_at = excluded.beat_at`;
  }

  async listGateways(): Promise<GatewayBeat[]> {
    const rows = await this.#sql<
      { id: string; host: string; pid: number; started_at: number; beat_at: number; shared: boolean }[]
    >`SELECT id, host, pid, started_at, beat_at, shared FROM gateways`;
    return rows.map((r) => ({
      id: r.id,
      host: r.host,
      pid: r.pid,
      startedAt: r.started_at,
      beatAt: r.beat_at,
      shared: r.shared,
    }));
  }

  async removeGateway(id: string): Promise<void> {
    await this.#sql`DELETE FROM gateways WHERE id = ${id}`;
  }

  async close(): Promise<void> {
    await this.#thread.close();
    await this.#sql.end({ timeout: 5 });
  }
}

/** Returns the version found, for the report once committed. */
async function migrate(sql: Sql, schema: string | null): Promise<number> {
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    // Under the lock: CREATE SCHEMA IF NOT EXISTS is not safe against another session doing the same.
    if (schema !== null) await tx.unsafe(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    return migratePg(tx, PG_MIGRATIONS);
  });
}

async function bumpVersion(tx: postgres.TransactionSql<Record<string, unknown>>): Promise<void> {
  await tx`UPDATE meta SET v = v + 1 WHERE k = 'keys_version'`;
}

function toKey(r: KeyDbRow): KeyRecord {
  return {
    id: r.id,
    name: r.name,
    hash: r.hash,
    masked: r.masked,
    mcpTools: r.mcp_tools === null || r.mcp_tools === undefined ? null : (JSON.parse(r.mcp_tools) as string[]),
    team: r.team ?? null,
    ...(r.previous_hash === null || r.previous_hash === undefined
      ? {}
      : { previousHash: r.previous_hash, previousUntil: Number(r.previous_until ?? 0) }),
    models: r.models ? (JSON.parse(r.models) as string[]) : null,
    expiresAt: r.expires_at,
    disabled: r.disabled,
    budgetUsd: r.budget_usd,
    tokenBudget: r.token_budget,
    budgetPeriod: r.budget_period as BudgetPeriod | null,
    rpm: r.rpm,
    tpm: r.tpm,
    maxConcurrency: r.max_concurrency,
    createdAt: r.created_at,
  };
}

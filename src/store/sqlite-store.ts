// SQLite implementation of Store on node:sqlite (WAL mode, so the CLI and the server share the file).
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { closeSync, mkdirSync, openSync } from 'node:fs';
// After the I/O callbacks already due: requests that arrived meanwhile are served first.
import { setImmediate as yieldToIo } from 'node:timers/promises';
import { dirname } from 'node:path';
import type { BudgetPeriod, KeyRecord } from '../core/key-record.ts';
import type { TeamRecord } from '../core/team-record.ts';
import { listColumn, toTeam, type TeamDbRow } from './team-rows.ts';
import {
  KEY_COLUMNS,
  TEAM_COLUMNS,
  mcpToolsColumn,
  type TeamPatch,
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
import {
  BESIDE_THREAD_CHECKPOINT_PAGES,
  busyTimeoutPragma,
  LOOP_CHECKPOINT_PAGES,
  openPragmas,
} from './sqlite-pragmas.js';
import {
  bodyValues,
  INSERT_BATCH,
  inTransaction,
  keyUses,
  rowValues,
  spendDeltas,
  UsageStatements,
} from './usage-sql.js';
import { SQLITE_WRITER, UsageThread, WRITE_SLICE_ROWS } from './usage-thread.ts';
import { migrateSqlite, type Migrations, type OnMigrated } from './migrations.ts';

const MIGRATIONS: string[] = [
  `CREATE TABLE keys (
     id TEXT PRIMARY KEY, name TEXT NOT NULL, hash TEXT NOT NULL UNIQUE, masked TEXT NOT NULL,
     models TEXT, expires_at INTEGER, disabled INTEGER NOT NULL DEFAULT 0,
     budget_usd REAL, token_budget INTEGER, budget_period TEXT,
     rpm INTEGER, tpm INTEGER, max_concurrency INTEGER, created_at INTEGER NOT NULL)`,
  `CREATE TABLE meta (k TEXT PRIMARY KEY, v INTEGER NOT NULL)`,
  `INSERT INTO meta (k, v) VALUES ('keys_version', 0)`,
  `CREATE TABLE usage (
     id INTEGER PRIMARY KEY, ts INTEGER NOT NULL, request_id TEXT NOT NULL, key_id TEXT NOT NULL,
     endpoint TEXT NOT NULL, model TEXT NOT NULL, deployment TEXT, status INTEGER NOT NULL,
     input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL, cache_read_tokens INTEGER NOT NULL,
     cache_write_tokens INTEGER NOT NULL, cost_nanos INTEGER NOT NULL, latency_ms INTEGER NOT NULL,
     ttfb_ms INTEGER, streamed INTEGER NOT NULL, attempts INTEGER NOT NULL, period_start INTEGER NOT NULL,
     error_code TEXT)`,
  `CREATE INDEX usage_key_ts ON usage (key_id, ts)`,
  `CREATE TABLE key_spend (
     key_id TEXT NOT NULL, period_start INTEGER NOT NULL, spent_nanos INTEGER NOT NULL, spent_tokens INTEGER NOT NULL,
     PRIMARY KEY (key_id, period_start))`,
  // Reports select a time range (then maybe a key): (key_id, ts) could not serve that and made every
  // report scan the whole table, while costing each usage row a text-keyed index insert (dearer than
  // an integer index on ts).
  `DROP INDEX IF EXISTS usage_key_ts`,
  `CREATE INDEX usage_ts ON usage (ts)`,
  // Gateways serving from this file: a second one without a shared admission store must know.
  `CREATE TABLE gateways (
     id TEXT PRIMARY KEY, host TEXT NOT NULL, pid INTEGER NOT NULL, started_at INTEGER NOT NULL,
     beat_at INTEGER NOT NULL, shared INTEGER NOT NULL)`,
  // A panic-routed request says so in its row.
  `ALTER TABLE usage ADD COLUMN routing TEXT`,
  // Cost breakdown: each row's charged classes, counts and unit prices (JSON), as priced when it ran.
  `ALTER TABLE usage ADD COLUMN cost_breakdown TEXT`,
  // Redactions: the texts the stages masked in a request and its reply (docs/redaction.md).
  `ALTER TABLE usage ADD COLUMN redactions INTEGER NOT NULL DEFAULT 0`,
  // The agent session a request belongs to (usage reports group by it).
  `ALTER TABLE usage ADD COLUMN session_id TEXT`,
  // MCP rights: the key's `mcp_tools` patterns as JSON; NULL = every configured tool, `[]` = none.
  `ALTER TABLE keys ADD COLUMN mcp_tools TEXT`,
  // MCP tool calls are usage rows too (endpoint `/mcp`): the bytes of their arguments and results.
  `ALTER TABLE usage ADD COLUMN request_bytes INTEGER`,
  `ALTER TABLE usage ADD COLUMN response_bytes INTEGER`,
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
     budget_usd REAL, token_budget INTEGER, budget_period TEXT,
     rpm INTEGER, tpm INTEGER, max_concurrency INTEGER, created_at INTEGER NOT NULL)`,
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
     request_id TEXT NOT NULL, ts INTEGER NOT NULL, key_id TEXT NOT NULL, request TEXT, response TEXT)`,
  `CREATE INDEX request_bodies_id ON request_bodies (request_id)`,
  `CREATE INDEX request_bodies_ts ON request_bodies (ts)`,
];

/** The keys and usage schema (migrations.ts): its steps only ever grow at the end. */
export const SQLITE_MIGRATIONS: Migrations = { name: 'keys and usage', table: 'schema_version', steps: MIGRATIONS };

/** A key's name, masked form and team kept as it is deleted (one statement for both stores). */
const DELETED_KEY_SQL = `INSERT INTO deleted_keys (id, name, masked, team, deleted_at)
  SELECT id, name, masked, team, ? FROM keys WHERE id = ? ON CONFLICT (id) DO NOTHING`;

/** This gateway's row in the registry of gateways serving the file (solo-guard.ts), refreshed each beat. */
const PUT_GATEWAY_SQL =
  'INSERT INTO gateways (id, host, pid, started_at, beat_at, shared) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET beat_at = excluded.beat_at';

const PURGE_BODIES_SQL = 'DELETE FROM request_bodies WHERE ts < ?';

/** The per-day report; exported for the test that checks it searches the ts index instead of scanning. */
export const USAGE_SUMMARY_SQL = `SELECT strftime('%Y-%m-%d', u.ts / 1000, 'unixepoch') AS day, u.key_id AS keyId, COALESCE(k.name, dk.name) AS keyName, u.model AS model,
     COUNT(*) AS requests, SUM(CASE WHEN u.status >= 400 THEN 1 ELSE 0 END) AS errors,
     SUM(u.input_tokens + u.cache_read_tokens + u.cache_write_tokens) AS inputTokens,
     SUM(u.output_tokens) AS outputTokens, SUM(u.cost_nanos) AS costNanos
   FROM usage u LEFT JOIN keys k ON k.id = u.key_id LEFT JOIN deleted_keys dk ON dk.id = u.key_id
   WHERE u.ts >= ? AND (? IS NULL OR u.key_id = ?)
   GROUP BY day, u.key_id, u.model ORDER BY day, keyName, u.model`;

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
  disabled: number;
  budget_usd: number | null;
  token_budget: number | null;
  budget_period: string | null;
  rpm: number | null;
  tpm: number | null;
  max_concurrency: number | null;
  created_at: number;
}

/** How long a connection waits for another's write lock until told otherwise (the CLI, the start). */
const OPEN_BUSY_TIMEOUT_MS = 5000;

export interface SqliteStoreOptions {
  /** Rows between yields to the event loop while a usage batch is sent or written (tests make it small). */
  sliceRows?: number;
  /**
   * Usage rows are written by a thread of their own (usage-thread.ts), so no insert, commit or checkpoint
   * runs on the event loop. The default for a file; an in-memory database is one connection's own, so
   * it is always written in-thread.
   */
  usageThread?: boolean;
  /** Each migration step run at open, once committed. */
  onMigrated?: OnMigrated;
}

export class SqliteStore implements Store {
  #db: DatabaseSync;
  #usage: UsageStatements | null = null;
  #thread: UsageThread | null;
  #version: StatementSync;

  readonly #sliceRows: number;

  constructor(path: string, options: SqliteStoreOptions = {}) {
    this.#sliceRows = options.sliceRows ?? WRITE_SLICE_ROWS;
    const memory = path === ':memory:';
    const threaded = !memory && options.usageThread !== false;
    if (!memory) createPrivately(path);
    this.#db = new DatabaseSync(path);
    // Beside a writer thread, which checkpoints the WAL at its own commits, this connection on the event
    // loop leaves that to it (sqlite-pragmas.js).
    const checkpointPages = threaded ? BESIDE_THREAD_CHECKPOINT_PAGES : LOOP_CHECKPOINT_PAGES;
    this.#db.exec(openPragmas({ busyMs: OPEN_BUSY_TIMEOUT_MS, checkpointPages }));
    migrateSqlite(this.#db, SQLITE_MIGRATIONS, options.onMigrated);
    this.#version = this.#db.prepare(`SELECT v FROM meta WHERE k = 'keys_version'`);
    this.#thread = threaded ? new UsageThread(SQLITE_WRITER, { path }, OPEN_BUSY_TIMEOUT_MS) : null;
  }

  #bumpVersion(): void {
    this.#db.exec(`UPDATE meta SET v = v + 1 WHERE k = 'keys_version'`);
  }

  async insertKey(k: KeyRecord): Promise<void> {
    this.#db
      .prepare(
        `INSERT INTO keys (id, name, hash, masked, models, expires_at, disabled, budget_usd, token_budget, budget_period,
           rpm, tpm, max_concurrency, created_at, mcp_tools, team) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        k.id,
        k.name,
        k.hash,
        k.masked,
        k.models ? JSON.stringify(k.models) : null,
        k.expiresAt,
        k.disabled ? 1 : 0,
        k.budgetUsd,
        k.tokenBudget,
        k.budgetPeriod,
        k.rpm,
        k.tpm,
        k.maxConcurrency,
        k.createdAt,
        mcpToolsColumn(k.mcpTools),
        k.team ?? null,
      );
    this.#bumpVersion();
  }

  async updateKey(id: string, patch: Partial<KeyRecord>): Promise<boolean> {
    const sets: string[] = [];
    const values: (string | number | null)[] = [];
    for (const [field, value] of Object.entries(patch)) {
      const col = KEY_COLUMNS[field];
      if (!col || value === undefined) continue;
      sets.push(`${col} = ?`);
      if (field === 'models') values.push(value ? JSON.stringify(value) : null);
      else if (field === 'mcpTools') values.push(mcpToolsColumn(value as string[] | null));
      else if (field === 'disabled') values.push(value ? 1 : 0);
      else values.push(value as string | number | null);
    }
    if (sets.length === 0) return (await this.findKey(id)) !== null;
    const res = this.#db.prepare(`UPDATE keys SET ${sets.join(', ')} WHERE id = ?`).run(...values, id);
    if (res.changes > 0) this.#bumpVersion();
    return res.changes > 0;
  }

  async deleteKey(id: string): Promise<boolean> {
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      this.#db.prepare(DELETED_KEY_SQL).run(Date.now(), id);
      const res = this.#db.prepare('DELETE FROM keys WHERE id = ?').run(id);
      if (res.changes > 0) this.#bumpVersion();
      this.#db.exec('COMMIT');
      return res.changes > 0;
    } catch (err) {
      this.#db.exec('ROLLBACK');
      throw err;
    }
  }

  async rotateKey(id: string, to: KeyRotation): Promise<boolean> {
    const res = this.#db
      .prepare('UPDATE keys SET hash = ?, masked = ?, previous_hash = ?, previous_until = ? WHERE id = ?')
      .run(to.hash, to.masked, to.previousHash, to.previousUntil, id);
    if (res.changes > 0) this.#bumpVersion();
    return res.changes > 0;
  }

  async listDeletedKeys(): Promise<DeletedKey[]> {
    return (
      this.#db
        .prepare('SELECT id, name, masked, team FROM deleted_keys ORDER BY deleted_at')
        .all() as unknown as DeletedKey[]
    ).map((r) => ({ id: r.id, name: r.name, masked: r.masked, team: r.team ?? null }));
  }

  async findKey(idOrName: string): Promise<KeyRecord | null> {
    const row = (this.#db.prepare('SELECT * FROM keys WHERE id = ?').get(idOrName) ??
      this.#db.prepare('SELECT * FROM keys WHERE name = ? ORDER BY created_at DESC').get(idOrName)) as
      | KeyDbRow
      | undefined;
    return row ? toKey(row) : null;
  }

  async requestBodies(requestId: string): Promise<{ request: string | null; response: string | null } | null> {
    const row = this.#db
      .prepare('SELECT request, response FROM request_bodies WHERE request_id = ? ORDER BY ts DESC LIMIT 1')
      .get(requestId) as { request: string | null; response: string | null } | undefined;
    return row === undefined ? null : { request: row.request, response: row.response };
  }

  /** On the usage writer thread when there is one: ten minutes of logged bodies can be many rows to delete. */
  async purgeBodies(beforeMs: number): Promise<number> {
    if (this.#thread !== null) return this.#thread.run(PURGE_BODIES_SQL, [beforeMs]);
    return Number(this.#db.prepare(PURGE_BODIES_SQL).run(beforeMs).changes);
  }

  async listTeams(): Promise<TeamRecord[]> {
    return (this.#db.prepare('SELECT * FROM teams ORDER BY created_at, name').all() as unknown as TeamDbRow[]).map(
      toTeam,
    );
  }

  async findTeam(idOrName: string): Promise<TeamRecord | null> {
    const row = (this.#db.prepare('SELECT * FROM teams WHERE id = ?').get(idOrName) ??
      this.#db.prepare('SELECT * FROM teams WHERE name = ?').get(idOrName)) as TeamDbRow | undefined;
    return row ? toTeam(row) : null;
  }

  async insertTeam(t: TeamRecord): Promise<void> {
    this.#db
      .prepare(
        `INSERT INTO teams (id, name, models, mcp_tools, budget_usd, token_budget, budget_period, rpm, tpm,
           max_concurrency, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        t.id,
        t.name,
        listColumn(t.models),
        listColumn(t.mcpTools),
        t.budgetUsd,
        t.tokenBudget,
        t.budgetPeriod,
        t.rpm,
        t.tpm,
        t.maxConcurrency,
        t.createdAt,
      );
    this.#bumpVersion();
  }

  async updateTeam(id: string, patch: TeamPatch): Promise<boolean> {
    const sets: string[] = [];
    const values: (string | number | null)[] = [];
    for (const [field, value] of Object.entries(patch)) {
      const col = TEAM_COLUMNS[field];
      if (!col || value === undefined) continue;
      sets.push(`${col} = ?`);
      values.push(
        field === 'models' || field === 'mcpTools'
          ? listColumn(value as string[] | null)
          : (value as string | number | null),
      );
    }
    if (sets.length === 0) return (await this.findTeam(id)) !== null;
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      const before = this.#db.prepare('SELECT name FROM teams WHERE id = ?').get(id) as { name: string } | undefined;
      const res = this.#db.prepare(`UPDATE teams SET ${sets.join(', ')} WHERE id = ?`).run(...values, id);
      if (before !== undefined && patch.name !== undefined && patch.name !== before.name)
        this.#db.prepare('UPDATE keys SET team = ? WHERE team = ?').run(patch.name, before.name);
      if (res.changes > 0) this.#bumpVersion();
      this.#db.exec('COMMIT');
      return res.changes > 0;
    } catch (err) {
      this.#db.exec('ROLLBACK');
      throw err;
    }
  }

  async deleteTeam(id: string): Promise<boolean> {
    const res = this.#db.prepare('DELETE FROM teams WHERE id = ?').run(id);
    if (res.changes > 0) this.#bumpVersion();
    return res.changes > 0;
  }

  async findKeyByHash(hash: string): Promise<KeyRecord | null> {
    const row = (this.#db.prepare('SELECT * FROM keys WHERE hash = ?').get(hash) ??
      this.#db.prepare('SELECT * FROM keys WHERE previous_hash = ?').get(hash)) as KeyDbRow | undefined;
    return row ? toKey(row) : null;
  }

  async listKeys(): Promise<KeyRecord[]> {
    return (this.#db.prepare('SELECT * FROM keys ORDER BY created_at').all() as unknown as KeyDbRow[]).map(toKey);
  }

  async keysVersion(): Promise<number> {
    return (this.#version.get() as { v: number }).v;
  }

  /**
   * How long a write waits for another process's write lock (5 s at open, for the CLI and the start).
   * node:sqlite waits on its caller's thread, so the serving gateway gives this connection, on the event
   * loop, a short one (a write there never freezes requests for long) and the usage writer thread a
   * longer one (`writerMs`): its wait holds no request, so a lock taken for a moment (a CLI write, a
   * checkpoint) is waited out instead of failing the batch; a longer one still fails it, and the
   * batch is reported and retried (usage-writer.ts).
   */
  busyTimeout(ms: number, writerMs = ms): void {
    this.#db.exec(busyTimeoutPragma(ms));
    this.#thread?.busyTimeout(writerMs);
  }

  async writeUsage(rows: UsageRow[]): Promise<void> {
    if (rows.length === 0) return;
    if (this.#thread !== null) return this.#thread.write(rows, this.#sliceRows);
    const usage = (this.#usage ??= new UsageStatements(this.#db));
    // One transaction for the whole batch, even across the yields below: a commit per slice costs a WAL
    // sync point and a checkpoint check each, and a batch is all or nothing.
    await inTransaction(this.#db, async () => {
      let sinceYield = 0;
      for (let i = 0; i < rows.length; i += INSERT_BATCH) {
        // Requests that arrived meanwhile are served between slices.
        if (sinceYield >= this.#sliceRows) {
          sinceYield = 0;
          await yieldToIo();
        }
        const part = rows.length <= INSERT_BATCH ? rows : rows.slice(i, i + INSERT_BATCH);
        sinceYield += part.length;
        usage.insert(rowValues(part));
      }
      usage.addSpend(spendDeltas(rows));
      usage.touchKeys(keyUses(rows));
      usage.addBodies(bodyValues(rows));
    });
  }

  async keySpend(keyId: string, periodStart: number): Promise<SpendTotals> {
    const row = this.#db
      .prepare(
        'SELECT COALESCE(SUM(spent_nanos), 0) AS nanos, COALESCE(SUM(spent_tokens), 0) AS tokens FROM key_spend WHERE key_id = ? AND period_start >= ?',
      )
      .get(keyId, periodStart) as { nanos: number; tokens: number };
    return { nanos: row.nanos, tokens: row.tokens };
  }

  async spendByPeriod(since: number): Promise<PeriodSpend[]> {
    return this.#db
      .prepare(
        'SELECT key_id AS keyId, period_start AS periodStart, spent_nanos AS nanos, spent_tokens AS tokens FROM key_spend WHERE period_start >= ?',
      )
      .all(since) as unknown as PeriodSpend[];
  }

  async keysLastUsed(): Promise<Map<string, number>> {
    const rows = this.#db.prepare('SELECT key_id, ts FROM key_last_used').all() as { key_id: string; ts: number }[];
    return new Map(rows.map((r) => [r.key_id, Number(r.ts)]));
  }

  async usageSummary(opts: { sinceMs?: number; keyId?: string }): Promise<UsageSummaryRow[]> {
    const rows = this.#db.prepare(USAGE_SUMMARY_SQL).all(opts.sinceMs ?? 0, opts.keyId ?? null, opts.keyId ?? null);
    return rows as unknown as UsageSummaryRow[];
  }

  /**
   * On the event loop: one row, no checkpoint (see the constructor), and cheaper than a message to the
   * thread. While a usage batch is pending, the writer thread may hold the write lock until the loop sends
   * the batch's last rows: the beat then waits for it on the thread, after that batch, not on the loop.
   */
  async putGateway(g: GatewayBeat): Promise<void> {
    const values = [g.id, g.host, g.pid, g.startedAt, g.beatAt, g.shared ? 1 : 0];
    if (this.#thread?.pending === true) await this.#thread.run(PUT_GATEWAY_SQL, values);
    else this.#db.prepare(PUT_GATEWAY_SQL).run(...values);
  }

  async listGateways(): Promise<GatewayBeat[]> {
    const rows = this.#db.prepare('SELECT id, host, pid, started_at, beat_at, shared FROM gateways').all() as {
      id: string;
      host: string;
      pid: number;
      started_at: number;
      beat_at: number;
      shared: number;
    }[];
    return rows.map((r) => ({
      id: r.id,
      host: r.host,
      pid: r.pid,
      startedAt: r.started_at,
      beatAt: r.beat_at,
      shared: r.shared === 1,
    }));
  }

  async removeGateway(id: string): Promise<void> {
    this.#db.prepare('DELETE FROM gateways WHERE id = ?').run(id);
  }

  async usageGroups(filter: UsageFilter, dims: UsageDimension[]): Promise<UsageGroup[]> {
    const { sums, latencies } = usageGroupQueries(filter, dims, () => '?');
    const sumRows = this.#db.prepare(sums.text).all(...sums.params) as unknown as SumsRow[];
    const latencyRows = this.#db.prepare(latencies.text).all(...latencies.params) as Record<string, unknown>[];
    return usageGroupsFrom(dims, sumRows, latencyRows);
  }

  async usageRecords(filter: UsageFilter, page: { limit: number; beforeId?: number }): Promise<UsageRecord[]> {
    const q = usageRecordsQuery(filter, page, () => '?');
    return (this.#db.prepare(q.text).all(...q.params) as Record<string, unknown>[]).map(usageRecordFrom);
  }

  async close(): Promise<void> {
    await this.#thread?.close();
    if (this.#db.isOpen) this.#db.close();
  }
}

/**
 * The database holds key hashes and every caller's usage: a directory or file made here is the owner's
 * alone (SQLite gives its -wal and -shm files the database file's mode). Existing ones are left as they are.
 */
function createPrivately(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}

function toKey(r: KeyDbRow): KeyRecord {
  return {
    id: r.id,
    name: r.name,
    hash: r.hash,
    masked: r.masked,
    models: r.models ? (JSON.parse(r.models) as string[]) : null,
    expiresAt: r.expires_at,
    disabled: r.disabled === 1,
    budgetUsd: r.budget_usd,
    tokenBudget: r.token_budget,
    budgetPeriod: r.budget_period as BudgetPeriod | null,
    rpm: r.rpm,
    tpm: r.tpm,
    maxConcurrency: r.max_concurrency,
    createdAt: r.created_at,
    mcpTools: r.mcp_tools === null || r.mcp_tools === undefined ? null : (JSON.parse(r.mcp_tools) as string[]),
    team: r.team ?? null,
    ...(r.previous_hash === null || r.previous_hash === undefined
      ? {}
      : { previousHash: r.previous_hash, previousUntil: Number(r.previous_until ?? 0) }),
  };
}

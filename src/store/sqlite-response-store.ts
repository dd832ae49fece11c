// Stored responses in the gateway's SQLite file. The table is migrated and purged at start (its own
// migration record, so the key and usage migrations stay as they are); requests are served by a thread
// with its own connection (sqlite-response-worker.js), so no stored-response I/O runs on the event loop.
// The thread starts with the first Responses request that stores or reads, or when a stored response
// expires: a gateway without Responses traffic never runs it. An in-memory database belongs to one
// connection: it is served in-thread (tests).
import { DatabaseSync } from 'node:sqlite';
import { Worker } from 'node:worker_threads';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { LOOP_CHECKPOINT_PAGES, openPragmas } from './sqlite-pragmas.js';
import {
  prepareResponseStatements,
  RESPONSE_MIGRATIONS,
  RESPONSE_SQL,
  runResponseOp,
  type FromResponseThread,
  type ResponseRow,
  type ResponseUsage,
  type ToResponseThread,
} from './response-sql.js';
import type { ResponseStore, StoredResponse, StoredUsage } from './response-store.ts';
import { migrateSqlite, type Migrations, type OnMigrated } from './migrations.ts';

const WORKER = new URL('./sqlite-response-worker.js', import.meta.url);

type Op = ToResponseThread['op'];

/** The stored responses schema (migrations.ts): its steps only ever grow at the end. */
export const SQLITE_RESPONSE_MIGRATIONS: Migrations = {
  name: 'stored responses',
  table: 'responses_schema_version',
  steps: RESPONSE_MIGRATIONS,
};

export class SqliteResponseStore implements ResponseStore {
  /** In-thread statements (`:memory:`), or null when the thread serves. */
  #local: ReturnType<typeof prepareResponseStatements> | null = null;
  #db: DatabaseSync | null = null;
  #worker: Worker | null = null;
  #closed = false;
  readonly #waiting = new Map<
    number,
    { resolve: (v: ResponseRow | ResponseUsage | number | null) => void; reject: (e: Error) => void }
  >();
  #nextId = 0;
  readonly #path: string;
  /** The earliest expiry of a stored row (unix ms; Infinity when none): the purge has nothing to do before it. */
  #nextExpiry: number;

  constructor(path: string, onMigrated?: OnMigrated) {
    this.#path = path;
    const memory = path === ':memory:';
    if (!memory) mkdirSync(dirname(path), { recursive: true });
    const db = new DatabaseSync(path);
    db.exec(openPragmas({ busyMs: 5000, checkpointPages: LOOP_CHECKPOINT_PAGES }));
    migrateSqlite(db, SQLITE_RESPONSE_MIGRATIONS, onMigrated);
    db.prepare(RESPONSE_SQL.purge).run(Date.now());
    this.#nextExpiry = (db.prepare(RESPONSE_SQL.next).get() as { next: number | null }).next ?? Infinity;
    if (memory) {
      this.#db = db;
      this.#local = prepareResponseStatements(db);
    } else db.close();
  }

  #start(): Worker {
    const worker = new Worker(WORKER, {
      workerData: { path: this.#path },
      name: 'responses',
      resourceLimits: { maxYoungGenerationSizeMb: 4 },
    });
    worker.on('message', (m: FromResponseThread) => {
      const w = this.#waiting.get(m.id);
      this.#waiting.delete(m.id);
      if (m.error === null) w?.resolve(m.result);
      else w?.reject(new Error(`stored responses: ${m.error}`));
    });
    worker.on('error', (err) => this.#failAll(err));
    worker.on('exit', () => this.#failAll(new Error('stored responses: the thread stopped')));
    worker.unref();
    this.#worker = worker;
    return worker;
  }

  #run(op: Op, args: (string | number | null)[]): Promise<ResponseRow | ResponseUsage | number | null> {
    if (this.#local !== null) return Promise.resolve(runResponseOp(this.#local, op, args));
    if (this.#closed) return Promise.reject(new Error('stored responses: closed'));
    const worker = this.#worker ?? this.#start();
    const id = ++this.#nextId;
    const message: ToResponseThread = { id, op, args };
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      worker.postMessage(message);
    });
  }

  #failAll(err: Error): void {
    for (const w of this.#waiting.values()) w.reject(err);
    this.#waiting.clear();
    this.#worker = null;
  }

  async put(r: StoredResponse): Promise<void> {
    if (r.expiresAt < this.#nextExpiry) this.#nextExpiry = r.expiresAt;
    await this.#run('put', [
      r.id,
      r.keyId,
      r.deployment,
      r.native ? 1 : 0,
      r.createdAt,
      r.expiresAt,
      r.response,
      r.items,
      r.previousId === undefined || r.previousId === r.id ? null : r.previousId,
    ]);
  }

  async usage(keyId: string, now: number): Promise<StoredUsage> {
    const u = (await this.#run('usage', [keyId, now])) as ResponseUsage;
    return { turns: Number(u.turns), bytes: Number(u.bytes) };
  }

  async get(id: string, keyId: string, now: number): Promise<StoredResponse | null> {
    const row = (await this.#run('get', [id, keyId, now])) as ResponseRow | null;
    return row === null
      ? null
      : {
          id: row.id,
          keyId: row.key_id,
          deployment: row.deployment,
          native: row.native === 1,
          createdAt: row.created_at,
          expiresAt: row.expires_at,
          response: row.response,
          items: row.items,
          previousId: row.previous_id,
        };
  }

  async delete(id: string, keyId: string): Promise<boolean> {
    return ((await this.#run('delete', [id, keyId])) as number) > 0;
  }

  async purge(now: number): Promise<number> {
    if (now < this.#nextExpiry) return 0;
    const removed = (await this.#run('purge', [now])) as number;
    this.#nextExpiry = ((await this.#run('next', [])) as number | null) ?? Infinity;
    return removed;
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#db?.isOpen) this.#db.close();
    const worker = this.#worker;
    if (worker === null) return;
    this.#worker = null;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage('close');
    await exited;
  }
}

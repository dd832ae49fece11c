// Conversations in the gateway's SQLite file: migrated at open, served by a thread with its own
// connection (sqlite-conversation-worker.js) started by the first request that needs it; an in-memory
// database belongs to one connection and is served in-thread (tests).
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { Worker } from 'node:worker_threads';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { LOOP_CHECKPOINT_PAGES, openPragmas } from './sqlite-pragmas.js';
import {
  CONVERSATION_MIGRATIONS,
  runConversationOps,
  type ConversationOp,
  type FromConversationThread,
  type ToConversationThread,
} from './conversation-sql.js';
import { ConversationStore } from './conversation-store.ts';

const WORKER = new URL('./sqlite-conversation-worker.js', import.meta.url);

export function openSqliteConversations(path: string): ConversationStore {
  const memory = path === ':memory:';
  if (!memory) mkdirSync(dirname(path), { recursive: true });
  const db = new DatabaseSync(path);
  db.exec(openPragmas({ busyMs: 5000, checkpointPages: LOOP_CHECKPOINT_PAGES }));
  migrate(db);
  if (memory) {
    const cache = new Map<string, StatementSync>();
    return new ConversationStore(
      (ops) => Promise.resolve(runConversationOps(db, cache, ops)),
      async () => {
        if (db.isOpen) db.close();
      },
    );
  }
  db.close();
  const thread = new ConversationThread(path);
  return new ConversationStore(
    (ops) => thread.run(ops),
    () => thread.close(),
  );
}

class ConversationThread {
  #worker: Worker | null = null;
  #closed = false;
  readonly #waiting = new Map<number, { resolve: (v: unknown[]) => void; reject: (e: Error) => void }>();
  #nextId = 0;
  readonly #path: string;

  constructor(path: string) {
    this.#path = path;
  }

  #start(): Worker {
    const worker = new Worker(WORKER, {
      workerData: { path: this.#path },
      name: 'conversations',
      resourceLimits: { maxYoungGenerationSizeMb: 4 },
    });
    worker.on('message', (m: FromConversationThread) => {
      const w = this.#waiting.get(m.id);
      this.#waiting.delete(m.id);
      if (m.error === null) w?.resolve(m.result ?? []);
      else w?.reject(new Error(`conversations: ${m.error}`));
    });
    worker.on('error', (err) => this.#failAll(err));
    worker.on('exit', () => this.#failAll(new Error('conversations: the thread stopped')));
    worker.unref();
    this.#worker = worker;
    return worker;
  }

  run(ops: ConversationOp[]): Promise<unknown[]> {
    if (this.#closed) return Promise.reject(new Error('conversations: closed'));
    const worker = this.#worker ?? this.#start();
    const id = ++this.#nextId;
    const message: ToConversationThread = { id, ops };
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

  async close(): Promise<void> {
    this.#closed = true;
    const worker = this.#worker;
    if (worker === null) return;
    this.#worker = null;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage('close');
    await exited;
  }
}

function migrate(db: DatabaseSync): void {
  db.exec('CREATE TABLE IF NOT EXISTS conversations_schema_version (v INTEGER NOT NULL)');
  const row = db.prepare('SELECT v FROM conversations_schema_version').get() as { v: number } | undefined;
  const current = row?.v ?? 0;
  if (current >= CONVERSATION_MIGRATIONS.length) return;
  db.exec('BEGIN IMMEDIATE');
  try {
    for (let i = current; i < CONVERSATION_MIGRATIONS.length; i++) db.exec(CONVERSATION_MIGRATIONS[i]);
    db.exec('DELETE FROM conversations_schema_version');
    db.prepare('INSERT INTO conversations_schema_version (v) VALUES (?)').run(CONVERSATION_MIGRATIONS.length);
    db.exec('COMMIT');
  } catch (err) {
    db.exec('ROLLBACK');
    throw err;
  }
}

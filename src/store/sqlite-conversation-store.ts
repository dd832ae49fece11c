// Conversations in the gateway's SQLite file: migrated at open, served by a thread with its own
// connection (sqlite-conversation-worker.js) started by the first request that needs it; an in-memory
// database belongs to one connection and is served in-thread (tests).
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { Worker } from 'node:worker_threads';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { LOOP_CHECKPOINT_PAGES, openPragmas } from './sqlite-pragmas.js';
import {
  runConversationOps,
  type ConversationOp,
  type FromConversationThread,
  type ToConversationThread,
} from './conversation-sql.js';
import { CONVERSATION_SCHEMA, ConversationStore } from './conversation-store.ts';
import { migrateSqlite, type OnMigrated } from './migrations.ts';

const WORKER = new URL('./sqlite-conversation-worker.js', import.meta.url);

export function openSqliteConversations(path: string, onMigrated?: OnMigrated): ConversationStore {
  const memory = path === ':memory:';
  if (!memory) mkdirSync(dirname(path), { recursive: true });
  const db = new DatabaseSync(path);
  db.exec(openPragmas({ busyMs: 5000, checkpointPages: LOOP_CHECKPOINT_PAGES }));
  migrateSqlite(db, CONVERSATION_SCHEMA, onMigrated);
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

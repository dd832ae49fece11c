// The thought signatures of tool calls kept for a key's next turn (spec/call-signatures.ts), in the
// conversations schema's `call_signatures` table: SQLite on one host, PostgreSQL shared by every
// replica, through the conversations store's statement runner (its thread, or its pool).
import type { KeptSignature } from '../spec/call-signatures.ts';
import { FIND_SIGNATURES, type ConversationOp } from './conversation-sql.js';
import type { RunOps } from './conversation-store.ts';

/** Expired signatures are deleted at most this often (with a write), not on every one. */
const PURGE_EVERY_MS = 60_000;

export interface CallSignatureStoreOptions {
  /** How long a signature is kept: a call sent back later goes with Google's placeholder. */
  retentionMs: number;
  now?: () => number;
}

export class CallSignatureStore {
  readonly #run: RunOps;
  readonly #retentionMs: number;
  readonly #now: () => number;
  #purgedAt = Number.NEGATIVE_INFINITY;

  constructor(run: RunOps, opts: CallSignatureStoreOptions) {
    this.#run = run;
    this.#retentionMs = opts.retentionMs;
    this.#now = opts.now ?? Date.now;
  }

  async keep(owner: string, model: string, kept: readonly KeptSignature[]): Promise<void> {
    if (kept.length === 0) return;
    const now = this.#now();
    const ops: ConversationOp[] = kept.map((k) => ({
      sql: 'keepSignature',
      args: [owner, k.callId, model, k.signature, now],
      mode: 'run',
    }));
    if (now - this.#purgedAt >= PURGE_EVERY_MS) {
      this.#purgedAt = now;
      ops.push({ sql: 'purgeSignatures', args: [now - this.#retentionMs], mode: 'run' });
    }
    await this.#run(ops);
  }

  /** The signatures kept for the first FIND_SIGNATURES of `callIds` (the caller asks for the newest calls). */
  async find(owner: string, model: string, callIds: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    if (callIds.length === 0) return found;
    const ids = callIds.slice(0, FIND_SIGNATURES);
    const args = [owner, model, this.#now() - this.#retentionMs, ...ids];
    while (args.length < FIND_SIGNATURES + 3) args.push('');
    const [rows] = await this.#run([{ sql: 'findSignatures', args, mode: 'all' }]);
    for (const row of rows as Array<{ call_id: string; signature: string }>) found.set(row.call_id, row.signature);
    return found;
  }
}

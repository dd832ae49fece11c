// Stored Responses API responses: what `previous_response_id` continues and
// GET/DELETE /v1/responses/{id} read, owned by the key that made them, kept for a retention period.
// SQLite (sqlite-response-store.ts) and PostgreSQL (pg-response-store.ts) implement it.
import type { OnMigrated } from './migrations.ts';

export interface StoredResponse {
  id: string;
  keyId: string;
  /** The deployment that answered (`model#index`): a native chain continues there. */
  deployment: string | null;
  /** The upstream keeps this conversation itself (native pass-through): forward previous_response_id. */
  native: boolean;
  /** Unix ms. */
  createdAt: number;
  expiresAt: number;
  /** The response object as the caller received it, JSON text. */
  response: string;
  /**
   * The conversation up to and including this response (input and output items), JSON array text. Read
   * back (`get`) it is always the whole conversation; stored (`put`) with a `previousId` it is this turn's
   * own items only, and the rest is read through the chain.
   */
  items: string;
  /** The stored response this one continues (its items are not stored again); null for a first turn. */
  previousId?: string | null;
}

/** What a key holds in stored responses: turns and bytes (response and items text), unexpired. */
export interface StoredUsage {
  turns: number;
  bytes: number;
}

export interface ResponseStore {
  put(row: StoredResponse): Promise<void>;
  /**
   * The key's response with its whole conversation, or null when it is absent, expired or another key's,
   * or when a turn it continues is (a chain is read whole or not at all).
   */
  get(id: string, keyId: string, now: number): Promise<StoredResponse | null>;
  /** What the key holds now, for its quota. */
  usage(keyId: string, now: number): Promise<StoredUsage>;
  delete(id: string, keyId: string): Promise<boolean>;
  /** Removes what expired before `now`; how many rows went. */
  purge(now: number): Promise<number>;
  close(): Promise<void>;
}

export async function openResponseStore(
  database: string,
  isPostgres: boolean,
  onMigrated?: OnMigrated,
): Promise<ResponseStore> {
  if (isPostgres) {
    const { PgResponseStore } = await import('./pg-response-store.ts');
    return PgResponseStore.open(database, onMigrated);
  }
  const { SqliteResponseStore } = await import('./sqlite-response-store.ts');
  return new SqliteResponseStore(database, onMigrated);
}

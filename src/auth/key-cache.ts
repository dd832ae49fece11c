// In-memory view of the key table, refreshed when any process (the CLI) changes a key.
// Lookups on the request path are a hash map read; the store is polled for a version number only.
import type { KeyRecord } from '../core/key-record.ts';
import type { Store } from '../store/store.ts';
import { hashKey, sameHash, sameString } from './key-material.ts';

/** The key a keep-alive connection last authenticated with, and the record it matched then. */
interface ConnectionAuth {
  presented: string;
  record: KeyRecord;
  version: number;
}

export class KeyCache {
  #store: Store;
  #byHash = new Map<string, KeyRecord>();
  #version = -1;
  #timer: NodeJS.Timeout | null = null;
  /** A poll still waiting on the store (a slow database): the next tick skips instead of piling up. */
  #polling = false;
  /** The polls fail (the database is unreachable): said once when it starts and once when it ends. */
  #failing = false;
  #onError: (err: unknown) => void;
  #onRecovered: () => void;
  #listeners: ((keys: KeyRecord[]) => void)[] = [];
  // Keep-alive clients send the same key on every request. Remembering it per connection spares the
  // SHA-256 (µs-scale on a cold path) for every request after the first. The comparison is constant-time:
  // a shared connection (a proxy in front) may carry different clients' keys one after another.
  #byConnection = new WeakMap<object, ConnectionAuth>();
  /** The refresh under way for `refreshNow`, and the one queued to start after it. */
  #refreshing: Promise<void> | null = null;
  #queued: Promise<void> | null = null;

  constructor(opts: { store: Store; onError: (err: unknown) => void; onRecovered?: () => void }) {
    this.#store = opts.store;
    this.#onError = opts.onError;
    this.#onRecovered = opts.onRecovered ?? (() => undefined);
  }

  /** Loads the keys and starts polling; CLI changes take effect within `pollMs`. */
  async start(pollMs = 250): Promise<void> {
    await this.refresh();
    this.#timer = setInterval(() => {
      if (this.#polling) return;
      this.#polling = true;
      this.refresh()
        .then(
          () => {
            if (!this.#failing) return;
            this.#failing = false;
            this.#onRecovered();
          },
          (err: unknown) => {
            // Four polls a second would log four errors a second for as long as an outage lasts.
            if (this.#failing) return;
            this.#failing = true;
            this.#onError(err);
          },
        )
        .finally(() => {
          this.#polling = false;
        });
    }, pollMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  onChange(listener: (keys: KeyRecord[]) => void): void {
    this.#listeners.push(listener);
  }

  async refresh(): Promise<void> {
    const version = await this.#store.keysVersion();
    if (version === this.#version) return;
    const keys = await this.#store.listKeys();
    const next = new Map<string, KeyRecord>();
    for (const k of keys) next.set(k.hash, k);
    this.#byHash = next;
    this.#version = version;
    for (const l of this.#listeners) l(keys);
  }

  /**
   * A refresh that starts after this call, shared by every caller meanwhile: a key another replica made a
   * moment ago is known once it settles. Callers at once share one store read, so a flood of unknown keys
   * costs at most one read in flight and one queued.
   */
  refreshNow(): Promise<void> {
    if (this.#refreshing === null) return this.#startRefresh();
    return (this.#queued ??= this.#refreshing.then(noop, noop).then(() => {
      this.#queued = null;
      return this.#startRefresh();
    }));
  }

  #startRefresh(): Promise<void> {
    const p: Promise<void> = this.refresh().finally(() => {
      if (this.#refreshing === p) this.#refreshing = null;
    });
    this.#refreshing = p;
    return p;
  }

  /** The record for a presented key, or null. The map lookup is by digest; the final check is constant-time. */
  lookup(presented: string, connection?: object): KeyRecord | null {
    if (connection !== undefined) {
      const seen = this.#byConnection.get(connection);
      // A key change anywhere (version) sends every connection back through the digest lookup.
      if (seen !== undefined && seen.version === this.#version && sameString(seen.presented, presented)) return seen.record;
    }
    const digest = hashKey(presented);
    const rec = this.#byHash.get(digest);
    if (!rec || !sameHash(rec.hash, digest)) return null;
    if (connection !== undefined) this.#byConnection.set(connection, { presented, record: rec, version: this.#version });
    return rec;
  }

  byId(id: string): KeyRecord | undefined {
    for (const k of this.#byHash.values()) if (k.id === id) return k;
    return undefined;
  }

  size(): number {
    return this.#byHash.size;
  }
}

const noop = (): void => undefined;

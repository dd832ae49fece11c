// An in-memory view of the key table, refreshed when any process (the CLI, another replica) changes a key:
// a lookup on the request path is a hash map read, and the store is polled for a version number only. A
// key the map does not know is looked up in the store before it is refused, so a key made a moment ago is
// served at once; misses are remembered briefly and store lookups are bounded, so unknown keys cannot
// hammer the database.
import type { KeyRecord } from '../core/key-record.ts';
import type { TeamRecord } from '../core/team-record.ts';
import type { Store } from '../store/store.ts';
import { hashKey, sameHash, sameString } from './key-material.ts';
/** How long a digest the store did not know is refused without asking again. */
const MISS_TTL_MS = 2_000;
/** Misses remembered at most (the oldest go first). */
const MISS_ENTRIES = 10_000;
/** Store lookups for unknown keys: started per second, and running at once. */
const MAX_LOOKUPS_PER_SECOND = 100;
const MAX_PENDING = 16;

/** The key a keep-alive connection last authenticated with, and the record it matched then. */
interface ConnectionAuth {
  presented: string;
  record: KeyRecord;
  version: number;
}

export class KeyCache {
  #store: Store;
  #byHash = new Map<string, KeyRecord>();
  /** Team objects by name, loaded with the keys (a team change moves the keys version). */
  #teams = new Map<string, TeamRecord>();
  #version = -1;
  #timer: NodeJS.Timeout | null = null;
  /** A poll still waiting on the store (a slow database): the next tick skips instead of piling up. */
  #polling = false;
  /** The polls fail (the database is unreachable): said once when it starts and once when it ends. */
  #failing = false;
  #onError: (err: unknown) => void;
  #onRecovered: () => void;
  // Keep-alive clients send the same key on every request. Remembering it per connection spares the
  // SHA-256 for every request after the first. The comparison is constant-time:
  // a shared connection (a proxy in front) may carry different clients' keys one after another.
  #byConnection = new WeakMap<object, ConnectionAuth>();
  /** The refresh under way for `refreshNow`, and the one queued to start after it. */
  #refreshing: Promise<void> | null = null;
  #queued: Promise<void> | null = null;
  /** Digests the store did not know, until when (monotonic ms); oldest first, at most MISS_ENTRIES. */
  #misses = new Map<string, number>();
  /** Store lookups in flight, by digest: concurrent requests with one new key share one read. */
  #pending = new Map<string, Promise<KeyRecord | null>>();
  /** Store lookups started in the current second, for the per-second cap. */
  #lookupsThisSecond = 0;
  #second = 0;

  readonly #now: () => number;

  /** `now`: monotonic ms for the store-lookup bounds; default `performance.now()`. */
  constructor(opts: { store: Store; onError: (err: unknown) => void; onRecovered?: () => void; now?: () => number }) {
    this.#store = opts.store;
    this.#now = opts.now ?? (() => performance.now());
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

  /** Whether the polls fail now (the database is unreachable), for readiness (/readyz). */
  get failing(): boolean {
    return this.#failing;
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  async refresh(): Promise<void> {
    const version = await this.#store.keysVersion();
    if (version === this.#version) return;
    const [keys, teams] = await Promise.all([this.#store.listKeys(), this.#store.listTeams()]);
    this.#teams = new Map(teams.map((t) => [t.name, t]));
    const next = new Map<string, KeyRecord>();
    const now = Date.now();
    for (const k of keys) {
      this.#withTeam(k);
      next.set(k.hash, k);
      // A rotated key's old secret, for its grace period (checked again at each lookup).
      if (k.previousHash !== undefined && (k.previousUntil ?? 0) > now) next.set(k.previousHash, k);
    }
    this.#byHash = next;
    this.#version = version;
    // A key made since a miss was remembered is in the map now; a deleted one is gone from it.
    this.#misses.clear();
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

  /** A key's team object, looked up once per load: the request path reads it from the record. */
  #withTeam(k: KeyRecord): KeyRecord {
    k.teamRecord = k.team === null || k.team === undefined ? null : (this.#teams.get(k.team) ?? null);
    return k;
  }

  /** The team objects as last loaded, by name. */
  teams(): ReadonlyMap<string, TeamRecord> {
    return this.#teams;
  }

  /** The record for a presented key, or null. The map lookup is by digest; the final check is constant-time. */
  lookup(presented: string, connection?: object): KeyRecord | null {
    if (connection !== undefined) {
      const seen = this.#byConnection.get(connection);
      // A key change anywhere (version) sends every connection back through the digest lookup.
      if (seen !== undefined && seen.version === this.#version && sameString(seen.presented, presented))
        return seen.record;
    }
    const digest = hashKey(presented);
    const rec = this.#byHash.get(digest);
    if (!rec) return null;
    if (!sameHash(rec.hash, digest)) return this.#inGrace(rec, digest) ? rec : null;
    // Only the current secret is remembered per connection: an old one is checked against its grace each time.
    if (connection !== undefined)
      this.#byConnection.set(connection, { presented, record: rec, version: this.#version });
    return rec;
  }

  /**
   * A key `lookup` did not find, looked up in the store (made by the CLI or another replica since the
   * last poll). A digest the store did not know is not asked about again for MISS_TTL_MS; at most
   * MAX_LOOKUPS_PER_SECOND store reads start in a second and MAX_PENDING run at once; past either the
   * key is refused without asking (the poll still brings a new key within its interval).
   */
  lookupStored(presented: string): Promise<KeyRecord | null> | null {
    const digest = hashKey(presented);
    const now = this.#now();
    const missUntil = this.#misses.get(digest);
    if (missUntil !== undefined) {
      if (missUntil > now) return null;
      this.#misses.delete(digest);
    }
    const pending = this.#pending.get(digest);
    if (pending !== undefined) return pending;
    const second = Math.floor(now / 1000);
    if (second !== this.#second) {
      this.#second = second;
      this.#lookupsThisSecond = 0;
    }
    if (this.#pending.size >= MAX_PENDING || this.#lookupsThisSecond >= MAX_LOOKUPS_PER_SECOND) return null;
    this.#lookupsThisSecond++;
    const read = this.#store
      .findKeyByHash(digest)
      .then(
        (rec) => {
          if (rec === null || !(sameHash(rec.hash, digest) || this.#inGrace(rec, digest))) {
            this.#rememberMiss(digest, this.#now());
            return null;
          }
          this.#byHash.set(digest, this.#withTeam(rec));
          return rec;
        },
        // The database is unreachable: the key is refused as unknown, as the cache alone would have.
        () => null,
      )
      .finally(() => this.#pending.delete(digest));
    this.#pending.set(digest, read);
    return read;
  }

  /** Whether `digest` is the secret `rec` had before its rotation, still inside the grace period. */
  #inGrace(rec: KeyRecord, digest: string): boolean {
    return (
      rec.previousHash !== undefined && sameHash(rec.previousHash, digest) && (rec.previousUntil ?? 0) > Date.now()
    );
  }

  #rememberMiss(digest: string, now: number): void {
    if (this.#misses.size >= MISS_ENTRIES) {
      const oldest = this.#misses.keys().next();
      if (oldest.done !== true) this.#misses.delete(oldest.value);
    }
    this.#misses.set(digest, now + MISS_TTL_MS);
  }

  /** Every key loaded (for the key spend metrics, read when scraped). */
  records(): Iterable<KeyRecord> {
    return this.#byHash.values();
  }

  size(): number {
    return this.#byHash.size;
  }
}

const noop = (): void => undefined;

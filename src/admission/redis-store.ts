// Admission store shared by many replicas: one Redis round trip per operation, atomic via Lua.
import { createHash, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { ADMIT_LUA, DURABLE_LUA, FINISH_LUA, PEERS_LUA, RECLAIM_LUA, SEED_LUA } from './redis-scripts.ts';
import { DEFAULT_RESERVATION_TTL_MS, WINDOW_MS, checkAmount, secondsUntilWindowEnd, windowStartOf } from './store.ts';
import type {
  AdmissionSnapshot,
  AdmissionStore,
  AdmitRequest,
  AdmitResult,
  RefusalReason,
  ReservationId,
  SeedRequest,
  SettleRequest,
  SettleResult,
  SpendWritten,
  WatchedKey,
} from './store.ts';

export interface RedisStoreOptions {
  /** An existing connection (left open by close()), or a URL to open one. */
  client?: Redis;
  url?: string;
  /** Namespace of every key; default `mg:`. Tests use a unique prefix and delete it after. */
  prefix?: string;
  reservationTtlMs?: number;
  /**
   * Stable name of this gateway instance (e.g. host:port). Its reservations carry a tag derived from it,
   * so the same instance restarted after a crash frees what its predecessor held (reclaimOwn).
   */
  instanceId?: string;
  /**
   * A key's durable spent total (the database). When Redis has lost a budgeted key's state, admit loads
   * it from here and seeds Redis again before deciding; without it a lost state reads as nothing spent.
   */
  spentFor?: (keyId: string, periodStart: number) => Promise<{ nanos: number; tokens: number }>;
  /**
   * Whose clock places a request in its rate-limit minute and decides when a reservation has expired:
   * Redis's own (`'server'`, the default), which every replica shares whatever its own clock says, or
   * the `now` each call passes (`'caller'`: tests that step time). Budget periods are always the
   * caller's: a day or a month is not moved by a few seconds of skew the way a minute is.
   */
  clock?: 'server' | 'caller';
}

interface Script {
  source: string;
  sha: string;
}

function script(source: string): Script {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

const ADMIT = script(ADMIT_LUA);
const FINISH = script(FINISH_LUA);
const SEED = script(SEED_LUA);
const RECLAIM = script(RECLAIM_LUA);
const DURABLE = script(DURABLE_LUA);
const PEERS = script(PEERS_LUA);

const UUID_LENGTH = 36;
const REASONS: ReadonlySet<string> = new Set<RefusalReason>([
  'budget',
  'token_budget',
  'in_flight',
  'rpm',
  'tpm',
  'concurrency',
]);

export class RedisAdmissionStore implements AdmissionStore {
  readonly #redis: Redis;
  readonly #ownsClient: boolean;
  readonly #prefix: string;
  readonly #ttlMs: number;
  readonly #spentFor: RedisStoreOptions['spentFor'];
  readonly #serverClock: boolean;
  #wasReady = false;
  #waiting: Promise<void> | null = null;
  /** 8 hex characters + '-': the first 9 of the 36-character id part of every reservation id. */
  readonly #tag: string;
  #heartbeat: NodeJS.Timeout | null = null;

  constructor(options: RedisStoreOptions) {
    if (options.client === undefined && options.url === undefined) {
      throw new Error('RedisAdmissionStore needs a client or a url');
    }
    this.#ownsClient = options.client === undefined;
    // No offline queue: while Redis is unreachable a command fails at once (the request gets a 503)
    // instead of waiting in a queue for a reconnection that may never come.
    this.#redis =
      options.client ??
      new Redis(options.url ?? '', {
        lazyConnect: false,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        connectTimeout: 2_000,
      });
    // Connection errors surface as failed commands (the caller gets a 503); the event itself is only noise.
    if (options.client === undefined) this.#redis.on('error', () => undefined);
    this.#prefix = options.prefix ?? 'mg:';
    this.#ttlMs = options.reservationTtlMs ?? DEFAULT_RESERVATION_TTL_MS;
    this.#spentFor = options.spentFor;
    this.#serverClock = options.clock !== 'caller';
    this.#tag = `${createHash('sha256')
      .update(options.instanceId ?? randomUUID())
      .digest('hex')
      .slice(0, 8)}-`;
  }

  async admit(req: AdmitRequest): Promise<AdmitResult> {
    const { limits } = req;
    // The key id rides in the reservation id so settle/release find the key's hash slot without a lookup.
    // `<instance tag><27 random chars>.<keyId>`: the id part keeps the 36 characters #finish expects.
    const reservationId = `${this.#tag}${randomUUID().slice(9)}.${req.keyId}`;
    const needsSeed = this.#spentFor !== undefined && (limits.budgetNanos !== null || limits.tokenBudget !== null);
    const args = [
      this.#serverClock ? '-1' : int(req.now),
      int(req.periodStart),
      int(req.reserveNanos),
      int(req.reserveTokens),
      limit(limits.rpm),
      limit(limits.tpm),
      limit(limits.maxConcurrency),
      limit(limits.budgetNanos),
      limit(limits.tokenBudget),
      reservationId,
      int(this.#ttlMs),
      String(WINDOW_MS),
      needsSeed ? '1' : '0',
      limits.inFlightShare === null || limits.inFlightShare === undefined
        ? '-1'
        : String(Math.round(limits.inFlightShare * 1e6)),
    ];
    let reply = await this.#run(ADMIT, this.#keysOf(req.keyId), args);
    if (Number(asArray(reply)[0]) === 2 && this.#spentFor !== undefined) {
      // Redis forgot this key (a restart without persistence): the database is the truth.
      const spent = await this.#spentFor(req.keyId, req.periodStart);
      await this.seedSpent({
        keyId: req.keyId,
        periodStart: req.periodStart,
        spentNanos: spent.nanos,
        spentTokens: spent.tokens,
      });
      reply = await this.#run(ADMIT, this.#keysOf(req.keyId), args);
      if (Number(asArray(reply)[0]) === 2)
        throw new Error(`the admission store lost key ${req.keyId}'s state again while it was being seeded`);
    }
    const [status, reason, ...figures] = asArray(reply);
    // The script's last figure is the time it judged by (Redis's, as a rule): the window's reset is counted from it.
    const snapshot = toSnapshot(figures.map(Number), Number(figures[8]));
    if (Number(status) === 1) return { ok: true, reservationId, snapshot };
    const why = String(reason);
    if (!REASONS.has(why)) throw new Error(`admission script returned an unknown reason: ${why}`);
    const refusal: AdmitResult = { ok: false, reason: why as RefusalReason, snapshot };
    if (why === 'rpm' || why === 'tpm') refusal.retryAfterSec = snapshot.windowResetSec;
    if (why === 'concurrency') refusal.retryAfterSec = 1;
    return refusal;
  }

  async settle(req: SettleRequest): Promise<SettleResult> {
    return this.#finish(req.reservationId, [int(req.nanos), int(req.tokens), '1']);
  }

  async release(reservationId: ReservationId): Promise<SettleResult> {
    return this.#finish(reservationId, ['0', '0', '0']);
  }

  async snapshot(keyId: string, now: number, periodStart?: number): Promise<AdmissionSnapshot> {
    if (!this.#wasReady) await this.ready(2_000);
    const fields = ['spentN', 'resN', 'spentT', 'resT', 'rpm', 'tpm', 'inflight', 'win', 'period'];
    let f: (string | null)[];
    if (this.#serverClock) {
      // One round trip for the figures and the clock the windows were counted by.
      const replies = await this.#redis
        .pipeline()
        .hmget(this.#keysOf(keyId)[0], ...fields)
        .time()
        .exec();
      if (replies === null || replies.length !== 2) throw new Error('unexpected reply from Redis to a snapshot');
      const [[hmgetErr, figures], [timeErr, time]] = replies;
      if (hmgetErr || timeErr) throw hmgetErr ?? timeErr;
      f = figures as (string | null)[];
      now = redisMillis(time);
    } else {
      f = await this.#redis.hmget(this.#keysOf(keyId)[0], ...fields);
    }
    const figures = f.map((v) => Number(v ?? 0));
    const snap = toSnapshot(figures, now);
    if (periodStart !== undefined && periodStart > figures[8]) {
      snap.spentNanos = 0;
      snap.spentTokens = 0;
      snap.reservedNanos = 0;
      snap.reservedTokens = 0;
    }
    return snap;
  }

  async seedSpent(req: SeedRequest): Promise<void> {
    const keys = this.#keysOf(req.keyId);
    await this.#run(
      SEED,
      [keys[0], keys[3]],
      [
        int(req.periodStart),
        int(req.spentNanos),
        int(req.spentTokens),
        req.mode ?? 'max',
        // Infinity (a key without a period) as the largest integer Lua's numbers hold exactly.
        req.periodEnd === undefined ? '-1' : int(Math.min(req.periodEnd, Number.MAX_SAFE_INTEGER)),
      ],
    );
  }

  reachable(): boolean {
    return this.#redis.status === 'ready';
  }

  /** Resolves once connected; rejects after `timeoutMs` (the gateway then refuses to start). */
  async ready(timeoutMs = 5_000): Promise<void> {
    if (this.#redis.status === 'ready') {
      this.#wasReady = true;
      return;
    }
    // Callers that arrive while the first connection is pending share one wait: a burst of requests at
    // start would otherwise add a listener each (and Node's leak warning after ten).
    this.#waiting ??= new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#redis.off('ready', onReady);
        reject(new Error(`Redis is not reachable after ${timeoutMs} ms`));
      }, timeoutMs);
      const onReady = (): void => {
        clearTimeout(timer);
        this.#wasReady = true;
        resolve();
      };
      this.#redis.once('ready', onReady);
    }).finally(() => {
      this.#waiting = null;
    });
    return this.#waiting;
  }

  async reclaimOwn(keyIds: string[]): Promise<number> {
    return (await this.#reclaim(this.#tag, keyIds)).freed;
  }

  /** Frees a dead instance's reservations and takes back out the spend it never wrote rows for. */
  async #reclaim(tag: string, keyIds: string[]): Promise<{ freed: number; nanos: number }> {
    let freed = 0;
    let nanos = 0;
    for (const keyId of keyIds) {
      const [f, n] = asArray(await this.#run(RECLAIM, this.#keysOf(keyId), [tag])).map(Number);
      freed += f;
      nanos += n;
    }
    return { freed, nanos };
  }

  async spendWritten(written: SpendWritten[]): Promise<void> {
    await Promise.all(
      written.map((w) => this.#run(DURABLE, [this.#keysOf(w.keyId)[3]], [this.#tag, int(w.nanos), int(w.tokens)])),
    );
  }

  /**
   * Beats every third of `timeoutMs` in a ZSET of the replicas, and claims those silent longer: for each,
   * its reservations are freed and the spend it settled without writing rows is taken out, then the
   * keys' spent totals are raised to the database's again (mode 'max', as at a start).
   */
  watchPeers(opts: {
    timeoutMs: number;
    keys: () => WatchedKey[];
    onLost: (tag: string, freed: number, nanos: number) => void;
    onError: (err: unknown) => void;
  }): void {
    const beat = async (): Promise<void> => {
      const lost = asArray(await this.#run(PEERS, [`${this.#prefix}replicas`], [this.#tag, int(opts.timeoutMs)])).map(
        String,
      );
      for (const tag of lost) {
        if (tag === this.#tag) continue;
        const keys = opts.keys();
        const { freed, nanos } = await this.#reclaim(
          tag,
          keys.map((k) => k.keyId),
        );
        for (const k of keys) {
          if (this.#spentFor === undefined || !k.budgeted) continue;
          const spent = await this.#spentFor(k.keyId, k.periodStart);
          await this.seedSpent({
            keyId: k.keyId,
            periodStart: k.periodStart,
            periodEnd: k.periodEnd,
            spentNanos: spent.nanos,
            spentTokens: spent.tokens,
          });
        }
        opts.onLost(tag, freed, nanos);
      }
    };
    const run = (): void => {
      beat().catch(opts.onError);
    };
    run();
    this.#heartbeat = setInterval(run, Math.max(100, Math.floor(opts.timeoutMs / 3)));
    this.#heartbeat.unref();
  }

  async close(): Promise<void> {
    if (this.#heartbeat !== null) clearInterval(this.#heartbeat);
    // A clean stop leaves the replicas' list at once: its rows are written, nobody has to reconcile for it.
    await this.#redis.zrem(`${this.#prefix}replicas`, this.#tag).catch(() => undefined);
    if (this.#ownsClient) await this.#redis.quit();
  }

  async #finish(reservationId: ReservationId, args: string[]): Promise<SettleResult> {
    // Another store's id (the in-process store's numbers) is unknown here, like any id this store never made.
    if (typeof reservationId !== 'string') return { ok: false };
    const keyId = reservationId.slice(UUID_LENGTH + 1);
    if (reservationId.charAt(UUID_LENGTH) !== '.' || keyId === '') return { ok: false };
    const reply = asArray(await this.#run(FINISH, this.#keysOf(keyId), [reservationId, ...args]));
    return Number(reply[0]) === 1 ? { ok: true, periodStart: Number(reply[1]) } : { ok: false };
  }

  #keysOf(keyId: string): [string, string, string, string] {
    const base = `${this.#prefix}{${keyId}}`;
    return [`${base}:s`, `${base}:r`, `${base}:e`, `${base}:u`];
  }

  /** EVALSHA, loading the script once when the server does not know it (fresh server, SCRIPT FLUSH). */
  async #run(s: Script, keys: string[], args: string[]): Promise<unknown> {
    // Only the very first connection is waited for (a store used right after it was made); once it has
    // been up, a dropped connection fails commands at once rather than holding requests.
    if (!this.#wasReady) await this.ready(2_000);
    try {
      return await this.#redis.evalsha(s.sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      await this.#redis.script('LOAD', s.source);
      return await this.#redis.evalsha(s.sha, keys.length, ...keys, ...args);
    }
  }
}

function int(n: number): string {
  return String(checkAmount(n));
}

function limit(n: number | null): string {
  return n === null ? '-1' : int(n);
}

/** TIME's reply, [seconds, microseconds], as unix ms. */
function redisMillis(time: unknown): number {
  const [sec, usec] = asArray(time).map(Number);
  if (!Number.isFinite(sec) || !Number.isFinite(usec)) throw new Error('unexpected reply from Redis TIME');
  return sec * 1000 + Math.floor(usec / 1000);
}

function asArray(reply: unknown): unknown[] {
  if (!Array.isArray(reply)) throw new Error('unexpected reply from an admission script');
  return reply;
}

/** figures: spentN resN spentT resT rpm tpm inflight window. */
function toSnapshot(figures: number[], now: number): AdmissionSnapshot {
  const [spentNanos, reservedNanos, spentTokens, reservedTokens, rpm, tpm, inFlight, window] = figures;
  const current = window >= windowStartOf(now);
  return {
    spentNanos,
    reservedNanos,
    spentTokens,
    reservedTokens,
    rpmUsed: current ? rpm : 0,
    tpmUsed: current ? tpm : 0,
    inFlight,
    windowResetSec: secondsUntilWindowEnd(current ? window : windowStartOf(now), now),
  };
}

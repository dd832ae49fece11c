// The admission store interface: per-key budget reservations and RPM/TPM/concurrency limits.
//
// Semantics (both implementations, pinned by test/admission/store-contract.ts):
//
// - Money is nano-USD integers (src/core/budget.ts); tokens are input + output tokens.
// - Each operation is atomic. `admit` checks every limit set on the key and, only if all of them fit,
//   counts the request into the RPM window, reserves its worst-case tokens into the TPM window, takes
//   a concurrency slot and reserves `reserveNanos` / `reserveTokens` against the budgets. A refusal
//   changes nothing (it does not count toward RPM either).
// - Refusal order when several limits fail: budget, token_budget, in_flight, rpm, tpm, concurrency — the
//   permanent ones first, so a caller is not told to retry what a retry cannot fix.
// - RPM/TPM windows are FIXED 60-second windows aligned to the epoch minute (floor(now / 60 s)).
//   Inside one window at most `rpm` requests are admitted and at most `tpm` tokens are reserved or
//   spent; the counters restart at the next minute boundary. `retryAfterSec` for rpm/tpm is the
//   seconds until that boundary (at least 1); for concurrency it is 1. `windowResetSec` in a snapshot
//   is the same figure. A request bigger than `tpm` on its own is refused every minute. `now` is the
//   caller's clock, except where a store shares a clock of its own with every replica (Redis's TIME):
//   windows and reservation expiry then follow that one.
// - TPM is charged the reservation at admit; `settle` corrects it to the real tokens if the request
//   is still in the window it was admitted in (a finished window is history and is left alone).
// - Budget periods: the caller passes `periodStart` (unix ms of the current daily/weekly/monthly
//   period; 0 for a budget that never resets). A larger `periodStart` than the store has seen starts
//   the key from zero spent and zero reserved; a smaller one (a replica with a skewed clock) is
//   charged to the newer period. A reservation belongs to the period it was admitted in: settling it
//   after the period rolled over frees its slot but adds nothing to the new period (bill the usage
//   row to `SettleResult.periodStart`).
// - "Left" = limit − spent − reserved (never below 0): what a new reservation could still take.
//   `settle` may push spent above the budget when the real usage exceeded the estimate; the overshoot
//   is bounded by one request's estimation error and shows as 0 left.
// - Reservations expire `reservationTtlMs` after admit (default 10 min; the gateway passes its longest
//   request deadline plus a minute, `reservationTtlFor`) so a crashed replica cannot
//   hold budget or a slot forever: the next `admit` for that key reclaims them exactly like
//   `release` (nothing billed). A late `settle`/`release` of a reclaimed reservation returns
//   `{ ok: false }` and changes nothing; the durable usage row is still the truth and the next
//   `seedSpent` brings the store back to it.
// - `seedSpent` loads durable totals (the DB is the truth, the store is the fast path). By default it
//   only raises spent (mode 'max'), because on a shared Redis another replica's settles may not be
//   flushed to the DB yet; mode 'replace' overwrites (an operator correction). A newer period rolls
//   the key over first. An older one is ignored unless it contains the current one (`periodEnd` after
//   the current start: the key was moved to a period that starts earlier, daily → monthly): the current
//   period keeps its start until it ends, and counts the older one's durable total from then on.

export type RefusalReason = 'budget' | 'token_budget' | 'in_flight' | 'rpm' | 'tpm' | 'concurrency';

export const WINDOW_MS = 60_000;
export const DEFAULT_RESERVATION_TTL_MS = 10 * 60_000;
/** Time after a request's deadline for its settle to arrive (the usage row, a slow store). */
const SETTLE_MARGIN_MS = 60_000;

/**
 * A reservation must outlive the longest request it can belong to: one reclaimed while its request
 * still streams frees the slot early and, settled late, adds nothing to spent — the budget would not
 * hold. So the TTL is the longest `total` timeout of any model plus a margin, never below the default.
 */
export function reservationTtlFor(totalTimeoutsMs: readonly number[]): number {
  return Math.max(DEFAULT_RESERVATION_TTL_MS, ...totalTimeoutsMs.map((ms) => ms + SETTLE_MARGIN_MS));
}

/** null = no limit of that kind. */
export interface AdmissionLimits {
  rpm: number | null;
  tpm: number | null;
  maxConcurrency: number | null;
  budgetNanos: number | null;
  tokenBudget: number | null;
  /**
   * The share (0–1] of what is left of a money or token budget that reservations in flight may hold at
   * once; null = no such bound. A request alone in flight always may take what is left: the bound
   * only holds back the others ('in_flight', a refusal to wait on), so that real usage beating the
   * estimates can only overspend by that share of what was left (docs/budgets.md).
   */
  inFlightShare?: number | null;
}

export interface AdmitRequest {
  keyId: string;
  limits: AdmissionLimits;
  /** Unix ms of the current budget period's start; 0 when the budget never resets. */
  periodStart: number;
  reserveNanos: number;
  reserveTokens: number;
  /** Unix ms; passed in so tests and replicas agree on the window. */
  now: number;
}

export interface AdmissionSnapshot {
  spentNanos: number;
  reservedNanos: number;
  spentTokens: number;
  reservedTokens: number;
  /** Requests counted in the current RPM window. */
  rpmUsed: number;
  /** Tokens reserved or spent in the current TPM window. */
  tpmUsed: number;
  inFlight: number;
  /** Whole seconds until the current RPM/TPM window resets (1..60). */
  windowResetSec: number;
}

/**
 * What `admit` hands out and `settle` / `release` take back, opaque to the caller: the shared store's
 * ids are strings it keeps in Redis, the in-process store's are numbers that name a reusable slot.
 */
export type ReservationId = string | number;

export type AdmitResult =
  | { ok: true; reservationId: ReservationId; snapshot: AdmissionSnapshot }
  | { ok: false; reason: RefusalReason; retryAfterSec?: number; snapshot: AdmissionSnapshot };

export interface SettleRequest {
  reservationId: ReservationId;
  /** Real cost of the request. */
  nanos: number;
  /** Real input + output tokens. */
  tokens: number;
}

/** `ok: false` = unknown, already settled/released, or reclaimed after its TTL. */
export type SettleResult = { ok: true; periodStart: number } | { ok: false };

export interface SeedRequest {
  keyId: string;
  periodStart: number;
  spentNanos: number;
  spentTokens: number;
  /** 'max' (default) only raises spent; 'replace' overwrites it. */
  mode?: 'max' | 'replace';
  /**
   * Where the seeded period ends (Infinity: never, a key without a period). A period that starts before
   * the store's current one for the key and ends after that start contains it: its total is the current
   * period's spend too. Without it an older period is always taken for a stale one and ignored.
   */
  periodEnd?: number;
}

/** Spend now in the database for one key (a usage batch written): what this instance no longer owes. */
export interface SpendWritten {
  keyId: string;
  nanos: number;
  tokens: number;
}

/** A key whose shared state a replica reconciles when another is found dead. */
export interface WatchedKey {
  keyId: string;
  budgeted: boolean;
  periodStart: number;
  periodEnd: number;
}

export interface AdmissionStore {
  /** Invalid amounts reject. */
  admit(req: AdmitRequest): Promise<AdmitResult>;
  /** Replace the reservation with the real amounts and free the slot. */
  settle(req: SettleRequest): Promise<SettleResult>;
  /** Undo everything but the RPM count (upstream failure: bill nothing). */
  release(reservationId: ReservationId): Promise<SettleResult>;
  /** `periodStart` newer than the store's period shows zero spent without changing anything. */
  snapshot(keyId: string, now: number, periodStart?: number): Promise<AdmissionSnapshot>;
  seedSpent(req: SeedRequest): Promise<void>;
  /**
   * At boot: frees every reservation this gateway instance made before it was killed (a shared store
   * outlives its replicas; the in-process store starts empty anyway). Returns how many were freed.
   */
  reclaimOwn?(keyIds: string[]): Promise<number>;
  /**
   * A shared store: this instance's usage rows for these amounts are in the database now. What a replica
   * settled but had not written when it died is taken back out of spent, so the store agrees with the rows.
   */
  spendWritten?(written: SpendWritten[]): Promise<void>;
  /** A shared store: notices replicas that died (no heartbeat) and reconciles the keys' spend for them. */
  watchPeers?(opts: {
    timeoutMs: number;
    keys: () => WatchedKey[];
    onLost: (tag: string, freed: number, nanos: number) => void;
    onError: (err: unknown) => void;
  }): void;
  /** Resolves once a shared store is reachable; the gateway does not start without it. */
  ready?(timeoutMs?: number): Promise<void>;
  /** Whether the store is connected now, for readiness (/readyz); absent = always (in-process). */
  reachable?(): boolean;
  close(): Promise<void>;
}

export function windowStartOf(now: number): number {
  return Math.floor(now / WINDOW_MS) * WINDOW_MS;
}

export function secondsUntilWindowEnd(windowStart: number, now: number): number {
  return Math.max(1, Math.ceil((windowStart + WINDOW_MS - now) / 1000));
}

/** Both stores refuse fractional or negative amounts the same way: nano-USD and tokens are whole. */
export function checkAmount(n: number): number {
  if (!Number.isSafeInteger(n) || n < 0)
    throw new RangeError(`admission amounts must be non-negative integers, got ${n}`);
  return n;
}

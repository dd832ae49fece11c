// Single-node admission store: plain maps, synchronous inside each call, so atomic by construction.
import {
  DEFAULT_RESERVATION_TTL_MS,
  checkAmount,
  secondsUntilWindowEnd,
  windowStartOf,
} from './store.ts';
import type {
  AdmissionSnapshot,
  AdmissionStore,
  AdmitRequest,
  AdmitResult,
  RefusalReason,
  SeedRequest,
  SettleRequest,
  SettleResult,
} from './store.ts';

interface KeyState {
  period: number;
  spentNanos: number;
  spentTokens: number;
  reservedNanos: number;
  reservedTokens: number;
  window: number;
  rpmUsed: number;
  tpmUsed: number;
  inFlight: number;
  reservationIds: Set<string>;
}

interface Reservation {
  keyId: string;
  nanos: number;
  tokens: number;
  period: number;
  window: number;
  expiresAt: number;
}

export interface MemoryStoreOptions {
  reservationTtlMs?: number;
}

export class MemoryAdmissionStore implements AdmissionStore {
  readonly #keys = new Map<string, KeyState>();
  readonly #reservations = new Map<string, Reservation>();
  readonly #ttlMs: number;
  #nextId = 0;

  constructor(options: MemoryStoreOptions = {}) {
    this.#ttlMs = options.reservationTtlMs ?? DEFAULT_RESERVATION_TTL_MS;
  }

  // admit, settle and release answer synchronously (see MaybePromise in store.ts).
  admit(req: AdmitRequest): AdmitResult {
    checkAmount(req.reserveNanos);
    checkAmount(req.reserveTokens);
    checkAmount(req.periodStart);
    const state = this.#state(req.keyId);
    this.#reclaimExpired(state, req.now);
    rollPeriod(state, req.periodStart);
    rollWindow(state, req.now);

    const reason = refusalReason(state, req);
    if (reason !== null) {
      const refusal: AdmitResult = { ok: false, reason, snapshot: view(state, req.now) };
      if (reason === 'rpm' || reason === 'tpm') refusal.retryAfterSec = secondsUntilWindowEnd(state.window, req.now);
      if (reason === 'concurrency') refusal.retryAfterSec = 1;
      return refusal;
    }

    state.rpmUsed += 1;
    state.tpmUsed += req.reserveTokens;
    state.inFlight += 1;
    state.reservedNanos += req.reserveNanos;
    state.reservedTokens += req.reserveTokens;
    // Ids only need to be unique within this process: a counter is cheaper than a UUID per request.
    const reservationId = `r${++this.#nextId}`;
    state.reservationIds.add(reservationId);
    this.#reservations.set(reservationId, {
      keyId: req.keyId,
      nanos: req.reserveNanos,
      tokens: req.reserveTokens,
      period: state.period,
      window: state.window,
      expiresAt: req.now + this.#ttlMs,
    });
    return { ok: true, reservationId, snapshot: view(state, req.now) };
  }

  settle(req: SettleRequest): SettleResult {
    checkAmount(req.nanos);
    checkAmount(req.tokens);
    return this.#finish(req.reservationId, { nanos: req.nanos, tokens: req.tokens });
  }

  release(reservationId: string): SettleResult {
    return this.#finish(reservationId, null);
  }

  async snapshot(keyId: string, now: number, periodStart?: number): Promise<AdmissionSnapshot> {
    const state = this.#keys.get(keyId) ?? newState();
    const snap = view(state, now);
    if (periodStart !== undefined && periodStart > state.period) {
      snap.spentNanos = 0;
      snap.spentTokens = 0;
      snap.reservedNanos = 0;
      snap.reservedTokens = 0;
    }
    return snap;
  }

  async seedSpent(req: SeedRequest): Promise<void> {
    checkAmount(req.spentNanos);
    checkAmount(req.spentTokens);
    const state = this.#state(req.keyId);
    if (req.periodStart < state.period) return;
    rollPeriod(state, req.periodStart);
    const replace = req.mode === 'replace';
    state.spentNanos = replace ? req.spentNanos : Math.max(state.spentNanos, req.spentNanos);
    state.spentTokens = replace ? req.spentTokens : Math.max(state.spentTokens, req.spentTokens);
  }

  async close(): Promise<void> {
    this.#keys.clear();
    this.#reservations.clear();
  }

  /** Settle (real amounts given) or release (null) one reservation. */
  #finish(reservationId: string, real: { nanos: number; tokens: number } | null): SettleResult {
    const res = this.#reservations.get(reservationId);
    if (res === undefined) return { ok: false };
    const state = this.#state(res.keyId);
    this.#drop(state, reservationId, res);
    if (real !== null && res.period === state.period) {
      state.spentNanos += real.nanos;
      state.spentTokens += real.tokens;
    }
    if (real !== null && res.window === state.window) state.tpmUsed += real.tokens;
    return { ok: true, periodStart: res.period };
  }

  /** Undo a reservation's hold on budget, TPM and the slot; the RPM count stays. */
  #drop(state: KeyState, reservationId: string, res: Reservation): void {
    this.#reservations.delete(reservationId);
    state.reservationIds.delete(reservationId);
    state.inFlight -= 1;
    if (res.period === state.period) {
      state.reservedNanos -= res.nanos;
      state.reservedTokens -= res.tokens;
    }
    if (res.window === state.window) state.tpmUsed = Math.max(0, state.tpmUsed - res.tokens);
  }

  #reclaimExpired(state: KeyState, now: number): void {
    // Every reservation gets the same TTL and a Set iterates in insertion order, so the first live
    // reservation is the one that expires first: stop there (O(1) per admit instead of O(in flight)).
    for (const id of state.reservationIds) {
      const res = this.#reservations.get(id);
      if (res === undefined) continue;
      if (res.expiresAt > now) return;
      this.#drop(state, id, res);
    }
  }

  #state(keyId: string): KeyState {
    let state = this.#keys.get(keyId);
    if (state === undefined) {
      state = newState();
      this.#keys.set(keyId, state);
    }
    return state;
  }
}

function newState(): KeyState {
  return {
    period: 0,
    spentNanos: 0,
    spentTokens: 0,
    reservedNanos: 0,
    reservedTokens: 0,
    window: 0,
    rpmUsed: 0,
    tpmUsed: 0,
    inFlight: 0,
    reservationIds: new Set(),
  };
}

function rollPeriod(state: KeyState, periodStart: number): void {
  if (periodStart <= state.period) return;
  state.period = periodStart;
  state.spentNanos = 0;
  state.spentTokens = 0;
  state.reservedNanos = 0;
  state.reservedTokens = 0;
}

function rollWindow(state: KeyState, now: number): void {
  const window = windowStartOf(now);
  if (window <= state.window) return;
  state.window = window;
  state.rpmUsed = 0;
  state.tpmUsed = 0;
}

function refusalReason(state: KeyState, req: AdmitRequest): RefusalReason | null {
  const { limits } = req;
  if (limits.budgetNanos !== null && state.spentNanos + state.reservedNanos + req.reserveNanos > limits.budgetNanos) {
    return 'budget';
  }
  if (limits.tokenBudget !== null && state.spentTokens + state.reservedTokens + req.reserveTokens > limits.tokenBudget) {
    return 'token_budget';
  }
  if (limits.rpm !== null && state.rpmUsed + 1 > limits.rpm) return 'rpm';
  if (limits.tpm !== null && state.tpmUsed + req.reserveTokens > limits.tpm) return 'tpm';
  if (limits.maxConcurrency !== null && state.inFlight + 1 > limits.maxConcurrency) return 'concurrency';
  return null;
}

function view(state: KeyState, now: number): AdmissionSnapshot {
  const window = windowStartOf(now);
  const current = state.window >= window;
  return {
    spentNanos: state.spentNanos,
    reservedNanos: state.reservedNanos,
    spentTokens: state.spentTokens,
    reservedTokens: state.reservedTokens,
    rpmUsed: current ? state.rpmUsed : 0,
    tpmUsed: current ? state.tpmUsed : 0,
    inFlight: state.inFlight,
    windowResetSec: secondsUntilWindowEnd(current ? state.window : window, now),
  };
}

// Single-node admission store: plain maps, synchronous inside each call, so atomic by construction.
import { DEFAULT_RESERVATION_TTL_MS, checkAmount, secondsUntilWindowEnd, windowStartOf } from './store.ts';
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
  /** The key's live reservations in admit order (a Set keeps it): the oldest expires first. */
  live: Set<Reservation>;
}

interface Reservation {
  id: number;
  state: KeyState;
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
  /** Live reservations by id; ids are never reused, so one settled late is simply unknown. */
  readonly #reservations = new Map<number, Reservation>();
  #nextId = 0;
  readonly #ttlMs: number;

  constructor(options: MemoryStoreOptions = {}) {
    this.#ttlMs = options.reservationTtlMs ?? DEFAULT_RESERVATION_TTL_MS;
  }

  async admit(req: AdmitRequest): Promise<AdmitResult> {
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
    const reservation: Reservation = {
      id: this.#nextId++,
      state,
      nanos: req.reserveNanos,
      tokens: req.reserveTokens,
      period: state.period,
      window: state.window,
      expiresAt: req.now + this.#ttlMs,
    };
    this.#reservations.set(reservation.id, reservation);
    state.live.add(reservation);
    return { ok: true, reservationId: reservation.id, snapshot: view(state, req.now) };
  }

  async settle(req: SettleRequest): Promise<SettleResult> {
    checkAmount(req.nanos);
    checkAmount(req.tokens);
    return this.#finish(req.reservationId, req.nanos, req.tokens, true);
  }

  async release(reservationId: ReservationId): Promise<SettleResult> {
    return this.#finish(reservationId, 0, 0, false);
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
    // An earlier period that contains this one (the key moved to a period that starts earlier) only raises
    // this one's spend, which it keeps billing until it ends; any other earlier period is stale.
    const contains = req.periodStart < state.period && req.periodEnd !== undefined && req.periodEnd > state.period;
    if (req.periodStart < state.period && !contains) return;
    rollPeriod(state, req.periodStart);
    const replace = req.mode === 'replace' && !contains;
    state.spentNanos = replace ? req.spentNanos : Math.max(state.spentNanos, req.spentNanos);
    state.spentTokens = replace ? req.spentTokens : Math.max(state.spentTokens, req.spentTokens);
  }

  async close(): Promise<void> {
    this.#keys.clear();
    this.#reservations.clear();
  }

  /** Settle (`bill`: the real amounts) or release one reservation; an id not live now is `{ ok: false }`. */
  #finish(id: ReservationId, nanos: number, tokens: number, bill: boolean): SettleResult {
    const reservation = typeof id === 'number' ? this.#reservations.get(id) : undefined;
    if (reservation === undefined) return { ok: false };
    const { state, period, window } = reservation;
    this.#drop(reservation);
    if (bill && period === state.period) {
      state.spentNanos += nanos;
      state.spentTokens += tokens;
    }
    if (bill && window === state.window) state.tpmUsed += tokens;
    return { ok: true, periodStart: period };
  }

  /** Undo a reservation's hold on budget, TPM and concurrency; the RPM count stays. */
  #drop(reservation: Reservation): void {
    const { state } = reservation;
    this.#reservations.delete(reservation.id);
    state.live.delete(reservation);
    state.inFlight -= 1;
    if (reservation.period === state.period) {
      state.reservedNanos -= reservation.nanos;
      state.reservedTokens -= reservation.tokens;
    }
    if (reservation.window === state.window) state.tpmUsed = Math.max(0, state.tpmUsed - reservation.tokens);
  }

  #reclaimExpired(state: KeyState, now: number): void {
    // Every reservation gets the same TTL and the key's set is in admit order, so the first live
    // reservation is the one that expires first: stop there (O(1) per admit instead of O(in flight)).
    for (const reservation of state.live) {
      if (reservation.expiresAt > now) return;
      this.#drop(reservation);
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
    live: new Set(),
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
  if (
    limits.tokenBudget !== null &&
    state.spentTokens + state.reservedTokens + req.reserveTokens > limits.tokenBudget
  ) {
    return 'token_budget';
  }
  const share = limits.inFlightShare ?? null;
  if (share !== null && state.inFlight > 0) {
    if (
      limits.budgetNanos !== null &&
      state.reservedNanos + req.reserveNanos > share * (limits.budgetNanos - state.spentNanos)
    )
      return 'in_flight';
    if (
      limits.tokenBudget !== null &&
      state.reservedTokens + req.reserveTokens > share * (limits.tokenBudget - state.spentTokens)
    )
      return 'in_flight';
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

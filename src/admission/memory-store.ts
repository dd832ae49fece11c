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
  /** The key's live reservations in admit order (slot numbers, NONE = empty): the oldest expires first. */
  first: number;
  last: number;
}

/** No slot: the end of a key's list. */
const NONE = -1;
/**
 * A reservation id is `slot + SLOTS × use`: the slot, and how many times it had been handed out before,
 * so an id settled late, after its slot was reclaimed and reused, is told from the new holder. Ids stay
 * exact integers (below 2^53) for 2^32 uses of each slot.
 */
const SLOTS = 2 ** 21;

/**
 * One reservation's place, reused from request to request. Map and Set entries added and deleted per
 * request made V8 rebuild their hash tables, and a long-lived table's rebuild is allocated straight in
 * the old generation, and the major collections that garbage brings are the longest pauses a request
 * meets. Slots allocate nothing once the pool has grown to the most requests ever in flight.
 */
class Slot {
  /** Times this slot has been handed out; its live reservation's id carries the count before this one. */
  uses = 0;
  state: KeyState | null = null;
  nanos = 0;
  tokens = 0;
  period = 0;
  window = 0;
  expiresAt = 0;
  prev = NONE;
  next = NONE;
}

export interface MemoryStoreOptions {
  reservationTtlMs?: number;
}

export class MemoryAdmissionStore implements AdmissionStore {
  readonly #keys = new Map<string, KeyState>();
  readonly #slots: Slot[] = [];
  /**
   * Slots not holding a reservation, chained through `next` and reused last-freed first (an array
   * popped empty gives up its backing store, and the next push allocates one again).
   */
  #free = NONE;
  readonly #ttlMs: number;

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
    const at = this.#take();
    const slot = this.#slots[at] as Slot;
    slot.state = state;
    slot.nanos = req.reserveNanos;
    slot.tokens = req.reserveTokens;
    slot.period = state.period;
    slot.window = state.window;
    slot.expiresAt = req.now + this.#ttlMs;
    slot.prev = state.last;
    slot.next = NONE;
    if (state.last === NONE) state.first = at;
    else (this.#slots[state.last] as Slot).next = at;
    state.last = at;
    return { ok: true, reservationId: at + SLOTS * slot.uses, snapshot: view(state, req.now) };
  }

  settle(req: SettleRequest): SettleResult {
    checkAmount(req.nanos);
    checkAmount(req.tokens);
    return this.#finish(req.reservationId, req.nanos, req.tokens, true);
  }

  release(reservationId: ReservationId): SettleResult {
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
    this.#slots.length = 0;
    this.#free = NONE;
  }

  /** Settle (`bill`: the real amounts) or release one reservation; an id not live now is `{ ok: false }`. */
  #finish(id: ReservationId, nanos: number, tokens: number, bill: boolean): SettleResult {
    const at = this.#live(id);
    if (at === NONE) return { ok: false };
    const slot = this.#slots[at] as Slot;
    const state = slot.state as KeyState;
    const { period, window } = slot;
    this.#drop(at);
    if (bill && period === state.period) {
      state.spentNanos += nanos;
      state.spentTokens += tokens;
    }
    if (bill && window === state.window) state.tpmUsed += tokens;
    return { ok: true, periodStart: period };
  }

  /** The slot a live reservation id names, or NONE (never issued here, settled, or reclaimed). */
  #live(id: ReservationId): number {
    if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0) return NONE;
    const at = id % SLOTS;
    const slot = this.#slots[at];
    if (slot === undefined || slot.state === null || (id - at) / SLOTS !== slot.uses) return NONE;
    return at;
  }

  #take(): number {
    const reused = this.#free;
    if (reused !== NONE) {
      this.#free = (this.#slots[reused] as Slot).next;
      return reused;
    }
    const at = this.#slots.length;
    if (at === SLOTS) throw new Error(`more than ${SLOTS} reservations in flight`);
    this.#slots.push(new Slot());
    return at;
  }

  /** Undo a reservation's hold on budget, TPM and the slot, and free the slot; the RPM count stays. */
  #drop(at: number): void {
    const slot = this.#slots[at] as Slot;
    const state = slot.state as KeyState;
    if (slot.prev === NONE) state.first = slot.next;
    else (this.#slots[slot.prev] as Slot).next = slot.next;
    if (slot.next === NONE) state.last = slot.prev;
    else (this.#slots[slot.next] as Slot).prev = slot.prev;
    state.inFlight -= 1;
    if (slot.period === state.period) {
      state.reservedNanos -= slot.nanos;
      state.reservedTokens -= slot.tokens;
    }
    if (slot.window === state.window) state.tpmUsed = Math.max(0, state.tpmUsed - slot.tokens);
    slot.state = null;
    // The next holder's id differs from every id this slot gave out before (2^32 uses, then it wraps).
    slot.uses = (slot.uses + 1) % 2 ** 32;
    slot.next = this.#free;
    this.#free = at;
  }

  #reclaimExpired(state: KeyState, now: number): void {
    // Every reservation gets the same TTL and the key's list is in admit order, so the first live
    // reservation is the one that expires first: stop there (O(1) per admit instead of O(in flight)).
    while (state.first !== NONE) {
      const slot = this.#slots[state.first] as Slot;
      if (slot.expiresAt > now) return;
      this.#drop(state.first);
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
    first: NONE,
    last: NONE,
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
  const share = limits.inFlightShare ?? null;
  if (share !== null && state.inFlight > 0) {
    if (limits.budgetNanos !== null && state.reservedNanos + req.reserveNanos > share * (limits.budgetNanos - state.spentNanos)) return 'in_flight';
    if (limits.tokenBudget !== null && state.reservedTokens + req.reserveTokens > share * (limits.tokenBudget - state.spentTokens)) return 'in_flight';
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

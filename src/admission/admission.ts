// The admission stage: estimate the worst case, reserve it in the admission store, and later settle it
// to the real cost (or release it). Refusals become GatewayErrors with rate headers (docs/budgets.md).
import type { ModelConfig } from '../core/config-types.ts';
import type { Dialect } from '../core/dialect.ts';
import type { KeyRecord } from '../core/key-record.ts';
import { teamSubject, type TeamRecord } from '../core/team-record.ts';
import { emptyUsage, type Usage } from '../core/usage.ts';
import { setTimeout as delay } from 'node:timers/promises';
import { GatewayError, type ErrorCode } from '../core/errors.ts';
import { nextPeriodStart, periodStart } from '../core/budget.ts';
import { namedMaxTokens, requestedMaxTokens, reservationTokens } from './estimate-tokens.ts';
import { MAX_RATIO, newEntry, nextRatio, type KeyEntry } from './key-entry.ts';
import {
  cacheWriteOf,
  needsTokens,
  promptTokensOf,
  reservationOf,
  roomy,
  serviceTierOf,
  type Sizing,
} from './sizing.ts';
import { rateLimitHeaders } from './rate-headers.ts';
import { neverFitsTpm, refusalError } from './refusal.ts';
import type {
  AdmissionLimits,
  AdmissionSnapshot,
  AdmissionStore,
  AdmitRequest,
  AdmitResult,
  ReservationId,
  SettleResult,
  SpendWritten,
  WatchedKey,
} from './store.ts';
import type { SpendTotals, UsageRow } from '../store/store.ts';

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** One admitted request: what to settle, and the rate headers every response of it carries. */
export interface Ticket {
  /** The key's reservation; null when only its team has limits. */
  reservationId: ReservationId | null;
  keyId: string;
  /** Budget period the request counts against (unix ms; 0 = lifetime). */
  periodStart: number;
  headers: Readonly<Record<string, string>>;
  /** The prompt tokens the reservation assumed (before any learned ratio): what the real usage is compared with. */
  promptTokens: number;
  /** The model whose estimates the real usage teaches (its first deployment's upstream name). */
  target: string;
  /** The team's reservation when the key's team has limits; its period is set to the settled one by finish. */
  team: TeamHold | null;
}

/** What a request holds of its team's limits. */
export interface TeamHold {
  reservationId: ReservationId;
  /** The team's admission subject (teamSubject). */
  subject: string;
  /** The team's budget period the cost counts against (unix ms; 0 = lifetime). */
  periodStart: number;
}

/** What admit hands back: the ticket (null for a key without limits) and the prompt estimate. */
export interface Admitted {
  ticket: Ticket | null;
  /** The tokenizer's prompt estimate when admission made one; 0 when it only used the byte bound or none. */
  promptTokens: number;
  /**
   * Set when a money or token limit reserved `default_max_tokens` for a request that names no output
   * limit: the upstream must be held to it, or the reservation would bound nothing.
   */
  outputCap: number | null;
}

/**
 * The request's prompt estimate, made at most once: admission's own when it made one, else the
 * tokenizer's on first use (a translated Anthropic stream's message_start, or the bill of a stream cut
 * before its usage arrived). `model` is the upstream name whose tokenizer counts.
 */
export function promptEstimator(o: {
  known: number;
  body: Record<string, unknown>;
  model: string;
  embedding?: boolean;
}): () => number {
  let known = o.known;
  return () => (known > 0 ? known : (known = Math.max(1, promptTokensOf(o.body, { model: o.model }, o.embedding))));
}

export interface AdmitOptions {
  key: KeyRecord;
  model: ModelConfig;
  body: Record<string, unknown>;
  bodyBytes: number;
  now: number;
  /** Which field names the output limit, and whether `n` multiplies it; default `openai`. */
  dialect?: Dialect;
  /** A request that costs nothing upstream (count_tokens): counted against RPM and concurrency only. */
  free?: boolean;
  /** An embeddings request: its `input` is the prompt and it produces no output tokens. */
  embedding?: boolean;
}

const IN_FLIGHT_WAIT_MS = 30_000;
const IN_FLIGHT_FIRST_PAUSE_MS = 5;
const IN_FLIGHT_MAX_PAUSE_MS = 200;

/** Background tries of a settle the store failed (1, 2, 4 … 32 s apart: about a minute). */
const SETTLE_RETRIES = 6;

const UNLIMITED: Admitted = Object.freeze({ ticket: null, promptTokens: 0, outputCap: null });

export interface AdmissionOptions {
  store: AdmissionStore;
  /** Durable spent totals (the database); read at boot and when a key's period changes. */
  keySpend: (keyId: string, periodStart: number) => Promise<SpendTotals>;
  defaultMaxTokens: number;
  /**
   * The store failed while it was working (an outage starts): called once per outage, not per request,
   * so an outage of Redis is one log line however many requests it refuses.
   */
  onError: (err: unknown, what: string) => void;
  /** The store answers again after an outage: called once. */
  onRecovered?: () => void;
  /** AdmissionLimits.inFlightShare for every budgeted key (config `in_flight_budget_share`); null = none. */
  inFlightShare?: number | null;
  /** Why keys with limits must be refused here (another gateway counts them too), or null (admission/solo-guard.ts). */
  solo?: { readonly conflict: string | null };
}

export class Admission {
  readonly store: AdmissionStore;
  readonly #keySpend: AdmissionOptions['keySpend'];
  readonly #defaultMaxTokens: number;
  readonly #onError: AdmissionOptions['onError'];
  readonly #onRecovered: () => void;
  readonly #entries = new Map<string, KeyEntry>();
  /** Each team object's limits in a key's shape, made once per loaded team object. */
  readonly #teamRecords = new WeakMap<TeamRecord, KeyRecord>();
  /** The store is failing: said when it starts and when it ends, never per request. */
  #storeDown = false;
  /** Requests refused (503) because the store could not be asked, for /metrics. */
  unavailableRefusals = 0;
  readonly #solo: { readonly conflict: string | null } | null;
  readonly #inFlightShare: number | null;
  /** Per upstream model: how far real prompts have been beating the estimates (see key-entry.ts). */
  readonly #modelRatios = new Map<string, number>();

  constructor(options: AdmissionOptions) {
    this.store = options.store;
    this.#solo = options.solo ?? null;
    this.#inFlightShare = options.inFlightShare ?? null;
    this.#keySpend = options.keySpend;
    this.#defaultMaxTokens = options.defaultMaxTokens;
    this.#onError = options.onError;
    this.#onRecovered = options.onRecovered ?? (() => undefined);
  }

  /** Whether the store is failing now (its last operation failed), for readiness (/readyz). */
  get storeDown(): boolean {
    return this.#storeDown;
  }

  /** A store operation failed: the first failure of an outage is reported, later ones only counted. */
  #failed(err: unknown, what: string): void {
    if (this.#storeDown) return;
    this.#storeDown = true;
    this.#onError(err, what);
  }

  /** A store operation succeeded: ends an outage (reported once). */
  #answered(): void {
    if (!this.#storeDown) return;
    this.#storeDown = false;
    this.#onRecovered();
  }

  /** Loads every budgeted key's durable total, so the first request of a key does no database read. */
  async seed(keys: KeyRecord[], now: number): Promise<void> {
    const teams = keys.map((k) => this.#teamEntry(k, now)).filter((t) => t !== null);
    await Promise.all([...keys.map((k) => this.#entry(k, now)), ...new Set(teams)].map((e) => this.#ready(e)));
  }

  /**
   * Reserves the request's worst case against the key's limits and its team's; rejects with the refusal
   * as a GatewayError in the caller's dialect. The in-process store answers at once: the reservation is
   * made before the first await.
   */
  async admit(opts: AdmitOptions): Promise<Admitted> {
    const entry = this.#entry(opts.key, opts.now);
    const team = this.#teamEntry(opts.key, opts.now);
    if (!entry.limited && team === null) return UNLIMITED;
    const conflict = this.#solo?.conflict ?? null;
    if (conflict !== null)
      throw new GatewayError('admission_unavailable', { message: conflict, headers: { 'x-should-retry': 'false' } });
    const subjects: Subjects = { key: entry, team };
    // A subject's first request this period: its durable total and where it stands are loaded first (once).
    if (entry.limited && unprepared(entry)) await this.#prepare(entry, opts.now);
    if (team !== null && unprepared(team)) await this.#prepare(team, opts.now);
    // Awaited, not returned: an async function that returns a promise adopts it two microtasks later.
    return opts.free === true ? await this.#admitFree(subjects, opts) : await this.#admitSized(subjects, opts);
  }

  /**
   * Loads a subject's durable total once per period, and asks the store where it stands (once), which
   * keeps a burst of first requests near a limit from being refused on the byte bound's oversized sizes.
   */
  async #prepare(entry: KeyEntry, now: number): Promise<void> {
    if (entry.budgeted && entry.seededPeriod !== entry.period) await this.#ready(entry);
    if (needsTokens(entry) && entry.last === null)
      entry.last = await this.store.snapshot(entry.record.id, now, entry.period).catch(() => null);
  }

  /**
   * Runs a token count under the key's limits: free upstream, but not unlimited (the key's RPM and
   * concurrency apply, its budgets are not touched); its slot is released when the count is done.
   */
  async whileCounting<T>(opts: Omit<AdmitOptions, 'free' | 'now'>, count: () => Promise<T>): Promise<T> {
    const { ticket } = await this.admit({ ...opts, now: Date.now(), free: true });
    try {
      return await count();
    } finally {
      if (ticket !== null) await this.finish(ticket, emptyUsage(), 0);
    }
  }

  async #admitFree(subjects: Subjects, opts: AdmitOptions): Promise<Admitted> {
    const { model } = opts;
    const nothing: Sizing = {
      model,
      target: model.deployments[0]?.model ?? model.name,
      maxTokens: 0,
      named: 0,
      promptTokens: 0,
      quick: true,
      cacheWrite: 'none',
    };
    return this.#conclude(
      subjects,
      opts.key,
      nothing,
      await this.#tryAdmit(subjects, opts.now, { nanos: 0, tokens: 0 }),
    );
  }

  async #admitSized(subjects: Subjects, opts: AdmitOptions): Promise<Admitted> {
    const { model, body, now } = opts;
    const { key: entry, team } = subjects;
    // Only money and token limits need the prompt size. Far from every limit, a quick upper bound is
    // enough (the request's size in bytes: no tokenizer, no scan of the text); near a limit, or when
    // the quick size is refused, the full tokenizer estimate decides, so it has the last word at the margin.
    const target = model.deployments[0]?.model ?? model.name;
    const embedding = opts.embedding === true;
    const maxTokens = embedding ? 0 : requestedMaxTokens(body, this.#defaultMaxTokens, opts.dialect);
    const sizing: Sizing = {
      model,
      target,
      maxTokens,
      named: embedding ? 0 : namedMaxTokens(body, opts.dialect),
      promptTokens: 0,
      quick: false,
      embedding,
      cacheWrite: embedding ? 'none' : cacheWriteOf(model, body),
      serviceTier: serviceTierOf(model, body),
    };
    let size = reservationOf(model, 0, maxTokens, sizing.cacheWrite, sizing.serviceTier);
    const sized = needsTokens(entry) || (team !== null && needsTokens(team));
    if (sized) {
      sizing.promptTokens = promptTokensOf(body, { model: target, boundBytes: opts.bodyBytes }, embedding);
      size = this.#sized(entry, sizing);
      sizing.quick = roomyFor(entry, size) && (team === null || roomyFor(team, size));
      if (!sizing.quick) {
        sizing.promptTokens = promptTokensOf(body, { model: target }, embedding);
        size = this.#sized(entry, sizing);
      }
    }
    let result = await this.#tryAdmit(subjects, now, size);
    if (heldBack(result)) result = await this.#waitForRoom(subjects, size, sized ? sizing : null, result);
    // A refusal of the quick (byte-bound) size is tried once more with the tokenizer's estimate.
    if (!result.ok && sizing.quick && result.reason !== 'rpm' && result.reason !== 'concurrency') {
      const full = promptTokensOf(body, { model: target }, embedding);
      sizing.quick = false;
      if (full !== sizing.promptTokens) {
        sizing.promptTokens = full;
        const resized = this.#sized(entry, sizing);
        result = await this.#tryAdmit(subjects, now, resized);
        if (heldBack(result)) result = await this.#waitForRoom(subjects, resized, sizing, result);
      }
    }
    return this.#conclude(subjects, opts.key, sizing, result);
  }

  #conclude(subjects: Subjects, key: KeyRecord, sizing: Sizing, result: Outcome): Admitted {
    if (this.#storeDown) this.#answered();
    const { key: entry, team } = subjects;
    if (!result.ok) {
      const by = result.by;
      by.last = result.snapshot;
      const requestTokens = reservationTokens(sizing);
      // A request larger than the whole minute's tokens gets no retry-after: waiting cannot let it in.
      const retryAfterSec = neverFitsTpm({ reason: result.reason, limits: by.limits, requestTokens })
        ? undefined
        : result.retryAfterSec;
      const refusal = refusalError({
        reason: result.reason,
        limits: by.limits,
        snapshot: result.snapshot,
        retryAfterSec,
        requestTokens,
      });
      const headers = rateLimitHeaders({ limits: by.limits, snapshot: result.snapshot, retryAfterSec });
      // Budgets (403) the SDKs do not retry; a request larger than the whole minute's tokens they would.
      if (retryAfterSec === undefined && result.reason === 'tpm') headers['x-should-retry'] = 'false';
      throw new GatewayError(refusal.code satisfies ErrorCode, {
        message: by === entry ? refusal.message : `team ${by.record.name}: ${refusal.message}`,
        status: refusal.status,
        headers,
      });
    }
    if (result.key !== null) entry.last = result.key.snapshot;
    if (team !== null && result.team !== null) team.last = result.team.snapshot;
    // The rate headers are the key's; a key without rate limits of its own shows its team's.
    const shown = hasRateLimits(entry.limits)
      ? result.key
      : team !== null && hasRateLimits(team.limits)
        ? result.team
        : null;
    const headers =
      shown === null
        ? NO_HEADERS
        : rateLimitHeaders({ limits: shown === result.key ? entry.limits : team!.limits, snapshot: shown.snapshot });
    const outputCap = sizing.named === null && this.#capsOutput(subjects) ? this.#defaultMaxTokens : null;
    const ticket: Ticket = {
      reservationId: result.key === null ? null : result.key.reservationId,
      keyId: key.id,
      periodStart: entry.period,
      team:
        team === null || result.team === null
          ? null
          : { reservationId: result.team.reservationId, subject: team.record.id, periodStart: team.period },
      headers,
      promptTokens: sizing.promptTokens,
      target: sizing.target,
    };
    return { ticket, promptTokens: sizing.quick ? 0 : sizing.promptTokens, outputCap };
  }

  /** A money or token limit on the key or its team reserved `default_max_tokens`: the upstream is held to it. */
  #capsOutput(subjects: Subjects): boolean {
    return needsTokens(subjects.key) || (subjects.team !== null && needsTokens(subjects.team));
  }

  /**
   * The reservation of a sized request: its prompt estimate scaled by how far this key's and this model's
   * real prompts have been beating their estimates, and its worst-case output.
   */
  #sized(entry: KeyEntry, sizing: Sizing): { nanos: number; tokens: number } {
    const ratio = Math.max(entry.ratio, this.#modelRatios.get(sizing.target) ?? 1);
    const prompt = ratio === 1 ? sizing.promptTokens : Math.ceil(sizing.promptTokens * ratio);
    return reservationOf(sizing.model, prompt, sizing.maxTokens, sizing.cacheWrite, sizing.serviceTier);
  }

  /**
   * Held back by the in-flight share (the budget is nearly spent and requests in flight hold their share
   * of it): waits for those to settle and tries again, resized each time (a settle may have taught a
   * ratio: `sizing`, or the fixed `size` when it is null); after IN_FLIGHT_WAIT_MS it is a 429. The common
   * case never comes here: its callers try once first (heldBack).
   */
  async #waitForRoom(
    subjects: Subjects,
    size: { nanos: number; tokens: number },
    sizing: Sizing | null,
    refused: Outcome,
  ): Promise<Outcome> {
    const until = Date.now() + IN_FLIGHT_WAIT_MS;
    let last = refused;
    for (
      let pause = IN_FLIGHT_FIRST_PAUSE_MS;
      Date.now() < until;
      pause = Math.min(IN_FLIGHT_MAX_PAUSE_MS, pause * 2)
    ) {
      await delay(pause);
      last = await this.#tryAdmit(subjects, Date.now(), sizing === null ? size : this.#sized(subjects.key, sizing));
      if (last.ok || last.reason !== 'in_flight') return last;
    }
    return last.ok ? last : { ...last, retryAfterSec: 1 };
  }

  /**
   * The key first, then its team: each admit is atomic in the store, so neither total can pass its limit
   * under concurrency (on one node or many). A team's refusal takes the key's reservation back; the
   * request still counts toward the key's requests per minute, as an attempt the key made.
   */
  async #tryAdmit(subjects: Subjects, now: number, size: { nanos: number; tokens: number }): Promise<Outcome> {
    const { key: entry, team } = subjects;
    let own: AdmitResult | null = null;
    let theirs: AdmitResult;
    // The store's own calls, inline rather than behind a helper: each async layer is a promise and a
    // resumption on every admitted request.
    try {
      if (entry.limited) own = await this.store.admit(admitRequest(entry, now, size));
      if (own !== null && !own.ok) return { ...own, by: entry };
      if (team === null) return { ok: true, key: own, team: null };
      theirs = await this.store.admit(admitRequest(team, now, size));
    } catch (err) {
      throw this.#unavailable(err);
    }
    if (theirs.ok) return { ok: true, key: own, team: theirs };
    if (own !== null) await this.store.release(own.reservationId).catch((err: unknown) => this.#failed(err, 'release'));
    return { ...theirs, by: team };
  }

  /** Fail closed: a key with limits is never served unchecked (docs/budgets.md, "Store outage"). */
  #unavailable(err: unknown): GatewayError {
    this.unavailableRefusals++;
    this.#failed(err, 'admit');
    return new GatewayError('admission_unavailable', { headers: { 'retry-after': '1' } });
  }

  /**
   * Settles to the real usage (success, cut or abandoned stream) or releases everything when nothing
   * was produced (upstream failure before any byte). Resolves to the period the cost belongs to (the
   * key's; the team's is in `ticket.team.periodStart` once this resolves).
   */
  async finish(ticket: Ticket, usage: Usage, nanos: number): Promise<number> {
    const tokens = usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
    if (ticket.promptTokens > 0 && tokens > 0)
      this.#learn(ticket, usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens);
    const team = ticket.team;
    if (team !== null) {
      const settleTeam = this.#settler(team.reservationId, nanos, tokens);
      try {
        team.periodStart = periodOf(await settleTeam(), team.periodStart);
      } catch (err) {
        this.#settleFailed(err, settleTeam);
      }
    }
    if (ticket.reservationId === null) return ticket.periodStart;
    const settle = this.#settler(ticket.reservationId, nanos, tokens);
    try {
      return periodOf(await settle(), ticket.periodStart);
    } catch (err) {
      this.#settleFailed(err, settle);
      return ticket.periodStart;
    }
  }

  #settler(id: ReservationId, nanos: number, tokens: number): () => Promise<SettleResult> {
    return () =>
      nanos === 0 && tokens === 0 ? this.store.release(id) : this.store.settle({ reservationId: id, nanos, tokens });
  }

  /** A settled request's real prompt against its estimate: the key's and the model's ratios follow it. */
  #learn(ticket: Ticket, realPrompt: number): void {
    const seen = Math.min(MAX_RATIO, realPrompt / ticket.promptTokens);
    const entry = this.#entries.get(ticket.keyId);
    if (entry !== undefined) entry.ratio = nextRatio(entry.ratio, seen);
    const model = this.#modelRatios.get(ticket.target) ?? 1;
    const next = nextRatio(model, seen);
    if (next !== model) this.#modelRatios.set(ticket.target, next);
  }

  /**
   * The store is unreachable (a Redis blip): the row is still written now, and the settle is tried
   * again in the background (1 s, doubling, for about a minute) — left to the reservation's TTL, the
   * slot and the reserved budget would stay held for many minutes after Redis is back, and the
   * request's cost would never reach the shared total. A settle that arrives twice changes nothing.
   */
  #settleFailed(err: unknown, settle: () => Promise<SettleResult>, attempt = 1): void {
    if (attempt === 1) this.#failed(err, 'settle');
    if (attempt <= SETTLE_RETRIES) {
      const timer = setTimeout(
        () => {
          Promise.resolve()
            .then(settle)
            .catch((again: unknown) => this.#settleFailed(again, settle, attempt + 1));
        },
        1_000 * 2 ** (attempt - 1),
      );
      timer.unref();
    }
  }

  /**
   * A usage batch is in the database: a shared store is told how much of this instance's settled spend
   * now has rows, so that if this instance dies, only what it had not written is taken back out.
   */
  rowsWritten(rows: readonly UsageRow[]): void {
    const store = this.store;
    if (store.spendWritten === undefined) return;
    const byKey = new Map<string, SpendWritten>();
    const add = (subject: string, nanos: number, tokens: number): void => {
      if (this.#entries.get(subject)?.limited !== true) return;
      const w = byKey.get(subject) ?? { keyId: subject, nanos: 0, tokens: 0 };
      w.nanos += nanos;
      w.tokens += tokens;
      byKey.set(subject, w);
    };
    for (const r of rows) {
      const tokens = r.inputTokens + r.outputTokens + r.cacheReadTokens + r.cacheWriteTokens;
      if (r.costNanos === 0 && tokens === 0) continue;
      add(r.keyId, r.costNanos, tokens);
      if (r.teamId !== undefined && r.teamId !== null) add(teamSubject(r.teamId), r.costNanos, tokens);
    }
    if (byKey.size > 0)
      store.spendWritten([...byKey.values()]).catch((err: unknown) => this.#onError(err, 'spend written'));
  }

  /** The keys with limits this gateway has seen, for a shared store to reconcile when a replica dies. */
  watchedKeys(now: number): WatchedKey[] {
    const out: WatchedKey[] = [];
    for (const entry of this.#entries.values()) {
      if (!entry.limited) continue;
      const e = this.#entry(entry.record, now);
      out.push({ keyId: e.record.id, budgeted: e.budgeted, periodStart: e.period, periodEnd: e.periodEnd });
    }
    return out;
  }

  /** Rate headers for a response that never reached admission (an error before it), from a snapshot. */
  async headersFor(key: KeyRecord, now: number): Promise<Record<string, string>> {
    const entry = this.#entry(key, now);
    if (!hasRateLimits(entry.limits)) return {};
    try {
      return rateLimitHeaders({ limits: entry.limits, snapshot: await this.store.snapshot(key.id, now) });
    } catch (err) {
      this.#failed(err, 'snapshot');
      return {};
    }
  }

  /**
   * Refuses a key whose budget is spent (403) or whose requests-per-minute or concurrency window is
   * already full (429 with retry-after), read from a snapshot without reserving: what a body that is
   * costly to read (compressed, large or chunked) is checked against before it is read. A store that
   * cannot answer leaves it to admission.
   */
  async refuseIfFull(key: KeyRecord, now: number): Promise<void> {
    await this.#refuseIfFullFor(this.#entry(key, now), now, false);
    const team = this.#teamEntry(key, now);
    if (team !== null) await this.#refuseIfFullFor(team, now, true);
  }

  async #refuseIfFullFor(entry: KeyEntry, now: number, team: boolean): Promise<void> {
    const { limits } = entry;
    if (limits.rpm === null && limits.maxConcurrency === null && !entry.budgeted) return;
    let snapshot: AdmissionSnapshot;
    try {
      if (entry.budgeted && entry.seededPeriod !== entry.period) await this.#ready(entry);
      snapshot = await this.store.snapshot(entry.record.id, now, entry.period);
    } catch (err) {
      this.#failed(err, 'snapshot');
      return;
    }
    const reason =
      limits.budgetNanos !== null && snapshot.spentNanos >= limits.budgetNanos
        ? 'budget'
        : limits.tokenBudget !== null && snapshot.spentTokens >= limits.tokenBudget
          ? 'token_budget'
          : limits.rpm !== null && snapshot.rpmUsed >= limits.rpm
            ? 'rpm'
            : limits.maxConcurrency !== null && snapshot.inFlight >= limits.maxConcurrency
              ? 'concurrency'
              : null;
    if (reason === null) return;
    // As the stores answer an admit refused for the same reason; a spent budget has no retry-after.
    const retryAfterSec = reason === 'rpm' ? snapshot.windowResetSec : reason === 'concurrency' ? 1 : undefined;
    const refusal = refusalError({ reason, limits, snapshot, retryAfterSec });
    throw new GatewayError(refusal.code, {
      message: team ? `team ${entry.record.name}: ${refusal.message}` : refusal.message,
      status: refusal.status,
      headers: rateLimitHeaders({ limits, snapshot, retryAfterSec }),
    });
  }

  /** The key's limits and live counters for /api/usage/token. */
  async view(key: KeyRecord, now: number): Promise<SubjectView> {
    return this.#view(this.#entry(key, now), now);
  }

  /** The same for the key's team (its subject id is where its durable spend is), or null without one. */
  async teamView(key: KeyRecord, now: number): Promise<(SubjectView & { subject: string }) | null> {
    const team = key.teamRecord;
    if (team === null || team === undefined) return null;
    const entry = this.#teamSubjectEntry(team, now);
    return { ...(await this.#view(entry, now)), subject: entry.record.id };
  }

  async #view(entry: KeyEntry, now: number): Promise<SubjectView> {
    if (entry.budgeted && entry.seededPeriod !== entry.period) await this.#ready(entry);
    return {
      limits: entry.limits,
      snapshot: await this.store.snapshot(entry.record.id, now, entry.period),
      period: entry.period,
    };
  }

  /**
   * The admission state of the key's team, as a subject of its own (teamSubject); null when the key has
   * no team object or its team has no limits.
   */
  #teamEntry(key: KeyRecord, now: number): KeyEntry | null {
    const team = key.teamRecord;
    if (team === null || team === undefined) return null;
    const entry = this.#teamSubjectEntry(team, now);
    return entry.limited ? entry : null;
  }

  /** A team object's admission state, limited or not (its subject record is made once per object). */
  #teamSubjectEntry(team: TeamRecord, now: number): KeyEntry {
    let record = this.#teamRecords.get(team);
    if (record === undefined) this.#teamRecords.set(team, (record = teamAsSubject(team)));
    return this.#entry(record, now);
  }

  #entry(key: KeyRecord, now: number): KeyEntry {
    let entry = this.#entries.get(key.id);
    if (entry === undefined || entry.record !== key) {
      entry = newEntry(key, now, entry, this.#inFlightShare);
      this.#entries.set(key.id, entry);
    } else if (now >= entry.periodEnd) {
      entry.period = periodStart(key.budgetPeriod, now);
      entry.periodEnd = nextPeriodStart(key.budgetPeriod, now) ?? Infinity;
    }
    return entry;
  }

  /** Loads the durable total for the entry's current period once; concurrent callers share the load. */
  #ready(entry: KeyEntry): Promise<void> {
    if (!entry.budgeted || entry.seededPeriod === entry.period) return Promise.resolve();
    if (entry.seeding !== null) return entry.seeding;
    const period = entry.period;
    const periodEnd = entry.periodEnd;
    const keyId = entry.record.id;
    entry.seeding = this.#keySpend(keyId, period)
      .then((spent) => {
        // The key's period changed while its total was loading (an operator's edit, or the period's end):
        // the total belongs to a period the key is no longer in, and the new one loads its own. (A store
        // takes an earlier period that contains its current one, so a stale load must not reach it.)
        if (this.#entries.get(keyId)?.period !== period) return;
        return this.store.seedSpent({
          keyId,
          periodStart: period,
          periodEnd,
          spentNanos: spent.nanos,
          spentTokens: spent.tokens,
        });
      })
      .then(
        () => {
          entry.seededPeriod = period;
        },
        (err: unknown) => this.#failed(err, 'seed'),
      )
      .finally(() => {
        entry.seeding = null;
      });
    return entry.seeding;
  }
}

/** A reclaimed reservation (TTL) settles nothing; the usage row still bills the admit-time period. */
function periodOf(done: SettleResult, admitted: number): number {
  return done.ok ? done.periodStart : admitted;
}

/** What the store is asked for one subject. */
function admitRequest(entry: KeyEntry, now: number, size: { nanos: number; tokens: number }): AdmitRequest {
  return {
    keyId: entry.record.id,
    limits: entry.limits,
    periodStart: entry.period,
    reserveNanos: size.nanos,
    reserveTokens: size.tokens,
    now,
  };
}

/** Refused only for the share requests in flight hold: worth waiting for them to settle. */
function heldBack(result: Outcome): boolean {
  return !result.ok && result.reason === 'in_flight';
}

/** Whether a subject's durable total or its first snapshot is still to be loaded (then admit awaits it). */
function unprepared(entry: KeyEntry): boolean {
  return (entry.budgeted && entry.seededPeriod !== entry.period) || (entry.last === null && needsTokens(entry));
}

/** A team's limits in a key's shape: admission counts a team exactly as it counts a key. */
function teamAsSubject(team: TeamRecord): KeyRecord {
  return {
    id: teamSubject(team.id),
    name: team.name,
    hash: '',
    masked: '',
    models: null,
    expiresAt: null,
    disabled: false,
    budgetUsd: team.budgetUsd,
    tokenBudget: team.tokenBudget,
    budgetPeriod: team.budgetPeriod,
    rpm: team.rpm,
    tpm: team.tpm,
    maxConcurrency: team.maxConcurrency,
    createdAt: team.createdAt,
  };
}

/** Whether a subject's money and token limits are far enough off for the quick size (always, without any). */
function roomyFor(entry: KeyEntry, size: { nanos: number; tokens: number }): boolean {
  return !needsTokens(entry) || roomy(entry, size);
}

/** A key's or a team's limits and live counters, and the budget period they are in. */
export interface SubjectView {
  limits: AdmissionLimits;
  snapshot: AdmissionSnapshot;
  period: number;
}

/** The key's admission state and its team's (null when the key has no team with limits). */
interface Subjects {
  key: KeyEntry;
  team: KeyEntry | null;
}

type Admit = Extract<AdmitResult, { ok: true }>;

/** Both admits, or the refusal and whose limit refused it. */
type Outcome =
  | { ok: true; key: Admit | null; team: Admit | null }
  | (Extract<AdmitResult, { ok: false }> & { by: KeyEntry });

function hasRateLimits(limits: AdmissionLimits): boolean {
  return limits.rpm !== null || limits.tpm !== null;
}

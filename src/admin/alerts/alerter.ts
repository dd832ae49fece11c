// Raises alerts and sends them to the webhooks that asked for their event: a key's or a team's budget passing a
// threshold (checked when a batch of usage rows is written, never on the request path), a deployment's
// circuit opening (told by the breaker), a key about to expire (checked hourly). Each event is claimed in
// the alert log first, so it is sent once, across restarts and replicas alike.
import type { AlertEvent, AlertsConfig } from '../../core/config-types.ts';
import type { KeyRecord } from '../../core/key-record.ts';
import { teamSubject, type TeamRecord } from '../../core/team-record.ts';
import type { AlertLog } from '../../store/alert-log.ts';
import type { SpendTotals, UsageRow } from '../../store/store.ts';
import type { BreakerTransition } from '../../routing/circuit-breaker.ts';
import type { Logger } from '../../observability/logger.ts';
import { deliver, DELIVERY, type Alert, type DeliveryOptions } from './webhook.ts';

const HOUR_MS = 3_600_000;

export interface AlerterOptions {
  config: AlertsConfig;
  log: AlertLog;
  logger: Pick<Logger, 'warn' | 'info'>;
  /** The keys as the gateway serves them now. */
  keys: () => Iterable<KeyRecord>;
  /** Durable spend of a key in a budget period (the store's). */
  keySpend: (keyId: string, periodStart: number) => Promise<SpendTotals>;
  now?: () => number;
  delivery?: DeliveryOptions;
}

export class Alerter {
  readonly #o: AlerterOptions;
  readonly #now: () => number;
  /** Events this process has claimed or seen claimed: no query for them again. */
  readonly #known = new Set<string>();
  /** Deployments whose open circuit was told; forgotten when the circuit closes. */
  readonly #open = new Set<string>();
  readonly #wants: Set<AlertEvent>;
  #timer: NodeJS.Timeout | null = null;
  /** Deliveries under way, so a stop (and a test) can wait for them. */
  readonly #sending = new Set<Promise<void>>();

  constructor(o: AlerterOptions) {
    this.#o = o;
    this.#now = o.now ?? Date.now;
    this.#wants = new Set(o.config.webhooks.flatMap((w) => w.events));
  }

  wants(event: AlertEvent): boolean {
    return this.#wants.has(event);
  }

  /** Starts the hourly check of expiring keys (the first one now), when a webhook asked for them. */
  start(): void {
    if (!this.wants('key_expiring')) return;
    void this.checkExpiring();
    this.#timer = setInterval(() => void this.checkExpiring(), HOUR_MS);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    await Promise.allSettled([...this.#sending]);
  }

  /** Resolves once every alert raised so far has been delivered or given up. */
  async idle(): Promise<void> {
    while (this.#sending.size > 0) await Promise.allSettled([...this.#sending]);
  }

  /** A batch of usage rows is in the store: the keys it charged are checked against their budgets' thresholds. */
  rowsWritten(rows: readonly UsageRow[]): void {
    if (!this.wants('budget_threshold')) return;
    const periods = new Map<string, number>();
    for (const r of rows)
      if (r.costNanos > 0 || r.inputTokens + r.outputTokens > 0) periods.set(r.keyId, r.periodStart);
    if (periods.size === 0) return;
    // A team's spend counts in its own period: its rows say which (the team is checked once per batch).
    const teamPeriods = new Map<string, number>();
    for (const r of rows)
      if ((r.costNanos > 0 || r.inputTokens + r.outputTokens > 0) && r.teamId !== undefined && r.teamId !== null)
        teamPeriods.set(r.teamId, r.teamPeriodStart ?? 0);
    const keys: KeyRecord[] = [];
    const teams = new Map<string, TeamRecord>();
    for (const k of this.#o.keys()) {
      if (periods.has(k.id) && (k.budgetUsd !== null || k.tokenBudget !== null)) keys.push(k);
      const t = k.teamRecord;
      if (t !== null && t !== undefined && teamPeriods.has(t.id) && (t.budgetUsd !== null || t.tokenBudget !== null))
        teams.set(t.id, t);
    }
    for (const k of keys) this.#track(this.#checkBudget(keyBudget(k), periods.get(k.id) ?? 0));
    for (const t of teams.values()) this.#track(this.#checkBudget(teamBudget(t), teamPeriods.get(t.id) ?? 0));
  }

  /** Every breaker transition; a deployment taken out (its circuit opening, or its credentials refused) is told once per incident. */
  breakerChanged = (t: BreakerTransition): void => {
    if (t.to === 'closed') {
      this.#open.delete(t.deploymentId);
      return;
    }
    if ((t.to !== 'open' && t.to !== 'credentials') || t.reprobe === true || this.#open.has(t.deploymentId)) return;
    if (!this.wants('circuit_open')) return;
    this.#open.add(t.deploymentId);
    const at = this.#now();
    const why = t.to === 'credentials' ? 'the upstream refused its credentials' : 'it failed repeatedly';
    this.#track(
      this.#raise(
        {
          id: `circuit_open:${t.deploymentId}:${at}`,
          event: 'circuit_open',
          at,
          summary: `Deployment ${t.deploymentId} is taken out of rotation: ${why}${t.cooldownMs === undefined ? '' : `; retried in ${Math.round(t.cooldownMs / 1000)} s`}.`,
          data: { deployment: t.deploymentId, state: t.to, cooldown_ms: t.cooldownMs ?? null },
        },
        [],
      ),
    );
  };

  /** Keys that expire within the configured window and have not been told of yet. */
  async checkExpiring(): Promise<void> {
    const now = this.#now();
    const until = now + this.#o.config.keyExpiringMs;
    for (const k of this.#o.keys()) {
      if (k.disabled || k.expiresAt === null || k.expiresAt <= now || k.expiresAt > until) continue;
      const days = Math.max(0, Math.round(((k.expiresAt - now) / 86_400_000) * 10) / 10);
      this.#track(
        this.#raise(
          {
            id: `key_expiring:${k.id}:${k.expiresAt}`,
            event: 'key_expiring',
            at: now,
            summary: `Key "${k.name}" (${k.masked}) expires on ${new Date(k.expiresAt).toISOString()} (in ${days} days).`,
            data: {
              key_id: k.id,
              key_name: k.name,
              key_masked: k.masked,
              expires_at: new Date(k.expiresAt).toISOString(),
            },
          },
          [],
        ),
      );
    }
  }

  async #checkBudget(b: BudgetHolder, periodStart: number): Promise<void> {
    const spent = await this.#o.keySpend(b.spendId, periodStart);
    const usd = spent.nanos / 1e9;
    // The fuller of the two budgets decides: an alert says how close the key or team is to being refused.
    const shares: { pct: number; what: string }[] = [];
    if (b.budgetUsd !== null && b.budgetUsd > 0)
      shares.push({ pct: (usd / b.budgetUsd) * 100, what: `$${usd.toFixed(4)} of $${b.budgetUsd}` });
    if (b.tokenBudget !== null && b.tokenBudget > 0)
      shares.push({ pct: (spent.tokens / b.tokenBudget) * 100, what: `${spent.tokens} of ${b.tokenBudget} tokens` });
    if (shares.length === 0) return;
    const worst = shares.reduce((x, y) => (y.pct > x.pct ? y : x));
    const crossed = this.#o.config.budgetThresholds.filter((t) => worst.pct >= t);
    if (crossed.length === 0) return;
    const idOf = (t: number): string => `budget_threshold:${b.scope}:${b.id}:${periodStart}:${t}`;
    const fresh = crossed.filter((t) => !this.#known.has(idOf(t)));
    if (fresh.length === 0) return;
    const top = fresh[fresh.length - 1];
    const period = b.budgetPeriod ?? 'lifetime';
    const at = this.#now();
    // Thresholds passed at once are told as one: the highest, with the lower ones recorded as superseded.
    await this.#raise(
      {
        id: idOf(top),
        event: 'budget_threshold',
        at,
        summary: `${b.title} has used ${Math.floor(worst.pct)}% of its ${period} budget (${worst.what}); threshold ${top}%.`,
        data: {
          scope: b.scope,
          ...b.fields,
          threshold_pct: top,
          used_pct: Math.round(worst.pct * 100) / 100,
          spent_usd: usd,
          budget_usd: b.budgetUsd,
          spent_tokens: spent.tokens,
          token_budget: b.tokenBudget,
          period,
          period_start: periodStart === 0 ? null : new Date(periodStart).toISOString(),
        },
      },
      fresh.slice(0, -1).map(idOf),
    );
  }

  /** Claims the event (and marks the `superseded` ones), then delivers it to every webhook that wants it. */
  async #raise(alert: Alert, superseded: string[]): Promise<void> {
    if (this.#known.has(alert.id)) return;
    this.#known.add(alert.id);
    for (const id of superseded) {
      this.#known.add(id);
      await this.#o.log.claim({
        id,
        event: alert.event,
        createdAt: alert.at,
        summary: `${alert.summary} (superseded by ${alert.id})`,
        payload: JSON.stringify(alert.data),
        status: 'superseded',
      });
    }
    const mine = await this.#o.log.claim({
      id: alert.id,
      event: alert.event,
      createdAt: alert.at,
      summary: alert.summary,
      payload: JSON.stringify(alert.data),
      status: 'pending',
    });
    if (!mine) return;
    const hooks = this.#o.config.webhooks.filter((w) => w.events.includes(alert.event as AlertEvent));
    const results = await Promise.all(hooks.map((h) => deliver(h, alert, this.#o.delivery ?? DELIVERY)));
    const failed = results.filter((r) => !r.ok);
    for (const f of failed)
      this.#o.logger.warn(
        { alert: alert.id, error: f.error, attempts: f.attempts },
        'an alert webhook did not take the alert',
      );
    await this.#o.log.settle(alert.id, {
      status: failed.length === 0 ? 'delivered' : 'failed',
      attempts: Math.max(0, ...results.map((r) => r.attempts)),
      lastError: failed[0]?.error ?? null,
      deliveredAt: failed.length === 0 ? this.#now() : null,
    });
  }

  #track(p: Promise<void>): void {
    const tracked = p.catch((err: unknown) =>
      this.#o.logger.warn({ err: String(err) }, 'an alert could not be raised'),
    );
    this.#sending.add(tracked);
    void tracked.finally(() => this.#sending.delete(tracked));
  }
}

/** A key or a team, as a budget alert names it and reads its spend. */
interface BudgetHolder {
  scope: 'key' | 'team';
  id: string;
  /** Where its durable spend is kept (store.keySpend). */
  spendId: string;
  title: string;
  fields: Record<string, unknown>;
  budgetUsd: number | null;
  tokenBudget: number | null;
  budgetPeriod: string | null;
}

function keyBudget(k: KeyRecord): BudgetHolder {
  return {
    scope: 'key',
    id: k.id,
    spendId: k.id,
    title: `Key "${k.name}" (${k.masked})`,
    fields: { key_id: k.id, key_name: k.name, key_masked: k.masked },
    budgetUsd: k.budgetUsd,
    tokenBudget: k.tokenBudget,
    budgetPeriod: k.budgetPeriod,
  };
}

function teamBudget(t: TeamRecord): BudgetHolder {
  return {
    scope: 'team',
    id: t.id,
    spendId: teamSubject(t.id),
    title: `Team "${t.name}"`,
    fields: { team_id: t.id, team_name: t.name },
    budgetUsd: t.budgetUsd,
    tokenBudget: t.tokenBudget,
    budgetPeriod: t.budgetPeriod,
  };
}

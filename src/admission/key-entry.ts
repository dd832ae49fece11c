// What admission keeps per key: its limits, its budget period, whether its durable total is loaded, and
// how far its real prompts have been beating their estimates. Built once per key record and period.
import type { KeyRecord } from '../core/key-record.ts';
import { usdToNanos, nextPeriodStart, periodStart } from '../core/budget.ts';
import type { AdmissionLimits, AdmissionSnapshot } from './store.ts';

/** Per-key state computed once per key record and period, so the hot path only compares numbers. */
export interface KeyEntry {
  record: KeyRecord;
  limits: AdmissionLimits;
  /** The key has at least one limit; a key without any never touches the store. */
  limited: boolean;
  /** The key has a budget, so its spent total must be seeded from the database. */
  budgeted: boolean;
  period: number;
  /** First ms after the period (Infinity for lifetime budgets). */
  periodEnd: number;
  /** Period whose durable total was loaded into the store; -1 = not yet. */
  seededPeriod: number;
  seeding: Promise<void> | null;
  /** What the store said at this key's last admit: decides whether the quick estimate is safe. */
  last: AdmissionSnapshot | null;
  /** How far this key's real prompts have been beating their estimates (≥ 1; 1 = not at all). */
  ratio: number;
}

/**
 * Real prompts that beat their estimates teach a ratio, per key and per model: it rises at once to what
 * was seen and decays a fifth of the way back towards 1 with each request that did not beat it.
 */
const RATIO_DECAY = 0.8;
/** No estimate is scaled by more than this (a ratio comes from what an upstream reports). */
export const MAX_RATIO = 100;

/** Up at once to what was seen; otherwise a fifth of the way back towards 1 (or to what was seen, if higher). */
export function nextRatio(current: number, seen: number): number {
  if (seen >= current) return seen;
  return Math.max(1, seen, current * RATIO_DECAY + 1 - RATIO_DECAY);
}

export function newEntry(
  key: KeyRecord,
  now: number,
  previous: KeyEntry | undefined,
  inFlightShare: number | null,
): KeyEntry {
  const limits: AdmissionLimits = {
    rpm: key.rpm,
    tpm: key.tpm,
    maxConcurrency: key.maxConcurrency,
    budgetNanos: key.budgetUsd === null ? null : usdToNanos(key.budgetUsd),
    tokenBudget: key.tokenBudget,
    inFlightShare: null,
  };
  const period = periodStart(key.budgetPeriod, now);
  const budgeted = limits.budgetNanos !== null || limits.tokenBudget !== null;
  if (budgeted) limits.inFlightShare = inFlightShare;
  return {
    record: key,
    limits,
    limited: budgeted || limits.rpm !== null || limits.tpm !== null || limits.maxConcurrency !== null,
    budgeted,
    period,
    periodEnd: nextPeriodStart(key.budgetPeriod, now) ?? Infinity,
    // An edited key keeps its loaded total unless its period changed (then it is loaded again).
    seededPeriod: previous !== undefined && previous.period === period ? previous.seededPeriod : -1,
    seeding: null,
    last: null,
    ratio: previous?.ratio ?? 1,
  };
}

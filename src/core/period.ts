// Budget periods start at UTC midnight (daily), Monday 00:00 UTC (weekly) or the 1st 00:00 UTC (monthly).
import type { BudgetPeriod } from './key-record.ts';

export function periodStart(period: BudgetPeriod | null, nowMs: number): number {
  if (period === null) return 0;
  const d = new Date(nowMs);
  if (period === 'monthly') return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  const day = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  if (period === 'daily') return day;
  const sinceMonday = (d.getUTCDay() + 6) % 7;
  return day - sinceMonday * 86_400_000;
}

export function nextPeriodStart(period: BudgetPeriod | null, nowMs: number): number | null {
  if (period === null) return null;
  const start = periodStart(period, nowMs);
  const d = new Date(start);
  if (period === 'monthly') return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  return start + (period === 'daily' ? 86_400_000 : 7 * 86_400_000);
}

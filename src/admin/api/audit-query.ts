// GET /admin/audit's query: each parameter it knows, checked; a parameter it does not know is a 400 that
// names it, never a listing that quietly ignores it.
import { UsageError } from '../key-flags.ts';
import { parseTime } from '../operations/usage-operations.ts';
import type { AuditFilter } from '../../store/audit-log.ts';

const KNOWN = new Set(['from', 'to', 'actor', 'action', 'target', 'target_kind', 'limit', 'format']);
const MAX_LIMIT = 10_000;

export function auditFilter(query: URLSearchParams): { filter: AuditFilter; format: 'json' | 'csv' } {
  for (const name of query.keys())
    if (!KNOWN.has(name))
      throw new UsageError(`unknown filter "${name}"; GET /admin/audit takes ${[...KNOWN].join(', ')}`);
  const text = (name: string): string | undefined => {
    const v = query.get(name);
    return v === null || v === '' ? undefined : v;
  };
  const filter: AuditFilter = { limit: 500 };
  const from = text('from');
  const to = text('to');
  if (from !== undefined) filter.from = parseTime(from, 'from').ms;
  if (to !== undefined) filter.to = parseTime(to, 'to').ms;
  const actor = text('actor');
  const action = text('action');
  const target = text('target');
  const targetKind = text('target_kind');
  if (actor !== undefined) filter.actor = actor;
  if (action !== undefined) filter.action = action;
  if (target !== undefined) filter.target = target;
  if (targetKind !== undefined) filter.targetKind = targetKind;
  const limit = text('limit');
  if (limit !== undefined) {
    const n = Number(limit);
    if (!Number.isSafeInteger(n) || n < 1 || n > MAX_LIMIT)
      throw new UsageError(`limit must be a whole number from 1 to ${MAX_LIMIT}`);
    filter.limit = n;
  }
  const format = text('format') ?? 'json';
  if (format !== 'json' && format !== 'csv') throw new UsageError('format must be json or csv');
  return { filter, format };
}

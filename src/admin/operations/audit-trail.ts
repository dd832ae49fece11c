// Writing the audit trail: each operation that changes something calls `audited` with the thing's public
// (masked) view before and after, and the front end that called the operation says who acts and from where.
// Without a trail (a test of the operations alone) nothing is written.
import { randomUUID } from 'node:crypto';
import type { AuditEntry, AuditLog } from '../../store/audit-log.ts';

export interface AuditContext {
  log: AuditLog;
  actor: { kind: string; name: string };
  /** The caller's address; null for the CLI. */
  source: string | null;
}

export interface Change {
  action: string;
  targetKind: string;
  targetId: string;
  targetName: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

export async function audited(ctx: AuditContext | undefined, change: Change, now = Date.now()): Promise<void> {
  if (ctx === undefined) return;
  await ctx.log.record({
    id: randomUUID(),
    at: now,
    actorKind: ctx.actor.kind,
    actorName: ctx.actor.name,
    source: ctx.source,
    action: change.action,
    targetKind: change.targetKind,
    targetId: change.targetId,
    targetName: change.targetName,
    before: change.before === null ? null : JSON.stringify(change.before),
    after: change.after === null ? null : JSON.stringify(change.after),
  });
}

/** A provider or model is named by its name: that is its identity in the config and the API. */
export function entryChange(
  action: string,
  kind: string,
  name: unknown,
  before: object | null,
  after: object | null,
): Change {
  return {
    action,
    targetKind: kind,
    targetId: String(name),
    targetName: String(name),
    before: before as Record<string, unknown> | null,
    after: after as Record<string, unknown> | null,
  };
}

/**
 * Runs a CLI change with the trail open, as the OS user's, from no address (the CLI runs on the gateway's
 * host); the trail is closed after.
 */
export async function withCliAudit<T>(database: string, run: (ctx: AuditContext) => Promise<T>): Promise<T> {
  const { openAuditLog } = await import('../../store/audit-log.ts');
  const { isPostgresUrl } = await import('../../store/database-url.ts');
  const { cliActor } = await import('../api/actor.ts');
  const log = await openAuditLog(database, isPostgresUrl(database));
  try {
    const actor = cliActor();
    return await run({ log, actor: { kind: actor.kind, name: actor.name }, source: null });
  } finally {
    await log.close();
  }
}

/** An entry as GET /admin/audit and its CSV show it. */
export function auditView(e: AuditEntry): Record<string, unknown> {
  return {
    id: e.id,
    at: new Date(e.at).toISOString(),
    actor: { kind: e.actorKind, name: e.actorName },
    source: e.source,
    action: e.action,
    target: { kind: e.targetKind, id: e.targetId, name: e.targetName },
    before: e.before === null ? null : (JSON.parse(e.before) as unknown),
    after: e.after === null ? null : (JSON.parse(e.after) as unknown),
  };
}

const CSV_COLUMNS = [
  'at',
  'actor_kind',
  'actor',
  'source',
  'action',
  'target_kind',
  'target_id',
  'target_name',
  'before',
  'after',
] as const;

/** One line per entry; a cell starting with a formula character is quoted with a leading apostrophe. */
export function auditCsv(entries: AuditEntry[]): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const e of entries)
    lines.push(
      [
        new Date(e.at).toISOString(),
        e.actorKind,
        e.actorName,
        e.source ?? '',
        e.action,
        e.targetKind,
        e.targetId,
        e.targetName ?? '',
        e.before ?? '',
        e.after ?? '',
      ]
        .map(csvCell)
        .join(','),
    );
  return `${lines.join('\n')}\n`;
}

function csvCell(v: string): string {
  const safe = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

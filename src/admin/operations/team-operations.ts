// The team operations behind both front ends: `modelgate teams …` and /admin/teams. A team holds a budget,
// rate limits and rights above its keys (admission counts it as one more subject); keys name it by name.
import { randomBytes } from 'node:crypto';
import { teamSubject, type TeamRecord } from '../../core/team-record.ts';
import type { KeyRecord } from '../../core/key-record.ts';
import type { SpendTotals, Store, TeamPatch } from '../../store/store.ts';
import { periodStart } from '../../core/budget.ts';
import { UsageError } from '../key-flags.ts';
import { audited } from './audit-trail.ts';
import { renamed, spendFrom, spendRowsSince, type KeyOperations } from './key-operations.ts';

/** Team ids are the gateway's: a rename keeps the team's spend and counters, which are kept by id. */
export function newTeamId(): string {
  return `team_${randomBytes(8).toString('hex')}`;
}

export async function createTeam(
  ops: KeyOperations,
  patch: TeamPatch & { name: string },
  now = Date.now(),
): Promise<TeamRecord> {
  const name = patch.name.trim();
  if (name === '') throw new UsageError('a team needs a name');
  await teamNameFree(ops.store, name);
  const team: TeamRecord = {
    id: newTeamId(),
    models: null,
    mcpTools: null,
    budgetUsd: null,
    tokenBudget: null,
    budgetPeriod: null,
    rpm: null,
    tpm: null,
    maxConcurrency: null,
    createdAt: now,
    ...patch,
    name,
  };
  await ops.store.insertTeam(team);
  await ops.changed?.();
  await audited(ops.audit, { ...teamTarget('team.create', team), before: null, after: teamView(team) }, now);
  return team;
}

/** A new name moves the team's keys with it (their `team` field follows, in the same transaction). */
export async function updateTeam(ops: KeyOperations, idOrName: string, patch: TeamPatch): Promise<TeamRecord> {
  const t = await findTeamOrFail(ops.store, idOrName);
  patch = await renamed(patch, t.name, 'team', (name) => teamNameFree(ops.store, name));
  await ops.store.updateTeam(t.id, patch);
  await ops.changed?.();
  const after = await findTeamOrFail(ops.store, t.id);
  await audited(ops.audit, { ...teamTarget('team.update', after), before: teamView(t), after: teamView(after) });
  return after;
}

/**
 * A team that still has keys is not deleted: its keys would lose its limits silently. Move or delete
 * them first (the error names how many).
 */
export async function deleteTeam(ops: KeyOperations, idOrName: string): Promise<TeamRecord> {
  const t = await findTeamOrFail(ops.store, idOrName);
  const members = (await ops.store.listKeys()).filter((k) => k.team === t.name);
  if (members.length > 0)
    throw new UsageError(
      `team "${t.name}" still has ${members.length} key${members.length === 1 ? '' : 's'} (${members
        .slice(0, 5)
        .map((k) => k.name)
        .join(', ')}${members.length > 5 ? ', …' : ''}); move or delete them first`,
      'conflict',
    );
  await ops.store.deleteTeam(t.id);
  await ops.changed?.();
  await audited(ops.audit, { ...teamTarget('team.delete', t), before: teamView(t), after: null });
  return t;
}

export async function findTeamOrFail(store: Store, idOrName: string | undefined): Promise<TeamRecord> {
  if (!idOrName) throw new UsageError('name the team by id or name');
  const t = await store.findTeam(idOrName);
  if (!t) throw new UsageError(`no team with id or name "${idOrName}"`, 'not_found');
  return t;
}

async function teamNameFree(store: Store, name: string): Promise<void> {
  const taken = await store.findTeam(name);
  if (taken !== null && taken.name === name)
    throw new UsageError(`a team named "${name}" already exists (${taken.id}); choose another name`, 'conflict');
}

function teamTarget(
  action: string,
  t: TeamRecord,
): { action: string; targetKind: string; targetId: string; targetName: string } {
  return { action, targetKind: 'team', targetId: t.id, targetName: t.name };
}

/** A team as the API shows it: the settings in the shape keys use. */
export function teamView(t: TeamRecord): Record<string, unknown> {
  return {
    id: t.id,
    name: t.name,
    models: t.models,
    mcp_tools: t.mcpTools,
    budget_usd: t.budgetUsd,
    token_budget: t.tokenBudget,
    budget_period: t.budgetPeriod,
    rpm: t.rpm,
    tpm: t.tpm,
    concurrency: t.maxConcurrency,
    created_at: new Date(t.createdAt).toISOString(),
  };
}

/** The view with what the team's keys spent together this period, what is left and how many keys it has. */
export async function teamWithSpend(
  store: Store,
  t: TeamRecord,
  now = Date.now(),
  keys?: readonly KeyRecord[],
): Promise<Record<string, unknown>> {
  const [spent, all] = await Promise.all([
    store.keySpend(teamSubject(t.id), periodStart(t.budgetPeriod, now)),
    keys ?? store.listKeys(),
  ]);
  return withSpend(t, spent, all);
}

function withSpend(t: TeamRecord, spent: SpendTotals, keys: readonly KeyRecord[]): Record<string, unknown> {
  return {
    ...teamView(t),
    keys: keys.filter((k) => k.team === t.name).length,
    spent_usd: spent.nanos / 1e9,
    budget_left_usd: t.budgetUsd === null ? null : Math.max(0, t.budgetUsd - spent.nanos / 1e9),
    tokens_used: spent.tokens,
    tokens_left: t.tokenBudget === null ? null : Math.max(0, t.tokenBudget - spent.tokens),
  };
}

/** Every team with its spend; the keys and the spend are read once for all of them. */
export async function listTeamsWithSpend(store: Store, now = Date.now()): Promise<Record<string, unknown>[]> {
  const [teams, keys] = await Promise.all([store.listTeams(), store.listKeys()]);
  const starts = teams.map((t) => periodStart(t.budgetPeriod, now));
  const rows = await spendRowsSince(store, starts);
  return teams.map((t, i) => withSpend(t, spendFrom(rows.get(teamSubject(t.id)), starts[i]), keys));
}

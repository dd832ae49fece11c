// `modelgate teams …`: create, list, show, update, delete: the command line front end of the team
// operations (operations/team-operations.ts), as /admin/teams is the HTTP one. Limits take the flags keys use.
import { parseArgs } from 'node:util';
import type { Store, TeamPatch } from '../store/store.ts';
import { withCliAudit, type AuditContext } from './operations/audit-trail.ts';
import { KEY_OPTION_SPEC, keyPatchFromFlags, UsageError } from './key-flags.ts';
import { viewText } from './keys-command.ts';
import {
  createTeam,
  deleteTeam,
  findTeamOrFail,
  listTeamsWithSpend,
  teamView,
  teamWithSpend,
  updateTeam,
} from './operations/team-operations.ts';

const CHANGES = new Set(['create', 'update', 'delete']);

const TEAM_OPTION_SPEC = {
  name: KEY_OPTION_SPEC.name,
  models: KEY_OPTION_SPEC.models,
  'mcp-tools': KEY_OPTION_SPEC['mcp-tools'],
  'budget-usd': KEY_OPTION_SPEC['budget-usd'],
  'token-budget': KEY_OPTION_SPEC['token-budget'],
  'budget-period': KEY_OPTION_SPEC['budget-period'],
  rpm: KEY_OPTION_SPEC.rpm,
  tpm: KEY_OPTION_SPEC.tpm,
  concurrency: KEY_OPTION_SPEC.concurrency,
} as const;

export const TEAMS_USAGE =
  'usage: modelgate teams create|list|show|update|delete [ID|NAME] [--name N] [--models m1,m2] [--mcp-tools t1,t2] [--budget-usd X] [--token-budget N] [--budget-period daily|weekly|monthly] [--rpm N] [--tpm N] [--concurrency N] [--json]';

/** As `keys`: a change is recorded in the audit trail as the OS user's; a read opens no trail. */
export async function teamsCommandAudited(
  database: string,
  store: Store,
  argv: string[],
  out: (s: string) => void,
): Promise<void> {
  if (!CHANGES.has(argv[0] ?? '')) return teamsCommand(store, argv, out);
  return withCliAudit(database, (audit) => teamsCommand(store, argv, out, audit));
}

export async function teamsCommand(
  store: Store,
  argv: string[],
  out: (s: string) => void,
  audit?: AuditContext,
): Promise<void> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    options: { ...TEAM_OPTION_SPEC, json: { type: 'boolean' }, config: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  const json = values.json === true;
  const ops = { store, ...(audit === undefined ? {} : { audit }) };
  const patch = (): TeamPatch => {
    const { name, models, mcpTools, budgetUsd, tokenBudget, budgetPeriod, rpm, tpm, maxConcurrency } =
      keyPatchFromFlags(values);
    const all: TeamPatch = { name, models, mcpTools, budgetUsd, tokenBudget, budgetPeriod, rpm, tpm, maxConcurrency };
    // A flag not given leaves the setting as it is (absent, not undefined over a default).
    return Object.fromEntries(Object.entries(all).filter(([, v]) => v !== undefined)) as TeamPatch;
  };
  switch (sub) {
    case 'create': {
      if (!values.name) throw new UsageError('teams create needs --name NAME');
      const team = await createTeam(ops, { ...patch(), name: values.name });
      out(json ? JSON.stringify(teamView(team)) : `Created team ${team.id} (${team.name}).`);
      return;
    }
    case 'list': {
      const teams = await listTeamsWithSpend(store);
      if (json) out(JSON.stringify(teams));
      else if (teams.length === 0) out('No teams. Create one with: npx modelgate teams create --name NAME');
      else
        for (const t of teams)
          out(
            `${t.id}  ${t.name}  keys=${t.keys}  spent=$${t.spent_usd}  budget=${t.budget_usd === null ? '-' : `$${t.budget_usd}`}`,
          );
      return;
    }
    case 'show': {
      const view = await teamWithSpend(store, await findTeamOrFail(store, positionals[0]));
      out(json ? JSON.stringify(view) : viewText(view));
      return;
    }
    case 'update': {
      const after = await updateTeam(ops, positionals[0] ?? '', patch());
      out(json ? JSON.stringify(teamView(after)) : `Updated team ${after.id} (${after.name}).`);
      return;
    }
    case 'delete': {
      const t = await deleteTeam(ops, positionals[0] ?? '');
      out(json ? JSON.stringify({ deleted: t.id }) : `Deleted team ${t.id} (${t.name}).`);
      return;
    }
    default:
      throw new UsageError(TEAMS_USAGE);
  }
}

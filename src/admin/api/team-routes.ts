// /admin/teams: GET (list) and POST (create) on the collection; GET, PATCH and DELETE on /{id} (id or
// name). Administrators change teams; a team administrator reads its own team only, viewers read all.
import type { IncomingMessage } from 'node:http';
import { GatewayError } from '../../core/errors.ts';
import type { Principal } from './actor.ts';
import type { KeyOperations } from '../operations/key-operations.ts';
import {
  createTeam,
  deleteTeam,
  findTeamOrFail,
  listTeamsWithSpend,
  teamWithSpend,
  updateTeam,
} from '../operations/team-operations.ts';
import { createTeamBody, teamPatchFromBody, updateTeamBody } from './team-bodies.ts';

export interface TeamCall {
  req: IncomingMessage;
  ops: KeyOperations;
  actor: Principal;
  body: () => Promise<unknown>;
  reply: (status: number, body: string) => void;
  allow: (methods: string[], run: () => Promise<void> | void) => Promise<void>;
}

/** Whether the path is one of these routes (then `handleTeams` answers it). */
export function isTeamRoute(segments: readonly string[]): boolean {
  return segments[0] === 'teams' && (segments.length === 1 || (segments.length === 2 && segments[1] !== ''));
}

export function handleTeams(c: TeamCall, method: string, segments: readonly string[], decode: (s: string) => string) {
  const store = c.ops.store;
  if (segments.length === 1)
    return c.allow(['GET', 'POST'], async () => {
      if (method === 'GET') {
        const all = await listTeamsWithSpend(store);
        const data = c.actor.role === 'team_admin' ? all.filter((t) => t.name === c.actor.team) : all;
        return c.reply(200, JSON.stringify({ data }));
      }
      const body = createTeamBody.parse(await c.body());
      const team = await createTeam(c.ops, { ...teamPatchFromBody(body), name: body.name });
      return c.reply(201, JSON.stringify(await teamWithSpend(store, team)));
    });
  const idOrName = decode(segments[1]);
  return c.allow(['GET', 'PATCH', 'DELETE'], async () => {
    if (method === 'GET') {
      const team = await findTeamOrFail(store, idOrName);
      if (c.actor.role === 'team_admin' && team.name !== c.actor.team)
        throw new GatewayError('permission_denied', {
          message: `${c.actor.name} reads team ${c.actor.team ?? '(none)'} only.`,
        });
      return c.reply(200, JSON.stringify(await teamWithSpend(store, team)));
    }
    if (method === 'DELETE') {
      c.req.resume();
      const team = await deleteTeam(c.ops, idOrName);
      return c.reply(200, JSON.stringify({ id: team.id, deleted: true }));
    }
    const patch = teamPatchFromBody(updateTeamBody.parse(await c.body()));
    return c.reply(200, JSON.stringify(await teamWithSpend(store, await updateTeam(c.ops, idOrName, patch))));
  });
}

// The OpenAPI operations of /admin/teams (openapi.ts adds them to its document): their bodies are the zod
// schemas the routes validate with (team-bodies.ts).
import { z } from 'zod';
import { createTeamBody, teamFields, updateTeamBody } from './team-bodies.ts';
import type { Operations } from './openapi.ts';

const teamView = z.object({
  id: z.string(),
  ...teamFields,
  created_at: z.iso.datetime(),
  keys: z.int().meta({ description: 'How many keys name the team.' }),
  spent_usd: z.number().meta({ description: 'All of its keys together, in the current budget period.' }),
  budget_left_usd: z.number().nullable(),
  tokens_used: z.int(),
  tokens_left: z.int().nullable(),
});

const TEAM_ID = { id: 'Team id or name.' };

export const TEAM_OPERATIONS: Operations = {
  '/admin/teams': {
    get: {
      summary: 'Every team with what its keys spent together (a team administrator: its own)',
      answers: { 200: { description: 'Teams', schema: z.object({ data: z.array(teamView) }) }, 401: 'error' },
    },
    post: {
      summary: 'Create a team: a budget, rate limits and rights above its keys',
      body: createTeamBody,
      answers: { 201: { description: 'Created', schema: teamView }, 400: 'error', 403: 'error', 409: 'error' },
    },
  },
  '/admin/teams/{id}': {
    get: {
      summary: 'One team with its spend',
      path: TEAM_ID,
      answers: { 200: { description: 'Team', schema: teamView }, 403: 'error', 404: 'error' },
    },
    patch: {
      summary: 'Change a team’s settings (null clears a limit; a new name moves its keys along)',
      path: TEAM_ID,
      body: updateTeamBody,
      answers: { 200: { description: 'Team', schema: teamView }, 400: 'error', 404: 'error', 409: 'error' },
    },
    delete: {
      summary: 'Delete a team that has no keys left (409 names them otherwise)',
      path: TEAM_ID,
      answers: {
        200: { description: 'Deleted', schema: z.object({ id: z.string(), deleted: z.boolean() }) },
        404: 'error',
        409: 'error',
      },
    },
  },
};

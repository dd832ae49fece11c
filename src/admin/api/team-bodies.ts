// The JSON bodies of POST /admin/teams and PATCH /admin/teams/{id}: the budget and limits in the shape
// keys use (key-bodies.ts), validated with zod into a TeamPatch.
import { z } from 'zod';
import type { TeamPatch } from '../../store/store.ts';
import { keyFields, limitsFromBody } from './key-bodies.ts';

export const teamFields = {
  name: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .meta({ description: 'Unique; what a key’s `team` names. A rename moves the team’s keys along.' }),
  models: keyFields.models.meta({
    description: 'Models (names or globs) every key of the team is limited to, on top of its own; null every model.',
  }),
  mcp_tools: keyFields.mcp_tools.meta({
    description: 'MCP tools every key of the team is limited to, on top of its own; null every tool, [] none.',
  }),
  budget_usd: keyFields.budget_usd.meta({
    description: 'USD per budget period for all of the team’s keys together; null unlimited.',
  }),
  token_budget: keyFields.token_budget.meta({ description: 'Tokens per budget period, all keys together.' }),
  budget_period: keyFields.budget_period,
  rpm: keyFields.rpm.meta({ description: 'Requests per minute, all keys together.' }),
  tpm: keyFields.tpm.meta({ description: 'Tokens per minute, all keys together.' }),
  concurrency: keyFields.concurrency.meta({ description: 'Requests in flight at once, all keys together.' }),
};

export const createTeamBody = z.strictObject(teamFields).partial({
  models: true,
  mcp_tools: true,
  budget_usd: true,
  token_budget: true,
  budget_period: true,
  rpm: true,
  tpm: true,
  concurrency: true,
});

export const updateTeamBody = z.strictObject(teamFields).partial();

/** The body's snake_case fields as TeamRecord fields; absent stays absent, null clears. */
export function teamPatchFromBody(body: z.infer<typeof updateTeamBody>): TeamPatch {
  const patch: TeamPatch = limitsFromBody(body);
  if (body.name !== undefined) patch.name = body.name;
  return patch;
}

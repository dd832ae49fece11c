// The JSON bodies of POST /admin/keys and PATCH /admin/keys/{id}, validated with zod into a KeyPatch.
import { z } from 'zod';
import type { KeyPatch } from '../operations/key-operations.ts';

const limit = z.number().nonnegative().nullable();
const wholeLimit = z.number().int().nonnegative().nullable();

/** A key's settings, as the admin API takes them and shows them. */
export const keyFields = {
  name: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .meta({ description: 'Unique; picks the key in the paths below as its id does.' }),
  models: z
    .array(z.string().min(1).max(200))
    .max(1000)
    .nullable()
    .meta({ description: 'Model names or globs (`claude-*`); null or ["*"] for every model.' }),
  mcp_tools: z
    .array(z.string().min(1).max(200))
    .max(1000)
    .nullable()
    .meta({ description: 'MCP tools (`SERVER__TOOL`) or `*` patterns; null every configured tool, [] none.' }),
  expires_at: z.iso
    .datetime({ offset: true })
    .or(z.iso.date())
    .nullable()
    .meta({ description: 'ISO-8601; null never.' }),
  budget_usd: limit.meta({ description: 'USD per budget period (lifetime without one); null unlimited.' }),
  token_budget: wholeLimit.meta({ description: 'Tokens per budget period; null unlimited.' }),
  budget_period: z
    .enum(['daily', 'weekly', 'monthly'])
    .nullable()
    .meta({ description: 'Calendar period in UTC; null lifetime.' }),
  rpm: wholeLimit.meta({ description: 'Requests per minute.' }),
  tpm: wholeLimit.meta({ description: 'Tokens per minute.' }),
  concurrency: wholeLimit.meta({ description: 'Requests in flight at once.' }),
  team: z.string().trim().min(1).max(200).nullable().meta({
    description: 'The team (by name) the key belongs to; null none. A team administrator’s keys are its team’s.',
  }),
};

export const createKeyBody = z.strictObject({ ...keyFields, name: keyFields.name }).partial({
  models: true,
  mcp_tools: true,
  expires_at: true,
  budget_usd: true,
  token_budget: true,
  budget_period: true,
  rpm: true,
  tpm: true,
  concurrency: true,
  team: true,
});

export const updateKeyBody = z.strictObject({ ...keyFields, disabled: z.boolean() }).partial();

export type KeyBody = z.infer<typeof updateKeyBody>;

/** POST /admin/keys/{id}/rotate: how long the old secret stays valid (none when absent). */
export const rotateKeyBody = z.strictObject({
  grace_seconds: z
    .number()
    .int()
    .min(0)
    .max(7 * 24 * 3600)
    .optional(),
});

/** The settings keys and teams share (their limits and rights), as a body carries them. */
export interface LimitBody {
  models?: string[] | null;
  mcp_tools?: string[] | null;
  budget_usd?: number | null;
  token_budget?: number | null;
  budget_period?: 'daily' | 'weekly' | 'monthly' | null;
  rpm?: number | null;
  tpm?: number | null;
  concurrency?: number | null;
}

/** Those settings as record fields (the same names on keys and teams); absent stays absent, null clears. */
export function limitsFromBody(
  body: LimitBody,
): Pick<
  KeyPatch,
  'models' | 'mcpTools' | 'budgetUsd' | 'tokenBudget' | 'budgetPeriod' | 'rpm' | 'tpm' | 'maxConcurrency'
> {
  const patch: ReturnType<typeof limitsFromBody> = {};
  // `["*"]` and `[]` are every model, as null is.
  if (body.models !== undefined)
    patch.models =
      body.models === null || (body.models.length === 1 && body.models[0] === '*') || body.models.length === 0
        ? null
        : body.models;
  if (body.mcp_tools !== undefined) patch.mcpTools = body.mcp_tools;
  if (body.budget_usd !== undefined) patch.budgetUsd = body.budget_usd;
  if (body.token_budget !== undefined) patch.tokenBudget = body.token_budget;
  if (body.budget_period !== undefined) patch.budgetPeriod = body.budget_period;
  if (body.rpm !== undefined) patch.rpm = body.rpm;
  if (body.tpm !== undefined) patch.tpm = body.tpm;
  if (body.concurrency !== undefined) patch.maxConcurrency = body.concurrency;
  return patch;
}

/** The body's snake_case fields as the store's KeyRecord fields; absent stays absent, null clears. */
export function keyPatchFromBody(body: KeyBody): KeyPatch {
  const patch: KeyPatch = limitsFromBody(body);
  if (body.name !== undefined) patch.name = body.name;
  if (body.expires_at !== undefined) patch.expiresAt = body.expires_at === null ? null : Date.parse(body.expires_at);
  if (body.disabled !== undefined) patch.disabled = body.disabled;
  if (body.team !== undefined) patch.team = body.team;
  return patch;
}

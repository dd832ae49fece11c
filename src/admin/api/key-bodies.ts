// The JSON bodies of POST /admin/keys and PATCH /admin/keys/{id}, validated with zod into a KeyPatch.
import { z } from 'zod';
import type { KeyPatch } from '../operations/key-operations.ts';

const limit = z.number().nonnegative().nullable();
const wholeLimit = z.number().int().nonnegative().nullable();

const keyFields = {
  name: z.string().trim().min(1).max(200),
  /** Model names or globs; null or ["*"] means every model. */
  models: z.array(z.string().min(1).max(200)).max(1000).nullable(),
  /** MCP tools (`SERVER__TOOL`) or `*` patterns; null = every configured tool, [] = none. */
  mcp_tools: z.array(z.string().min(1).max(200)).max(1000).nullable(),
  expires_at: z.iso.datetime({ offset: true }).or(z.iso.date()).nullable(),
  budget_usd: limit,
  token_budget: wholeLimit,
  budget_period: z.enum(['daily', 'weekly', 'monthly']).nullable(),
  rpm: wholeLimit,
  tpm: wholeLimit,
  concurrency: wholeLimit,
  /** The team the key belongs to (its name); null = none. A team administrator's keys are its team's. */
  team: z.string().trim().min(1).max(200).nullable(),
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

/** The body's snake_case fields as the store's KeyRecord fields; absent stays absent, null clears. */
export function keyPatchFromBody(body: KeyBody): KeyPatch {
  const patch: KeyPatch = {};
  if (body.name !== undefined) patch.name = body.name;
  if (body.models !== undefined)
    patch.models =
      body.models === null || (body.models.length === 1 && body.models[0] === '*') || body.models.length === 0
        ? null
        : body.models;
  if (body.mcp_tools !== undefined) patch.mcpTools = body.mcp_tools;
  if (body.expires_at !== undefined) patch.expiresAt = body.expires_at === null ? null : Date.parse(body.expires_at);
  if (body.budget_usd !== undefined) patch.budgetUsd = body.budget_usd;
  if (body.token_budget !== undefined) patch.tokenBudget = body.token_budget;
  if (body.budget_period !== undefined) patch.budgetPeriod = body.budget_period;
  if (body.rpm !== undefined) patch.rpm = body.rpm;
  if (body.tpm !== undefined) patch.tpm = body.tpm;
  if (body.concurrency !== undefined) patch.maxConcurrency = body.concurrency;
  if (body.disabled !== undefined) patch.disabled = body.disabled;
  if (body.team !== undefined) patch.team = body.team;
  return patch;
}

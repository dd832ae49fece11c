// The key operations behind both front ends: `modelgate keys …` (keys-command.ts) and /admin/keys (api/).
import type { KeyRecord } from '../../core/key-record.ts';
import type { PeriodSpend, SpendTotals, Store } from '../../store/store.ts';
import { generateKey, hashKey, newKeyId } from '../../auth/key-material.ts';
import { maskKey } from '../../core/mask-secrets.ts';
import { periodStart } from '../../core/budget.ts';
import { UsageError } from '../key-flags.ts';
import { audited, type AuditContext } from './audit-trail.ts';

/** The fields an operator sets on a key; everything else is the gateway's. */
export type KeyPatch = Partial<Omit<KeyRecord, 'id' | 'hash' | 'masked' | 'createdAt'>>;

export interface KeyOperations {
  store: Store;
  /** Called after every change: the serving gateway reloads its key cache, so the change holds for the next request. */
  changed?: () => Promise<void>;
  /** Who acts and where the trail is: every change is recorded there (audit-trail.ts). */
  audit?: AuditContext;
}

/** A new key: the whole key is in the result only, never stored and never shown again. */
export async function createKey(
  ops: KeyOperations,
  patch: KeyPatch & { name: string },
  now = Date.now(),
): Promise<{ key: string; record: KeyRecord }> {
  const name = patch.name.trim();
  if (name === '') throw new UsageError('a key needs a name');
  await nameFree(ops.store, name);
  const key = generateKey();
  const record: KeyRecord = {
    id: newKeyId(),
    hash: hashKey(key),
    masked: maskKey(key),
    models: null,
    expiresAt: null,
    disabled: false,
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
  // A key that could never be served is a typo (a year, a month), not something to print and store.
  if (record.expiresAt !== null && record.expiresAt <= now)
    throw new UsageError(
      `expiry ${new Date(record.expiresAt).toISOString()} is already past: a key must expire in the future`,
    );
  await ops.store.insertKey(record);
  await ops.changed?.();
  await audited(ops.audit, { ...keyTarget('key.create', record), before: null, after: publicView(record) }, now);
  return { key, record };
}

export async function updateKey(
  ops: KeyOperations,
  idOrName: string | undefined,
  patch: KeyPatch,
  action = 'key.update',
): Promise<KeyRecord> {
  const k = await findKeyOrFail(ops.store, idOrName);
  patch = await renamed(patch, k.name, 'key', (name) => nameFree(ops.store, name));
  await ops.store.updateKey(k.id, patch);
  await ops.changed?.();
  const after = await findKeyOrFail(ops.store, k.id);
  await audited(ops.audit, { ...keyTarget(action, after), before: publicView(k), after: publicView(after) });
  return after;
}

/** What an audit entry names of a key: by id and by the name it has now (kept after the key is gone). */
function keyTarget(
  action: string,
  k: KeyRecord,
): { action: string; targetKind: string; targetId: string; targetName: string } {
  return { action, targetKind: 'key', targetId: k.id, targetName: k.name };
}

/** The longest grace an old secret may have: a week covers a deploy cycle; longer is a second key. */
export const MAX_GRACE_SECONDS = 7 * 24 * 3600;

/**
 * A new secret for a key, shown once; the old secret keeps working for `graceSeconds` (0: not at all), so
 * the services holding it can move over. Budgets, limits and usage stay the key's: only the secret changes.
 */
export async function rotateKey(
  ops: KeyOperations,
  idOrName: string | undefined,
  graceSeconds: number,
  now = Date.now(),
): Promise<{ key: string; record: KeyRecord; previousValidUntil: number | null }> {
  if (!Number.isSafeInteger(graceSeconds) || graceSeconds < 0 || graceSeconds > MAX_GRACE_SECONDS)
    throw new UsageError(`grace_seconds must be a whole number from 0 to ${MAX_GRACE_SECONDS}`);
  const k = await findKeyOrFail(ops.store, idOrName);
  const key = generateKey();
  const previousUntil = graceSeconds === 0 ? null : now + graceSeconds * 1000;
  await ops.store.rotateKey(k.id, {
    hash: hashKey(key),
    masked: maskKey(key),
    previousHash: previousUntil === null ? null : k.hash,
    previousUntil,
  });
  await ops.changed?.();
  const record = await findKeyOrFail(ops.store, k.id);
  await audited(
    ops.audit,
    {
      ...keyTarget('key.rotate', record),
      before: publicView(k),
      after: {
        ...publicView(record),
        previous_valid_until: previousUntil === null ? null : new Date(previousUntil).toISOString(),
      },
    },
    now,
  );
  return { key, record, previousValidUntil: previousUntil };
}

export async function deleteKey(ops: KeyOperations, idOrName: string | undefined): Promise<KeyRecord> {
  const k = await findKeyOrFail(ops.store, idOrName);
  await ops.store.deleteKey(k.id);
  await ops.changed?.();
  await audited(ops.audit, { ...keyTarget('key.delete', k), before: publicView(k), after: null });
  return k;
}

/**
 * The patch with its new name trimmed, refused when empty and checked free (`free` throws when taken);
 * unchanged when it renames nothing.
 */
export async function renamed<P extends { name?: string }>(
  patch: P,
  current: string,
  what: 'key' | 'team',
  free: (name: string) => Promise<void>,
): Promise<P> {
  if (patch.name === undefined) return patch;
  const name = patch.name.trim();
  if (name === '') throw new UsageError(`a ${what} name must not be empty`);
  if (name !== current) await free(name);
  return { ...patch, name };
}

/** Names pick keys in disable, delete and update: two keys of one name would make those ambiguous. */
async function nameFree(store: Store, name: string): Promise<void> {
  const taken = (await store.listKeys()).find((k) => k.name === name);
  if (taken)
    throw new UsageError(`a key named "${name}" already exists (${taken.id}); choose another name`, 'conflict');
}

export async function findKeyOrFail(store: Store, idOrName: string | undefined): Promise<KeyRecord> {
  if (!idOrName) throw new UsageError('name the key by id or name');
  // A database from before names were unique may hold several: act on none rather than on one of them.
  const named = (await store.listKeys()).filter((k) => k.name === idOrName && k.id !== idOrName);
  if (named.length > 1)
    throw new UsageError(
      `${named.length} keys are named "${idOrName}"; name one by id: ${named.map((k) => k.id).join(', ')}`,
      'conflict',
    );
  const k = await store.findKey(idOrName);
  if (!k) throw new UsageError(`no key with id or name "${idOrName}"`, 'not_found');
  return k;
}

export function keyStatus(k: KeyRecord, now = Date.now()): 'active' | 'disabled' | 'expired' {
  if (k.disabled) return 'disabled';
  if (k.expiresAt !== null && k.expiresAt <= now) return 'expired';
  return 'active';
}

/** A key as listings show it: masked, never its hash. */
export function publicView(k: KeyRecord): Record<string, unknown> {
  return {
    id: k.id,
    name: k.name,
    masked: k.masked,
    status: keyStatus(k),
    models: k.models,
    mcp_tools: k.mcpTools ?? null,
    team: k.team ?? null,
    expires_at: k.expiresAt === null ? null : new Date(k.expiresAt).toISOString(),
    budget_usd: k.budgetUsd,
    token_budget: k.tokenBudget,
    budget_period: k.budgetPeriod,
    rpm: k.rpm,
    tpm: k.tpm,
    concurrency: k.maxConcurrency,
    created_at: new Date(k.createdAt).toISOString(),
  };
}

/** The public view with what the key spent in its current budget period and what it has left. */
export async function keyWithSpend(store: Store, k: KeyRecord, now = Date.now()): Promise<Record<string, unknown>> {
  return withSpend(k, await store.keySpend(k.id, periodStart(k.budgetPeriod, now)));
}

function withSpend(k: KeyRecord, spent: SpendTotals): Record<string, unknown> {
  return {
    ...publicView(k),
    spent_usd: spent.nanos / 1e9,
    budget_left_usd: k.budgetUsd === null ? null : Math.max(0, k.budgetUsd - spent.nanos / 1e9),
    tokens_used: spent.tokens,
    tokens_left: k.tokenBudget === null ? null : Math.max(0, k.tokenBudget - spent.tokens),
  };
}

/**
 * What a subject was billed from `start` on, out of rows read once for a whole listing (spendByPeriod),
 * as keySpend would answer it for that subject alone.
 */
export function spendFrom(rows: readonly PeriodSpend[] | undefined, start: number): SpendTotals {
  const out = { nanos: 0, tokens: 0 };
  for (const r of rows ?? []) {
    if (r.periodStart < start) continue;
    out.nanos += r.nanos;
    out.tokens += r.tokens;
  }
  return out;
}

/** Every subject's spend rows from the earliest of `starts` on, by subject: one read for a listing. */
export async function spendRowsSince(store: Store, starts: readonly number[]): Promise<Map<string, PeriodSpend[]>> {
  const by = new Map<string, PeriodSpend[]>();
  if (starts.length === 0) return by;
  for (const r of await store.spendByPeriod(Math.min(...starts))) {
    const list = by.get(r.keyId);
    if (list === undefined) by.set(r.keyId, [r]);
    else list.push(r);
  }
  return by;
}

export async function listKeysWithSpend(store: Store, now = Date.now()): Promise<Record<string, unknown>[]> {
  const keys = await store.listKeys();
  const starts = keys.map((k) => periodStart(k.budgetPeriod, now));
  const rows = await spendRowsSince(store, starts);
  return keys.map((k, i) => withSpend(k, spendFrom(rows.get(k.id), starts[i])));
}

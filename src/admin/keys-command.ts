// `modelgate keys …`: create (prints the key once), list (masked), show, update, disable, enable, delete.
import { parseArgs } from 'node:util';
import type { KeyRecord } from '../core/key-record.ts';
import type { Store } from '../store/store.ts';
import { generateKey, hashKey, maskKey, newKeyId } from '../auth/key-material.ts';
import { periodStart } from '../accounting/period.ts';
import { KEY_OPTION_SPEC, keyPatchFromFlags, UsageError } from './key-flags.ts';

export async function keysCommand(store: Store, argv: string[], out: (s: string) => void): Promise<void> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    options: { ...KEY_OPTION_SPEC, json: { type: 'boolean' }, config: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  const json = values.json === true;
  switch (sub) {
    case 'create': {
      if (!values.name) throw new UsageError('keys create needs --name NAME');
      await nameFree(store, values.name.trim());
      const key = generateKey();
      const rec: KeyRecord = {
        id: newKeyId(), name: values.name, hash: hashKey(key), masked: maskKey(key), models: null, expiresAt: null,
        disabled: false, budgetUsd: null, tokenBudget: null, budgetPeriod: null, rpm: null, tpm: null, maxConcurrency: null,
        createdAt: Date.now(), ...keyPatchFromFlags(values),
      };
      // A key that could never be served is a typo (a year, a month), not something to print and store.
      if (rec.expiresAt !== null && rec.expiresAt <= rec.createdAt) throw new UsageError(`--expires ${values.expires} is already past: a key must expire in the future`);
      await store.insertKey(rec);
      if (json) out(JSON.stringify({ key, ...publicView(rec) }));
      else out(`Created key ${rec.id} (${rec.name}). Store it now; it is not shown again:\n${key}`);
      return;
    }
    case 'list': {
      const keys = await store.listKeys();
      if (json) out(JSON.stringify(keys.map(publicView)));
      else if (keys.length === 0) out('No keys. Create one with: npx modelgate keys create --name NAME');
      else for (const k of keys) out(`${k.id}  ${k.masked}  ${k.name}  ${status(k)}  models=${k.models?.join(',') ?? '*'}`);
      return;
    }
    case 'show': {
      const k = await need(store, positionals[0]);
      const spent = await store.keySpend(k.id, periodStart(k.budgetPeriod, Date.now()));
      const view = {
        ...publicView(k),
        spent_usd: spent.nanos / 1e9,
        budget_left_usd: k.budgetUsd === null ? null : Math.max(0, k.budgetUsd - spent.nanos / 1e9),
        tokens_used: spent.tokens,
        tokens_left: k.tokenBudget === null ? null : Math.max(0, k.tokenBudget - spent.tokens),
      };
      out(json ? JSON.stringify(view) : Object.entries(view).map(([a, b]) => `${a.padEnd(16)} ${b === null ? '-' : Array.isArray(b) ? b.join(',') : String(b)}`).join('\n'));
      return;
    }
    case 'update':
    case 'disable':
    case 'enable': {
      const k = await need(store, positionals[0]);
      const patch = sub === 'update' ? keyPatchFromFlags(values) : { disabled: sub === 'disable' };
      const rename = (patch as { name?: string }).name;
      if (rename !== undefined && rename !== k.name) await nameFree(store, rename);
      await store.updateKey(k.id, patch);
      const after = await need(store, k.id);
      out(json ? JSON.stringify(publicView(after)) : `${sub === 'update' ? 'Updated' : sub === 'disable' ? 'Disabled' : 'Enabled'} key ${k.id} (${k.name}).`);
      return;
    }
    case 'delete': {
      const k = await need(store, positionals[0]);
      await store.deleteKey(k.id);
      out(json ? JSON.stringify({ deleted: k.id }) : `Deleted key ${k.id} (${k.name}).`);
      return;
    }
    default:
      throw new UsageError('usage: modelgate keys create|list|show|update|disable|enable|delete [ID|NAME] [options]');
  }
}

/** Names pick keys in disable, delete and update: two keys of one name would make those ambiguous. */
async function nameFree(store: Store, name: string): Promise<void> {
  const taken = (await store.listKeys()).find((k) => k.name === name);
  if (taken) throw new UsageError(`a key named "${name}" already exists (${taken.id}); choose another name`);
}

async function need(store: Store, idOrName: string | undefined): Promise<KeyRecord> {
  if (!idOrName) throw new UsageError('name the key by id or name');
  // A database from before names were unique may hold several: act on none rather than on one of them.
  const named = (await store.listKeys()).filter((k) => k.name === idOrName && k.id !== idOrName);
  if (named.length > 1) throw new UsageError(`${named.length} keys are named "${idOrName}"; name one by id: ${named.map((k) => k.id).join(', ')}`);
  const k = await store.findKey(idOrName);
  if (!k) throw new UsageError(`no key with id or name "${idOrName}"`);
  return k;
}

function status(k: KeyRecord): string {
  if (k.disabled) return 'disabled';
  if (k.expiresAt !== null && k.expiresAt <= Date.now()) return 'expired';
  return 'active';
}

export function publicView(k: KeyRecord): Record<string, unknown> {
  return {
    id: k.id, name: k.name, masked: k.masked, status: status(k), models: k.models,
    expires_at: k.expiresAt === null ? null : new Date(k.expiresAt).toISOString(),
    budget_usd: k.budgetUsd, token_budget: k.tokenBudget, budget_period: k.budgetPeriod,
    rpm: k.rpm, tpm: k.tpm, concurrency: k.maxConcurrency, created_at: new Date(k.createdAt).toISOString(),
  };
}

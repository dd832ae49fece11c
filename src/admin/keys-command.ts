// `modelgate keys …`: create (prints the key once), list (masked), show, update, disable, enable, rotate
// (prints the new secret once; --grace-seconds keeps the old one valid that long), delete.
// The command line front end of the key operations (operations/key-operations.ts), as /admin/keys is the HTTP one.
import { parseArgs } from 'node:util';
import type { Store } from '../store/store.ts';
import { withCliAudit, type AuditContext } from './operations/audit-trail.ts';
import { KEY_OPTION_SPEC, keyPatchFromFlags, UsageError } from './key-flags.ts';
import {
  createKey,
  deleteKey,
  findKeyOrFail,
  keyStatus,
  keyWithSpend,
  publicView,
  rotateKey,
  updateKey,
} from './operations/key-operations.ts';

export { publicView } from './operations/key-operations.ts';

const CHANGES = new Set(['create', 'update', 'disable', 'enable', 'delete', 'rotate']);

/**
 * `modelgate keys …` as the CLI runs it: a change is recorded in the audit trail as the OS user's, from
 * no address (the CLI runs on the gateway's host); a read opens no trail.
 */
export async function keysCommandAudited(
  database: string,
  store: Store,
  argv: string[],
  out: (s: string) => void,
): Promise<void> {
  if (!CHANGES.has(argv[0] ?? '')) return keysCommand(store, argv, out);
  return withCliAudit(database, (audit) => keysCommand(store, argv, out, audit));
}

export async function keysCommand(
  store: Store,
  argv: string[],
  out: (s: string) => void,
  audit?: AuditContext,
): Promise<void> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    options: {
      ...KEY_OPTION_SPEC,
      json: { type: 'boolean' },
      config: { type: 'string' },
      'grace-seconds': { type: 'string' },
    },
    allowPositionals: true,
    strict: true,
  });
  const json = values.json === true;
  const ops = { store, ...(audit === undefined ? {} : { audit }) };
  switch (sub) {
    case 'create': {
      if (!values.name) throw new UsageError('keys create needs --name NAME');
      const { key, record } = await createKey(ops, { ...keyPatchFromFlags(values), name: values.name });
      if (json) out(JSON.stringify({ key, ...publicView(record) }));
      else out(`Created key ${record.id} (${record.name}). Store it now; it is not shown again:\n${key}`);
      return;
    }
    case 'list': {
      const keys = await store.listKeys();
      if (json) out(JSON.stringify(keys.map(publicView)));
      else if (keys.length === 0) out('No keys. Create one with: npx modelgate keys create --name NAME');
      else
        for (const k of keys)
          out(`${k.id}  ${k.masked}  ${k.name}  ${keyStatus(k)}  models=${k.models?.join(',') ?? '*'}`);
      return;
    }
    case 'show': {
      const view = await keyWithSpend(store, await findKeyOrFail(store, positionals[0]));
      out(json ? JSON.stringify(view) : viewText(view));
      return;
    }
    case 'update':
    case 'disable':
    case 'enable': {
      const patch = sub === 'update' ? keyPatchFromFlags(values) : { disabled: sub === 'disable' };
      const after = await updateKey(ops, positionals[0], patch, `key.${sub}`);
      out(
        json
          ? JSON.stringify(publicView(after))
          : `${sub === 'update' ? 'Updated' : sub === 'disable' ? 'Disabled' : 'Enabled'} key ${after.id} (${after.name}).`,
      );
      return;
    }
    case 'rotate': {
      const graceText = values['grace-seconds'] ?? '0';
      if (!/^\d+$/.test(graceText)) throw new UsageError('--grace-seconds must be a whole number of seconds');
      const { key, record, previousValidUntil } = await rotateKey(ops, positionals[0], Number(graceText));
      const until = previousValidUntil === null ? null : new Date(previousValidUntil).toISOString();
      if (json) out(JSON.stringify({ key, ...publicView(record), previous_valid_until: until }));
      else
        out(
          `Rotated key ${record.id} (${record.name}). ${until === null ? 'The old secret no longer works.' : `The old secret works until ${until}.`} Store the new one now; it is not shown again:\n${key}`,
        );
      return;
    }
    case 'delete': {
      const k = await deleteKey(ops, positionals[0]);
      out(json ? JSON.stringify({ deleted: k.id }) : `Deleted key ${k.id} (${k.name}).`);
      return;
    }
    default:
      throw new UsageError(
        'usage: modelgate keys create|list|show|update|disable|enable|rotate|delete [ID|NAME] [options]',
      );
  }
}

/** A key's or a team's view as `show` prints it: a field a line, lists comma-separated, nulls as `-`. */
export function viewText(view: Record<string, unknown>): string {
  return Object.entries(view)
    .map(([a, b]) => `${a.padEnd(16)} ${b === null ? '-' : Array.isArray(b) ? b.join(',') : String(b)}`)
    .join('\n');
}

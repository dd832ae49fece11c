// `modelgate keys …`: create (prints the key once), list (masked), show, update, disable, enable, delete.
// The command line front end of the key operations (operations/key-operations.ts), as /admin/keys is the HTTP one.
import { parseArgs } from 'node:util';
import type { Store } from '../store/store.ts';
import { KEY_OPTION_SPEC, keyPatchFromFlags, UsageError } from './key-flags.ts';
import {
  createKey,
  deleteKey,
  findKeyOrFail,
  keyStatus,
  keyWithSpend,
  publicView,
  updateKey,
} from './operations/key-operations.ts';

export { publicView } from './operations/key-operations.ts';

export async function keysCommand(store: Store, argv: string[], out: (s: string) => void): Promise<void> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    options: { ...KEY_OPTION_SPEC, json: { type: 'boolean' }, config: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  const json = values.json === true;
  const ops = { store };
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
      out(
        json
          ? JSON.stringify(view)
          : Object.entries(view)
              .map(([a, b]) => `${a.padEnd(16)} ${b === null ? '-' : Array.isArray(b) ? b.join(',') : String(b)}`)
              .join('\n'),
      );
      return;
    }
    case 'update':
    case 'disable':
    case 'enable': {
      const patch = sub === 'update' ? keyPatchFromFlags(values) : { disabled: sub === 'disable' };
      const after = await updateKey(ops, positionals[0], patch);
      out(
        json
          ? JSON.stringify(publicView(after))
          : `${sub === 'update' ? 'Updated' : sub === 'disable' ? 'Disabled' : 'Enabled'} key ${after.id} (${after.name}).`,
      );
      return;
    }
    case 'delete': {
      const k = await deleteKey(ops, positionals[0]);
      out(json ? JSON.stringify({ deleted: k.id }) : `Deleted key ${k.id} (${k.name}).`);
      return;
    }
    default:
      throw new UsageError('usage: modelgate keys create|list|show|update|disable|enable|delete [ID|NAME] [options]');
  }
}

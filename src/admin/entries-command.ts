// `modelgate providers …` and `modelgate models …`: list, show, add, update, remove. The command line front
// end of the entry operations (operations/entry-operations.ts), as /admin/providers and /admin/models are
// the HTTP one: the same validation and messages; running gateways load the change within a second.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parse as parseYaml } from 'yaml';
import type { GatewayConfig } from '../core/config-types.ts';
import { isPostgresUrl } from '../store/database-url.ts';
import { openEntryStore } from '../store/entry-store.ts';
import { encryptionKey } from '../config/sealed-credentials.ts';
import { UsageError } from './key-flags.ts';
import { LiveConfig } from './live-config.ts';
import { audited, entryChange, withCliAudit, type Change } from './operations/audit-trail.ts';
import {
  createEntry,
  findEntry,
  KIND_OF,
  listEntries,
  patchEntry,
  removeEntry,
  type EntryView,
} from './operations/entry-operations.ts';

const USAGE = (what: string): string =>
  `usage: modelgate ${what} list [--json] | show NAME | add ENTRY|--file FILE | update NAME ENTRY|--file FILE | remove NAME
  ENTRY is one ${what === 'providers' ? 'provider' : 'model'} entry as in the YAML file, in YAML or JSON: '{ name: x, … }'`;

export async function entriesCommand(
  config: GatewayConfig,
  what: 'providers' | 'models',
  argv: string[],
  o: { env: NodeJS.ProcessEnv; out: (s: string) => void },
): Promise<void> {
  // A change made here is in the audit trail, as the OS user's (a file-only setup changes nothing here).
  const audit = async (change: Change): Promise<void> => {
    if (config.modelsSource === 'file') return;
    await withCliAudit(config.database, (ctx) => audited(ctx, change));
  };
  const [sub, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    options: { json: { type: 'boolean' }, file: { type: 'string' }, config: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  const kind = KIND_OF[what];
  const entries =
    config.modelsSource === 'file' ? null : await openEntryStore(config.database, isPostgresUrl(config.database));
  try {
    const live = await LiveConfig.open({
      path: config.source === '(built-in)' ? null : config.source,
      env: o.env,
      entries,
      encryptionKey: encryptionKey(process.env),
    });
    const show = (v: EntryView): void => o.out(JSON.stringify(v, null, values.json === true ? undefined : 2));
    const entryArg = (at: number): unknown => {
      const text = values.file !== undefined ? readFileSync(values.file, 'utf8') : positionals[at];
      if (text === undefined) throw new UsageError(USAGE(what));
      try {
        return parseYaml(text);
      } catch (err) {
        throw new UsageError(`the entry is not valid YAML or JSON: ${(err as Error).message}`);
      }
    };
    const nameArg = (): string => {
      if (!positionals[0]) throw new UsageError(USAGE(what));
      return positionals[0];
    };
    switch (sub) {
      case 'list': {
        const views = listEntries(live, kind);
        if (values.json === true) o.out(JSON.stringify(views));
        else if (views.length === 0) o.out(`No ${what}.`);
        else for (const v of views) o.out(`${String(v.name)}  ${summary(v)}  (${v.source})`);
        return;
      }
      case 'show':
        return show(findEntry(live, kind, nameArg()));
      case 'add': {
        const created = await createEntry(live, kind, entryArg(0));
        await audit(entryChange(`${kind}.create`, kind, created.name, null, created));
        return show(created);
      }
      case 'update': {
        const name = nameArg();
        const before = findEntry(live, kind, name);
        const after = await patchEntry(live, kind, name, entryArg(1));
        await audit(entryChange(`${kind}.update`, kind, name, before, after));
        return show(after);
      }
      case 'remove': {
        const name = nameArg();
        const before = findEntry(live, kind, name);
        await removeEntry(live, kind, name);
        await audit(entryChange(`${kind}.delete`, kind, name, before, null));
        o.out(values.json === true ? JSON.stringify({ name, deleted: true }) : `Removed ${kind} ${name}.`);
        return;
      }
      default:
        throw new UsageError(USAGE(what));
    }
  } finally {
    await entries?.close();
  }
}

/** A provider's kind and URL, a model's deployments. */
function summary(v: EntryView): string {
  if (Array.isArray(v.deployments))
    return (v.deployments as { provider?: unknown; model?: unknown }[])
      .map((d) => `${String(d.provider)}/${String(d.model)}`)
      .join(', ');
  return `${String(v.kind)}${v.base_url === undefined ? '' : ` ${String(v.base_url)}`}`;
}

// Providers and models changed at run time: the operations behind /admin/providers, /admin/models and
// `modelgate providers|models …`. Bodies have the shape of the YAML entries; replies show credentials
// masked and say where each entry comes from (`source`: file or database).
import type { EntryKind } from '../../store/entry-store.ts';
import { ConfigError } from '../../config/load.ts';
import { keepMaskedCredentials, maskCredentials } from '../../config/sealed-credentials.ts';
import { UsageError } from '../key-flags.ts';
import { ownerOf, type LiveConfig } from '../live-config.ts';

type Entry = Record<string, unknown>;

export interface EntryView extends Entry {
  source: 'file' | 'database';
}

export const KIND_OF = { providers: 'provider', models: 'model' } as const satisfies Record<string, EntryKind>;

function view(entry: Entry, source: 'file' | 'database'): EntryView {
  return { ...maskCredentials(entry), source };
}

export function listEntries(live: LiveConfig, kind: EntryKind): EntryView[] {
  return live.entriesOf(kind).map((e) => view(e.entry, e.source));
}

export function findEntry(live: LiveConfig, kind: EntryKind, name: string): EntryView {
  const found = live.entriesOf(kind).find((e) => e.entry.name === name);
  if (found === undefined) throw new UsageError(`no ${kind} named ${JSON.stringify(name)}`, 'not_found');
  return view(found.entry, found.source);
}

/** The body as an entry: an object, `source` (as replies show it) at most `database`, which is dropped. */
function entryBody(kind: EntryKind, body: unknown): Entry {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new UsageError(`the body must be a JSON object: one ${kind} entry, as in the YAML file`);
  const { source, ...entry } = body as Entry;
  if (source !== undefined && source !== 'database')
    throw new UsageError(
      `source: an entry added here is stored in the database ("database"); "${String(source)}" cannot be set`,
    );
  return entry;
}

/** The configuration's refusal as the caller's mistake (400), with the start's message. */
async function validated<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
}

export async function createEntry(live: LiveConfig, kind: EntryKind, body: unknown): Promise<EntryView> {
  const entry = entryBody(kind, body);
  if (typeof entry.name !== 'string' || entry.name === '')
    throw new UsageError(`name: a ${kind} entry needs a name (a non-empty string)`);
  const name = entry.name;
  const made = await validated(() =>
    live.change(kind, name, (current) => {
      if (current !== undefined)
        throw new UsageError(
          `${ownerOf(kind, name)} exists already: change it with PATCH, or remove it first`,
          'conflict',
        );
      return entry;
    }),
  );
  return view(made!, 'database');
}

/** Top-level fields replace the entry's; a field set to null is removed. `name` cannot change. */
export async function patchEntry(live: LiveConfig, kind: EntryKind, name: string, body: unknown): Promise<EntryView> {
  const patch = entryBody(kind, body);
  if (patch.name !== undefined && patch.name !== name)
    throw new UsageError(
      `name: an entry is not renamed; add one named ${JSON.stringify(patch.name)} and remove this one`,
    );
  const changed = await validated(() =>
    live.change(kind, name, (current) => {
      if (current === undefined) throw new UsageError(`no ${kind} named ${JSON.stringify(name)}`, 'not_found');
      const next: Entry = { ...current };
      for (const [k, v] of Object.entries(patch)) {
        if (v === null) delete next[k];
        else next[k] = v;
      }
      return keepMaskedCredentials(next, current);
    }),
  );
  return view(changed!, 'database');
}

export async function removeEntry(live: LiveConfig, kind: EntryKind, name: string): Promise<void> {
  if (kind === 'provider') {
    const users = live.config.models.filter((m) => m.deployments.some((d) => d.provider.name === name));
    if (users.length > 0 && !live.entriesOf('provider').some((e) => e.entry.name === name && e.source === 'file'))
      throw new UsageError(
        `${ownerOf(kind, name)} is used by the deployments of ${users.map((m) => JSON.stringify(m.name)).join(', ')}: change or remove those models first`,
        'conflict',
      );
  }
  await validated(() => live.change(kind, name, () => null));
}

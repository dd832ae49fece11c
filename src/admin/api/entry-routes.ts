// /admin/providers and /admin/models: GET (list) and POST (add) on the collection; GET, PATCH and DELETE
// on /{name}. Bodies have the shape of the YAML entries; a change is validated as a start validates.
import type { IncomingMessage } from 'node:http';
import type { LiveConfig } from '../live-config.ts';
import { entryChange, type Change } from '../operations/audit-trail.ts';
import {
  createEntry,
  findEntry,
  KIND_OF,
  listEntries,
  patchEntry,
  removeEntry,
} from '../operations/entry-operations.ts';

export interface EntryCall {
  req: IncomingMessage;
  live: LiveConfig;
  /** The request's JSON body. */
  body: () => Promise<unknown>;
  reply: (status: number, body: string) => void;
  allow: (methods: string[], run: () => Promise<void> | void) => Promise<void>;
  /** Records a change in the audit trail (credentials are masked in every view given to it). */
  audit: (change: Change) => Promise<void>;
}

/** Whether the path is one of these routes (then `handleEntries` answers it). */
export function isEntryRoute(segments: string[]): boolean {
  const [first, name] = segments;
  return (
    (first === 'providers' || first === 'models') &&
    (segments.length === 1 || (segments.length === 2 && name !== undefined && name !== ''))
  );
}

export function handleEntries(c: EntryCall, method: string, segments: string[], decode: (s: string) => string) {
  const kind = KIND_OF[segments[0] as keyof typeof KIND_OF];
  if (segments.length === 1)
    return c.allow(['GET', 'POST'], async () => {
      if (method === 'GET') return c.reply(200, JSON.stringify({ data: listEntries(c.live, kind) }));
      const created = await createEntry(c.live, kind, await c.body());
      await c.audit(entryChange(`${kind}.create`, kind, created.name, null, created));
      return c.reply(201, JSON.stringify(created));
    });
  const name = decode(segments[1]);
  return c.allow(['GET', 'PATCH', 'DELETE'], async () => {
    if (method === 'GET') return c.reply(200, JSON.stringify(findEntry(c.live, kind, name)));
    const before = findEntry(c.live, kind, name);
    if (method === 'DELETE') {
      c.req.resume();
      await removeEntry(c.live, kind, name);
      await c.audit(entryChange(`${kind}.delete`, kind, name, before, null));
      return c.reply(200, JSON.stringify({ name, deleted: true }));
    }
    const after = await patchEntry(c.live, kind, name, await c.body());
    await c.audit(entryChange(`${kind}.update`, kind, name, before, after));
    return c.reply(200, JSON.stringify(after));
  });
}

// The OpenAPI operations of /admin/providers and /admin/models (openapi.ts adds them to its document): their
// bodies are the config file's own provider and model schemas, which validate them.
import { z } from 'zod';
import { modelSchema, providerSchema } from '../../config/schema.ts';
import type { Operations } from './openapi.ts';

function entryOperations(plural: 'providers' | 'models', what: string, entry: z.ZodType): Operations {
  const described = entry.meta({
    description: `One ${what} entry in the shape of the YAML file's \`${plural}:\` items (docs/admin.md, "Providers and models"). Validated as the file is at start, with the same messages.`,
  });
  const view = z
    .intersection(
      entry,
      z.object({
        source: z
          .enum(['file', 'database'])
          .meta({ description: 'Where the entry lives; a file entry is changed in the file.' }),
      }),
    )
    .meta({ description: 'The entry, credentials masked to their first 4 and last 4 characters.' });
  const name = { name: `The ${what}'s name.` };
  return {
    [`/admin/${plural}`]: {
      get: {
        summary: `Every ${what}: the file's and the database's`,
        answers: { 200: { description: 'List', schema: z.object({ data: z.array(view) }) } },
      },
      post: {
        summary: `Add a ${what} (stored in the database, served by every replica within seconds)`,
        body: described,
        answers: { 201: { description: 'Added', schema: view }, 400: 'error', 409: 'error' },
      },
    },
    [`/admin/${plural}/{name}`]: {
      get: {
        summary: `One ${what}`,
        path: name,
        answers: { 200: { description: 'Entry', schema: view }, 404: 'error' },
      },
      patch: {
        summary: `Change a ${what}: each top-level field given replaces the entry's, null removes it`,
        path: name,
        body: z
          .looseObject({})
          .meta({ description: `Top-level fields of a ${what} entry to replace (null removes one).` }),
        answers: { 200: { description: 'Changed', schema: view }, 400: 'error', 404: 'error', 409: 'error' },
      },
      delete: {
        summary: `Remove a ${what} added through the API or CLI`,
        path: name,
        answers: {
          200: { description: 'Removed', schema: z.object({ name: z.string(), deleted: z.boolean() }) },
          404: 'error',
          409: 'error',
        },
      },
    },
  };
}

export const ENTRY_OPERATIONS: Operations = {
  ...entryOperations('providers', 'provider', providerSchema),
  ...entryOperations('models', 'model', modelSchema),
};

// The OpenAPI paths of /admin/providers and /admin/models (openapi.ts adds them to its document).

const error = { $ref: '#/components/responses/Error' };
const json = (schema: unknown): Record<string, unknown> => ({ content: { 'application/json': { schema } } });

function entryPaths(plural: 'providers' | 'models', what: string): Record<string, unknown> {
  const entry = {
    type: 'object',
    required: plural === 'providers' ? ['name', 'kind'] : ['name', 'deployments'],
    properties: { name: { type: 'string', minLength: 1 } },
    additionalProperties: true,
    description: `One ${what} entry in the shape of the YAML file's \`${plural}:\` items (docs/admin.md, "Providers and models"). Validated as the file is at start, with the same messages.`,
  };
  const view = {
    ...entry,
    properties: {
      ...entry.properties,
      source: {
        type: 'string',
        enum: ['file', 'database'],
        description: 'Where the entry lives; a file entry is changed in the file.',
      },
    },
    description: 'The entry, credentials masked to their first 4 and last 4 characters.',
  };
  const nameParam = { name: 'name', in: 'path', required: true, schema: { type: 'string' } };
  return {
    [`/admin/${plural}`]: {
      get: {
        summary: `Every ${what}: the file's and the database's`,
        responses: {
          200: {
            description: 'List',
            ...json({ type: 'object', properties: { data: { type: 'array', items: view } } }),
          },
        },
      },
      post: {
        summary: `Add a ${what} (stored in the database, served by every replica within seconds)`,
        requestBody: { required: true, ...json(entry) },
        responses: { 201: { description: 'Added', ...json(view) }, 400: error, 409: error },
      },
    },
    [`/admin/${plural}/{name}`]: {
      parameters: [nameParam],
      get: { summary: `One ${what}`, responses: { 200: { description: 'Entry', ...json(view) }, 404: error } },
      patch: {
        summary: `Change a ${what}: each top-level field given replaces the entry's, null removes it`,
        requestBody: { required: true, ...json({ ...entry, required: [] }) },
        responses: { 200: { description: 'Changed', ...json(view) }, 400: error, 404: error, 409: error },
      },
      delete: {
        summary: `Remove a ${what} added through the API or CLI`,
        responses: {
          200: {
            description: 'Removed',
            ...json({ type: 'object', properties: { name: { type: 'string' }, deleted: { type: 'boolean' } } }),
          },
          404: error,
          409: error,
        },
      },
    },
  };
}

export const ENTRY_PATHS = { ...entryPaths('providers', 'provider'), ...entryPaths('models', 'model') };

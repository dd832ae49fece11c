// The admin API's OpenAPI 3.1 document, served at GET /admin/openapi.json: generated from the zod schemas
// the API validates its requests with (key-bodies.ts, the config's provider and model schemas) and the
// schemas of what it answers (views.ts). A test checks every route is in it.
import { z } from 'zod';
import { createKeyBody, rotateKeyBody, updateKeyBody } from './key-bodies.ts';
import { ENTRY_OPERATIONS } from './entry-openapi.ts';
import { TEAM_OPERATIONS } from './team-openapi.ts';
import {
  alertsView,
  auditQuery,
  auditView,
  createdKeyView,
  rotatedKeyView,
  deletedView,
  deploymentsView,
  errorView,
  keysView,
  keyView,
  meView,
  reconcileQuery,
  reconcileView,
  requestDetailView,
  requestsPageView,
  requestsQuery,
  usageQuery,
  usageReportView,
} from './views.ts';

/** One answer of an operation: `error` is the shared error body; `schema` a JSON body (and `csv` a CSV one). */
export type Answer = 'error' | { description: string; schema?: z.ZodType; csv?: boolean };

export interface Operation {
  summary: string;
  /** Path parameters, by name, with what each names. */
  path?: Record<string, string>;
  query?: z.ZodObject;
  body?: z.ZodType | { description: string; json: z.ZodType; csv: boolean };
  answers: Record<number, Answer>;
}

/** Every path of the admin API, with its operations by method. */
export type Operations = Record<string, Partial<Record<'get' | 'post' | 'patch' | 'delete', Operation>>>;

const KEY_ID = { id: 'Key id or name.' };

const KEY_OPERATIONS: Operations = {
  '/admin/keys': {
    get: {
      summary: 'Every key, masked, with its spend',
      answers: { 200: { description: 'Keys', schema: keysView }, 401: 'error' },
    },
    post: {
      summary: 'Create a key; the whole key is in this answer only',
      body: createKeyBody,
      answers: { 201: { description: 'Created', schema: createdKeyView }, 400: 'error', 401: 'error', 409: 'error' },
    },
  },
  '/admin/keys/{id}': {
    get: {
      summary: 'One key with its spend',
      path: KEY_ID,
      answers: { 200: { description: 'Key', schema: keyView }, 404: 'error' },
    },
    patch: {
      summary: 'Change a key’s settings (null clears a limit)',
      path: KEY_ID,
      body: updateKeyBody,
      answers: { 200: { description: 'Key', schema: keyView }, 400: 'error', 404: 'error', 409: 'error' },
    },
    delete: {
      summary: 'Delete a key (its usage rows stay)',
      path: KEY_ID,
      answers: { 200: { description: 'Deleted', schema: deletedView }, 404: 'error' },
    },
  },
  '/admin/keys/{id}/rotate': {
    post: {
      summary: 'A new secret for a key (shown once); the old one stays valid for grace_seconds',
      path: KEY_ID,
      body: rotateKeyBody,
      answers: { 200: { description: 'Rotated', schema: rotatedKeyView }, 400: 'error', 404: 'error' },
    },
  },
  '/admin/keys/{id}/disable': {
    post: {
      summary: 'Disable a key',
      path: KEY_ID,
      answers: { 200: { description: 'Key', schema: keyView }, 404: 'error' },
    },
  },
  '/admin/keys/{id}/enable': {
    post: {
      summary: 'Enable a key',
      path: KEY_ID,
      answers: { 200: { description: 'Key', schema: keyView }, 404: 'error' },
    },
  },
};

const REPORT_OPERATIONS: Operations = {
  '/admin/usage': {
    get: {
      summary: 'Usage totals, grouped',
      query: usageQuery,
      answers: {
        200: { description: 'Totals for the range and per group', schema: usageReportView, csv: true },
        400: 'error',
        404: 'error',
      },
    },
  },
  '/admin/requests': {
    get: {
      summary: 'The latest requests, newest first',
      query: requestsQuery,
      answers: { 200: { description: 'A page of usage rows', schema: requestsPageView }, 400: 'error', 404: 'error' },
    },
  },
  '/admin/requests/{id}': {
    get: {
      summary: 'One request: the error its caller saw (masked) and each upstream attempt',
      path: { id: 'The request id its answer carried (`x-request-id`), or the listing’s row `id`.' },
      answers: { 200: { description: 'The request', schema: requestDetailView }, 400: 'error', 404: 'error' },
    },
  },
  '/admin/reconcile': {
    post: {
      summary: "The gateway's usage per UTC day and upstream model beside a provider's usage or cost export",
      query: reconcileQuery,
      body: {
        description: "The provider's export as downloaded: its admin API's JSON or a CSV with a header row.",
        json: z.unknown(),
        csv: true,
      },
      answers: {
        200: {
          description: 'Per day and model: the gateway, the provider and the difference (gateway minus provider)',
          schema: reconcileView,
        },
        400: 'error',
      },
    },
  },
  '/admin/deployments': {
    get: {
      summary: 'Each deployment’s health as this replica sees it',
      answers: { 200: { description: 'Deployments', schema: deploymentsView } },
    },
  },
  '/admin/deployments/{id}/reset': {
    post: {
      summary: 'Close the deployment’s circuit and try its provider’s refused keys again (this replica)',
      path: { id: '`model#index`, percent-encoded (`%23` for `#`).' },
      answers: {
        200: { description: 'Every deployment, as GET /admin/deployments', schema: deploymentsView },
        404: 'error',
      },
    },
  },
  '/admin/openapi.json': {
    get: { summary: 'This document', answers: { 200: { description: 'OpenAPI 3.1' } } },
  },
};

const IDENTITY_OPERATIONS: Operations = {
  '/admin/me': {
    get: {
      summary: 'Who the caller is: the principal and role the admin API sees (docs/admin.md, "Roles")',
      answers: { 200: { description: 'The principal', schema: meView } },
    },
  },
  '/admin/audit': {
    get: {
      summary: 'The audit trail: every change through the admin API, CLI and dashboard, newest first',
      query: auditQuery,
      answers: { 200: { description: 'Audit entries', schema: auditView, csv: true }, 400: 'error' },
    },
  },
  '/admin/alerts': {
    get: {
      summary: 'The alerts raised (budget thresholds, opened circuits, expiring keys), newest first',
      query: z.object({ limit: z.int().min(0).optional() }),
      answers: { 200: { description: 'Alerts with their delivery', schema: alertsView } },
    },
  },
};

/** Every operation of the admin API; a new route adds its entry here (or a table of its own spread in). */
export const OPERATIONS: Operations = {
  ...KEY_OPERATIONS,
  ...REPORT_OPERATIONS,
  ...ENTRY_OPERATIONS,
  ...TEAM_OPERATIONS,
  ...IDENTITY_OPERATIONS,
};

/** Schemas that are components of the document, referred to by `$ref` wherever they appear. */
const COMPONENTS = new Map<z.ZodType, string>([[keyView, 'Key']]);

/**
 * A schema as JSON Schema (2020-12, as OpenAPI 3.1 takes it), for what a caller sends (`input`) or gets
 * (`output`). What the API answers may gain fields: answers are never closed to other properties.
 */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output', component = false): Record<string, unknown> {
  const named = COMPONENTS.get(schema);
  if (named !== undefined && !component) return { $ref: `#/components/schemas/${named}` };
  const out = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    override: (ctx) => {
      const json = ctx.jsonSchema as Record<string, unknown>;
      const inner = COMPONENTS.get(ctx.zodSchema as unknown as z.ZodType);
      if (inner !== undefined && (ctx.zodSchema as unknown) !== schema) {
        for (const k of Object.keys(json)) delete json[k];
        json.$ref = `#/components/schemas/${inner}`;
        return;
      }
      // A named format (date-time, date) says what its generated pattern says, readably.
      if (typeof json.format === 'string' && json.pattern !== undefined) delete json.pattern;
      if (io === 'output' && json.additionalProperties === false) delete json.additionalProperties;
    },
  }) as Record<string, unknown>;
  delete out.$schema;
  return out;
}

const json = (schema: Record<string, unknown>) => ({ 'application/json': { schema } });

function parameters(op: Operation): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const [name, description] of Object.entries(op.path ?? {}))
    out.push({ name, in: 'path', required: true, schema: { type: 'string' }, description });
  const shape = op.query?.shape ?? {};
  for (const [name, field] of Object.entries(shape)) {
    const schema = jsonSchema(field as z.ZodType, 'input');
    const { description, ...rest } = schema;
    out.push({
      name,
      in: 'query',
      ...(field.safeParse(undefined).success ? {} : { required: true }),
      schema: rest,
      ...(description === undefined ? {} : { description }),
    });
  }
  return out;
}

function operation(op: Operation): Record<string, unknown> {
  const out: Record<string, unknown> = { summary: op.summary };
  const params = parameters(op);
  if (params.length > 0) out.parameters = params;
  if (op.body !== undefined) {
    if ('json' in op.body && 'csv' in op.body) {
      out.requestBody = {
        required: true,
        description: op.body.description,
        content: { ...json(jsonSchema(op.body.json, 'input')), 'text/csv': { schema: { type: 'string' } } },
      };
    } else out.requestBody = { required: true, content: json(jsonSchema(op.body as z.ZodType, 'input')) };
  }
  const responses: Record<string, unknown> = {};
  for (const [status, answer] of Object.entries(op.answers)) {
    if (answer === 'error') responses[status] = { $ref: '#/components/responses/Error' };
    else {
      const content: Record<string, unknown> =
        answer.schema === undefined ? {} : json(jsonSchema(answer.schema, 'output'));
      if (answer.csv === true) content['text/csv'] = { schema: { type: 'string' } };
      responses[status] = { description: answer.description, ...(Object.keys(content).length > 0 ? { content } : {}) };
    }
  }
  out.responses = responses;
  return out;
}

/** The document for a table of operations. */
export function openApiDocument(operations: Operations): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const [path, ops] of Object.entries(operations)) {
    const item: Record<string, unknown> = {};
    for (const [method, op] of Object.entries(ops)) if (op !== undefined) item[method] = operation(op);
    paths[path] = item;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'modelgate admin API',
      version: '1',
      description:
        'Keys, usage, deployment health, providers, models and alerts. Every path needs an administrator credential: `Authorization: Bearer <admin_token>` (or a named `admin_tokens` entry), or a signed-in session (docs/admin.md); without any configured every path is 404.',
    },
    components: {
      securitySchemes: {
        adminToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'The admin_token setting (or MODELGATE_ADMIN_TOKEN). API keys are refused.',
        },
      },
      schemas: { Key: jsonSchema(keyView, 'output', true) },
      responses: {
        Error: {
          description:
            'OpenAI-shaped error: 400 invalid_request, 401 invalid_api_key, 404 not_found, 405 method_not_allowed, 409 conflict, 429 admin_sign_in_limited (30 refused tokens from one address in a minute).',
          content: json(jsonSchema(errorView, 'output')),
        },
      },
    },
    security: [{ adminToken: [] }],
    paths,
  };
}

let rendered: string | undefined;

/** The document as served; generated on the first request for it, not at every start. */
export function openApiJson(): string {
  rendered ??= JSON.stringify(openApiDocument(OPERATIONS));
  return rendered;
}

// The admin API's OpenAPI 3.1 document, served at GET /admin/openapi.json (a test checks every route is in it).
import { ENTRY_PATHS } from './entry-openapi.ts';

const nullable = (type: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: [type, 'null'],
  ...extra,
});

const keySettings = {
  name: {
    type: 'string',
    minLength: 1,
    maxLength: 200,
    description: 'Unique; picks the key in the paths below as its id does.',
  },
  models: {
    ...nullable('array'),
    items: { type: 'string' },
    description: 'Model names or globs (`claude-*`); null or ["*"] for every model.',
  },
  expires_at: nullable('string', { format: 'date-time', description: 'ISO-8601; null never.' }),
  budget_usd: nullable('number', {
    minimum: 0,
    description: 'USD per budget period (lifetime without one); null unlimited.',
  }),
  token_budget: nullable('integer', { minimum: 0, description: 'Tokens per budget period; null unlimited.' }),
  budget_period: nullable('string', {
    enum: ['daily', 'weekly', 'monthly', null],
    description: 'Calendar period in UTC; null lifetime.',
  }),
  rpm: nullable('integer', { minimum: 0, description: 'Requests per minute.' }),
  tpm: nullable('integer', { minimum: 0, description: 'Tokens per minute.' }),
  concurrency: nullable('integer', { minimum: 0, description: 'Requests in flight at once.' }),
  team: nullable('string', {
    description: 'The team (by name) the key belongs to; a team administrator’s keys are its team’s.',
  }),
};

const keyView = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    masked: { type: 'string', description: 'First 4 and last 4 characters.' },
    status: { type: 'string', enum: ['active', 'disabled', 'expired'] },
    created_at: { type: 'string', format: 'date-time' },
    ...keySettings,
    spent_usd: { type: 'number', description: 'In the current budget period.' },
    budget_left_usd: nullable('number'),
    tokens_used: { type: 'integer' },
    tokens_left: nullable('integer'),
  },
};

const usageTotals = {
  requests: { type: 'integer' },
  errors: { type: 'integer', description: 'Status 400 or above.' },
  input_tokens: { type: 'integer' },
  output_tokens: { type: 'integer' },
  cache_read_tokens: { type: 'integer' },
  cache_write_tokens: { type: 'integer' },
  total_tokens: { type: 'integer' },
  cost_usd: { type: 'number' },
  latency_p50_ms: nullable('number'),
  latency_p95_ms: nullable('number'),
  latency_p99_ms: nullable('number'),
};

const filterParams = [
  {
    name: 'from',
    in: 'query',
    schema: { type: 'string' },
    description: 'ISO-8601 date or time, or unix ms (default: 30 days back for /usage, the beginning for /requests).',
  },
  {
    name: 'to',
    in: 'query',
    schema: { type: 'string' },
    description: 'Exclusive; a date alone includes that day (default: now).',
  },
  { name: 'key', in: 'query', schema: { type: 'string' }, description: 'Key id or name.' },
  { name: 'model', in: 'query', schema: { type: 'string' } },
  { name: 'deployment', in: 'query', schema: { type: 'string' }, description: '`model#index`.' },
  { name: 'errors', in: 'query', schema: { type: 'boolean' }, description: 'Only requests answered 400 or above.' },
];

const error = { $ref: '#/components/responses/Error' };
const keyParam = { name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'Key id or name.' };
const json = (schema: unknown): Record<string, unknown> => ({ content: { 'application/json': { schema } } });

export const OPENAPI_DOCUMENT = {
  openapi: '3.1.0',
  info: {
    title: 'modelgate admin API',
    version: '1',
    description:
      'Keys, usage, deployment health, providers and models. Every path needs `Authorization: Bearer <admin_token>`; without `admin_token` configured every path is 404.',
  },
  components: {
    securitySchemes: {
      adminToken: {
        type: 'http',
        scheme: 'bearer',
        description: 'The admin_token setting (or MODELGATE_ADMIN_TOKEN). API keys are refused.',
      },
    },
    schemas: { Key: keyView },
    responses: {
      Error: {
        description:
          'OpenAI-shaped error: 400 invalid_request, 401 invalid_api_key, 404 not_found, 405 method_not_allowed, 409 conflict, 429 admin_sign_in_limited (30 refused tokens from one address in a minute).',
        ...json({
          type: 'object',
          properties: {
            error: {
              type: 'object',
              properties: {
                message: { type: 'string' },
                type: { type: 'string' },
                param: nullable('string'),
                code: { type: 'string' },
              },
            },
          },
        }),
      },
    },
  },
  security: [{ adminToken: [] }],
  paths: {
    ...ENTRY_PATHS,
    '/admin/openapi.json': { get: { summary: 'This document', responses: { 200: { description: 'OpenAPI 3.1' } } } },
    '/admin/keys': {
      get: {
        summary: 'Every key, masked, with its spend',
        responses: {
          200: {
            description: 'Keys',
            ...json({
              type: 'object',
              properties: { data: { type: 'array', items: { $ref: '#/components/schemas/Key' } } },
            }),
          },
          401: error,
        },
      },
      post: {
        summary: 'Create a key; the whole key is in this answer only',
        requestBody: {
          required: true,
          ...json({ type: 'object', required: ['name'], additionalProperties: false, properties: keySettings }),
        },
        responses: {
          201: {
            description: 'Created',
            ...json({
              allOf: [
                { $ref: '#/components/schemas/Key' },
                { type: 'object', properties: { key: { type: 'string', description: 'Shown this once.' } } },
              ],
            }),
          },
          400: error,
          401: error,
          409: error,
        },
      },
    },
    '/admin/keys/{id}': {
      parameters: [keyParam],
      get: {
        summary: 'One key with its spend',
        responses: { 200: { description: 'Key', ...json({ $ref: '#/components/schemas/Key' }) }, 404: error },
      },
      patch: {
        summary: 'Change a key’s settings (null clears a limit)',
        requestBody: {
          required: true,
          ...json({
            type: 'object',
            additionalProperties: false,
            properties: { ...keySettings, disabled: { type: 'boolean' } },
          }),
        },
        responses: {
          200: { description: 'Key', ...json({ $ref: '#/components/schemas/Key' }) },
          400: error,
          404: error,
          409: error,
        },
      },
      delete: {
        summary: 'Delete a key (its usage rows stay)',
        responses: {
          200: {
            description: 'Deleted',
            ...json({ type: 'object', properties: { id: { type: 'string' }, deleted: { type: 'boolean' } } }),
          },
          404: error,
        },
      },
    },
    '/admin/keys/{id}/disable': {
      parameters: [keyParam],
      post: {
        summary: 'Disable a key',
        responses: { 200: { description: 'Key', ...json({ $ref: '#/components/schemas/Key' }) }, 404: error },
      },
    },
    '/admin/keys/{id}/enable': {
      parameters: [keyParam],
      post: {
        summary: 'Enable a key',
        responses: { 200: { description: 'Key', ...json({ $ref: '#/components/schemas/Key' }) }, 404: error },
      },
    },
    '/admin/usage': {
      get: {
        summary: 'Usage totals, grouped',
        parameters: [
          ...filterParams,
          {
            name: 'group_by',
            in: 'query',
            schema: { type: 'string' },
            description: 'Comma-separated: day, hour, model, key, deployment (UTC days and hours).',
          },
          { name: 'format', in: 'query', schema: { type: 'string', enum: ['json', 'csv'] } },
        ],
        responses: {
          200: {
            description: 'Totals for the range and per group',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    from: { type: 'string' },
                    to: { type: 'string' },
                    group_by: { type: 'array', items: { type: 'string' } },
                    totals: { type: 'object', properties: usageTotals },
                    groups: {
                      type: 'array',
                      items: {
                        type: 'object',
                        properties: {
                          day: { type: 'string' },
                          hour: { type: 'string' },
                          model: { type: 'string' },
                          key_id: { type: 'string' },
                          key_name: nullable('string'),
                          key_masked: nullable('string'),
                          deployment: nullable('string'),
                          ...usageTotals,
                        },
                      },
                    },
                  },
                },
              },
              'text/csv': { schema: { type: 'string' } },
            },
          },
          400: error,
          404: error,
        },
      },
    },
    '/admin/requests': {
      get: {
        summary: 'The latest requests, newest first',
        parameters: [
          ...filterParams,
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 500, default: 50 } },
          {
            name: 'before',
            in: 'query',
            schema: { type: 'integer' },
            description: 'The next_cursor of the previous page.',
          },
        ],
        responses: {
          200: {
            description: 'A page of usage rows',
            ...json({
              type: 'object',
              properties: {
                next_cursor: nullable('integer'),
                data: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: {
                      id: { type: 'integer' },
                      time: { type: 'string', format: 'date-time' },
                      request_id: { type: 'string' },
                      key_id: { type: 'string' },
                      key_name: nullable('string'),
                      key_masked: nullable('string'),
                      endpoint: { type: 'string' },
                      model: { type: 'string' },
                      deployment: nullable('string'),
                      status: { type: 'integer' },
                      input_tokens: { type: 'integer' },
                      output_tokens: { type: 'integer' },
                      cache_read_tokens: { type: 'integer' },
                      cache_write_tokens: { type: 'integer' },
                      cost_usd: { type: 'number' },
                      latency_ms: { type: 'integer' },
                      ttfb_ms: nullable('integer'),
                      streamed: { type: 'boolean' },
                      attempts: { type: 'integer' },
                      error_code: nullable('string'),
                      routing: {
                        ...nullable('string'),
                        description:
                          "'panic' when sent to a cooling-down deployment because every deployment of the model was; null otherwise.",
                      },
                      cost_breakdown: {
                        type: 'array',
                        description:
                          'The cost explained: one line per token class (input, cache_read, cache_write_5m, cache_write_1h, output, reasoning, audio and image parts) or unit (web_search, …) charged.',
                        items: {
                          type: 'object',
                          properties: {
                            class: { type: 'string' },
                            tokens: { type: 'integer' },
                            units: { type: 'number' },
                            unit_price_usd: { type: 'number', description: 'USD for one token or one unit.' },
                            cost_usd: { type: 'number' },
                          },
                        },
                      },
                      redactions: {
                        type: 'integer',
                        description:
                          'Texts the redaction stage masked in the request and its reply (docs/redaction.md).',
                      },
                    },
                  },
                },
              },
            }),
          },
          400: error,
          404: error,
        },
      },
    },
    '/admin/reconcile': {
      post: {
        summary: "The gateway's usage per UTC day and upstream model beside a provider's usage or cost export",
        parameters: [
          { name: 'provider', in: 'query', required: true, schema: { type: 'string', enum: ['openai', 'anthropic'] } },
          { name: 'from', in: 'query', schema: { type: 'string', format: 'date' } },
          { name: 'to', in: 'query', schema: { type: 'string', format: 'date' } },
          { name: 'tolerance_usd', in: 'query', schema: { type: 'number', default: 0.000001 } },
        ],
        requestBody: {
          required: true,
          description: "The provider's export as downloaded: its admin API's JSON or a CSV with a header row.",
          content: { 'application/json': { schema: {} }, 'text/csv': { schema: { type: 'string' } } },
        },
        responses: {
          200: {
            description: 'Per day and model: the gateway, the provider and the difference (gateway minus provider)',
            ...json({
              type: 'object',
              properties: {
                provider: { type: 'string' },
                from: { type: 'string' },
                to: { type: 'string' },
                differing: { type: 'integer' },
                lines: { type: 'array', items: { type: 'object' } },
              },
            }),
          },
          400: error,
        },
      },
    },
    '/admin/deployments/{id}/reset': {
      parameters: [
        {
          name: 'id',
          in: 'path',
          required: true,
          schema: { type: 'string' },
          description: '`model#index`, percent-encoded (`%23` for `#`).',
        },
      ],
      post: {
        summary: 'Close the deployment’s circuit and try its provider’s refused keys again (this replica)',
        responses: { 200: { description: 'Every deployment, as GET /admin/deployments' }, 404: error },
      },
    },
    '/admin/deployments': {
      get: {
        summary: 'Each deployment’s health as this replica sees it',
        responses: {
          200: {
            description: 'Deployments',
            ...json({
              type: 'object',
              properties: {
                data: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: {
                      id: { type: 'string' },
                      model: { type: 'string' },
                      provider: { type: 'string' },
                      provider_kind: { type: 'string' },
                      upstream_model: { type: 'string' },
                      priority: { type: 'integer' },
                      weight: { type: 'number' },
                      state: { type: 'string', enum: ['closed', 'open', 'half-open', 'credentials'] },
                      cooldown_left_ms: { type: 'integer' },
                      consecutive_failures: { type: 'integer' },
                      recent_calls: { type: 'integer' },
                      recent_failures: { type: 'integer' },
                      recent_error_rate: nullable('number'),
                      last_error: {
                        type: ['object', 'null'],
                        properties: { reason: { type: 'string' }, at: { type: 'string', format: 'date-time' } },
                      },
                      credentials: { type: 'integer' },
                      locked_out_credentials: { type: 'array', items: { type: 'string' }, description: 'Masked.' },
                    },
                  },
                },
              },
            }),
          },
        },
      },
    },

    '/admin/me': {
      get: {
        summary: 'Who the caller is: the principal and role the admin API sees (docs/admin.md, "Roles")',
        responses: {
          200: {
            description: 'The principal',
            ...json({
              type: 'object',
              properties: {
                kind: { type: 'string', enum: ['token', 'user', 'cli'] },
                name: { type: 'string' },
                role: { type: 'string', enum: ['admin', 'team_admin', 'viewer'] },
                team: { type: 'string' },
              },
            }),
          },
        },
      },
    },
    '/admin/alerts': {
      get: {
        summary: 'The alerts raised (budget thresholds, opened circuits, expiring keys), newest first',
        parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer', minimum: 0 } }],
        responses: {
          200: {
            description: 'Alerts with their delivery',
            ...json({
              type: 'object',
              properties: {
                data: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: {
                      id: { type: 'string' },
                      event: { type: 'string', enum: ['budget_threshold', 'circuit_open', 'key_expiring'] },
                      created_at: { type: 'string', format: 'date-time' },
                      summary: { type: 'string' },
                      data: { type: 'object' },
                      status: { type: 'string', enum: ['pending', 'delivered', 'failed', 'superseded'] },
                      attempts: { type: 'integer' },
                      last_error: nullable('string'),
                      delivered_at: nullable('string', { format: 'date-time' }),
                    },
                  },
                },
              },
            }),
          },
        },
      },
    },
  },
};

export const OPENAPI_JSON = JSON.stringify(OPENAPI_DOCUMENT);

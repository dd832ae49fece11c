// What the admin API answers, as zod schemas: the OpenAPI document (openapi.ts) is generated from them
// and from the request schemas, never written by hand.
import { z } from 'zod';
import { keyFields } from './key-bodies.ts';

const nullable = <T extends z.ZodType>(t: T, description?: string) =>
  description === undefined ? t.nullable() : t.nullable().meta({ description });

export const errorView = z.object({
  error: z.object({
    message: z.string(),
    type: z.string(),
    param: z.string().nullable(),
    code: z.string(),
  }),
});

export const keyView = z.object({
  id: z.string(),
  masked: z.string().meta({ description: 'First 4 and last 4 characters.' }),
  status: z.enum(['active', 'disabled', 'expired']),
  created_at: z.iso.datetime(),
  ...keyFields,
  spent_usd: z.number().meta({ description: 'In the current budget period.' }),
  budget_left_usd: z.number().nullable(),
  tokens_used: z.int(),
  tokens_left: z.int().nullable(),
  last_used_at: z.iso
    .datetime()
    .nullable()
    .optional()
    .meta({ description: 'In the key list: the time of its latest request; null: never used.' }),
});

export const createdKeyView = keyView.extend({ key: z.string().meta({ description: 'Shown this once.' }) });

export const keysView = z.object({ data: z.array(keyView) });

export const rotatedKeyView = createdKeyView.extend({
  previous_valid_until: z.iso
    .datetime()
    .nullable()
    .meta({ description: 'Until when the old secret is still accepted; null: it no longer is.' }),
});

const auditTarget = z.object({ kind: z.string(), id: z.string(), name: z.string().nullable() });

export const auditView = z.object({
  data: z.array(
    z.object({
      id: z.string(),
      at: z.iso.datetime(),
      actor: z.object({ kind: z.string(), name: z.string() }),
      source: z.string().nullable().meta({ description: 'The caller’s address; null for the CLI.' }),
      action: z.string().meta({ description: '`key.create`, `key.update`, `key.rotate`, `key.delete`, …' }),
      target: auditTarget,
      before: z.looseObject({}).nullable().meta({ description: 'The masked public view before the change.' }),
      after: z.looseObject({}).nullable().meta({ description: 'The masked public view after the change.' }),
    }),
  ),
});

export const auditQuery = z.object({
  from: z.string().optional().meta({ description: 'ISO-8601 date or time, or unix ms.' }),
  to: z.string().optional().meta({ description: 'Exclusive.' }),
  actor: z.string().optional().meta({ description: 'The actor’s name (a token’s name, a user, an OS user).' }),
  action: z.string().optional().meta({ description: 'An action (`key.delete`) or a kind of target (`key`).' }),
  target: z.string().optional().meta({ description: 'A target’s id or name (kept after it is deleted).' }),
  target_kind: z.string().optional(),
  limit: z.int().min(1).max(10000).default(500).optional(),
  format: z.enum(['json', 'csv']).optional(),
});

export const deletedView = z.object({ id: z.string(), deleted: z.boolean() });

const usageTotals = {
  requests: z.int(),
  errors: z.int().meta({ description: 'Status 400 or above.' }),
  input_tokens: z.int(),
  output_tokens: z.int(),
  cache_read_tokens: z.int(),
  cache_write_tokens: z.int(),
  total_tokens: z.int(),
  cost_usd: z.number(),
  latency_p50_ms: z.number().nullable(),
  latency_p95_ms: z.number().nullable(),
  latency_p99_ms: z.number().nullable(),
};

export const usageReportView = z.object({
  from: z.string(),
  to: z.string(),
  group_by: z.array(z.string()),
  totals: z.object(usageTotals),
  groups: z.array(
    z
      .object({
        day: z.string(),
        hour: z.string(),
        model: z.string(),
        key_id: z.string(),
        key_name: z.string().nullable(),
        key_masked: z.string().nullable(),
        deployment: z.string().nullable(),
        session_id: z.string().nullable(),
        endpoint: z.string(),
        ...usageTotals,
      })
      .partial({
        day: true,
        hour: true,
        model: true,
        key_id: true,
        key_name: true,
        key_masked: true,
        deployment: true,
        session_id: true,
        endpoint: true,
      })
      .meta({ description: 'One group: the grouping columns asked for, then the totals.' }),
  ),
});

export const costLineView = z.object({
  class: z.string(),
  tokens: z.int().optional(),
  units: z.number().optional(),
  unit_price_usd: z.number().meta({ description: 'USD for one token or one unit.' }),
  cost_usd: z.number(),
  service_tier: z.string().optional().meta({ description: 'The service tier whose rate priced the line.' }),
});

export const requestRowView = z.object({
  id: z.int(),
  time: z.iso.datetime(),
  request_id: z.string(),
  key_id: z.string(),
  key_name: z.string().nullable(),
  key_masked: z.string().nullable(),
  team: nullable(z.string(), "The key's team (a deleted key's as it was)."),
  endpoint: z.string(),
  model: z.string(),
  deployment: z.string().nullable(),
  status: z.int(),
  input_tokens: z.int(),
  output_tokens: z.int(),
  cache_read_tokens: z.int(),
  cache_write_tokens: z.int(),
  cost_usd: z.number(),
  latency_ms: z.int(),
  ttfb_ms: z.int().nullable(),
  streamed: z.boolean(),
  attempts: z.int(),
  error_code: z.string().nullable(),
  error_message: nullable(
    z.string(),
    'The error message the caller was answered with (the upstream’s text in it), secrets masked; null for a success.',
  ),
  routing: nullable(
    z.string(),
    "'panic' when sent to a cooling-down deployment because every deployment of the model was; null otherwise.",
  ),
  cost_breakdown: z.array(costLineView).meta({
    description:
      'The cost explained: one line per token class (input, cache_read, cache_write_5m, cache_write_1h, output, reasoning, audio and image parts) or unit (web_search, …) charged.',
  }),
  redactions: z
    .int()
    .meta({ description: 'Texts the redaction stage masked in the request and its reply (docs/redaction.md).' }),
});

export const requestsPageView = z.object({ next_cursor: z.int().nullable(), data: z.array(requestRowView) });

export const requestDetailView = requestRowView.extend({
  attempt_log: z
    .array(
      z.object({
        deployment: z.string(),
        status: z.int().nullable().meta({ description: 'The upstream’s status; null when none came.' }),
        outcome: z.string().meta({
          description:
            '`answer`, `status_<code>`, `timeout`, `connection`, `malformed`, `local`, `client_disconnected`, …',
        }),
        duration_ms: z
          .int()
          .meta({ description: 'Until the answer was committed to (its first byte) or the attempt failed.' }),
      }),
    )
    .meta({ description: 'Each upstream attempt in order; empty when none was made (refused before routing).' }),
  request_body: z.string().nullable().optional().meta({
    description: 'Body logging: the request after the model’s stages, masked and cut; absent when not logged.',
  }),
  response_body: z.string().nullable().optional().meta({
    description: 'Body logging: the reply as the caller got it (a stream as its events), masked and cut.',
  }),
});

export const reconcileView = z.object({
  provider: z.string(),
  from: z.string(),
  to: z.string(),
  differing: z.int(),
  lines: z
    .array(z.looseObject({}))
    .meta({ description: 'Per day and model: the gateway, the provider and the difference.' }),
});

export const deploymentsView = z.object({
  data: z.array(
    z.object({
      id: z.string(),
      model: z.string(),
      provider: z.string(),
      provider_kind: z.string(),
      upstream_model: z.string(),
      priority: z.int(),
      weight: z.number(),
      state: z.enum(['closed', 'open', 'half-open', 'credentials']),
      cooldown_left_ms: z.int(),
      consecutive_failures: z.int(),
      recent_calls: z.int(),
      recent_failures: z.int(),
      recent_error_rate: z.number().nullable(),
      last_error: z.object({ reason: z.string(), at: z.iso.datetime() }).nullable(),
      credentials: z.int(),
      locked_out_credentials: z.array(z.string()).meta({ description: 'Masked.' }),
    }),
  ),
});

/** Query filters shared by GET /admin/usage and GET /admin/requests. */
export const usageFilters = {
  from: z.string().optional().meta({
    description: 'ISO-8601 date or time, or unix ms (default: 30 days back for /usage, the beginning for /requests).',
  }),
  to: z.string().optional().meta({ description: 'Exclusive; a date alone includes that day (default: now).' }),
  key: z.string().optional().meta({ description: 'Key id or name.' }),
  model: z.string().optional(),
  deployment: z.string().optional().meta({ description: '`model#index`.' }),
  endpoint: z
    .string()
    .optional()
    .meta({ description: '`/mcp`: the MCP tool calls (model `SERVER__TOOL`, deployment the server).' }),
  team: z
    .string()
    .optional()
    .meta({ description: "The keys of one team (a key's `team`); a team administrator always sees its own." }),
  errors: z.boolean().optional().meta({ description: 'Only requests answered 400 or above.' }),
};

export const usageQuery = z.object({
  ...usageFilters,
  group_by: z.string().optional().meta({
    description: 'Comma-separated: day, hour, model, key, deployment, session, endpoint, team (UTC days and hours).',
  }),
  format: z.enum(['json', 'csv']).optional(),
});

export const requestsQuery = z.object({
  ...usageFilters,
  status: z.string().optional().meta({ description: 'A status code (`429`) or a class (`4xx`).' }),
  request_id: z.string().optional().meta({ description: 'One request, by its `x-request-id`.' }),
  q: z.string().optional().meta({
    description: 'A substring (any case) of the request id, model, deployment, error code, error message or key name.',
  }),
  limit: z.int().min(1).max(500).default(50).optional(),
  before: z.int().optional().meta({ description: 'The next_cursor of the previous page.' }),
});

export const reconcileQuery = z.object({
  provider: z.enum(['openai', 'anthropic']),
  from: z.iso.date().optional(),
  to: z.iso.date().optional(),
  tolerance_usd: z.number().default(0.000001).optional(),
});

export const meView = z.object({
  kind: z.enum(['token', 'user', 'cli']),
  name: z.string(),
  role: z.enum(['admin', 'team_admin', 'viewer']),
  team: z.string().optional(),
});

export const alertsView = z.object({
  data: z.array(
    z.object({
      id: z.string(),
      event: z.enum(['budget_threshold', 'circuit_open', 'key_expiring']),
      created_at: z.iso.datetime(),
      summary: z.string(),
      data: z.looseObject({}),
      status: z.enum(['pending', 'delivered', 'failed', 'superseded']),
      attempts: z.int(),
      last_error: z.string().nullable(),
      delivered_at: z.iso.datetime().nullable(),
    }),
  ),
});

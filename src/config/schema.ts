// The YAML configuration schema (snake_case, as operators write it) and its defaults.
import { z } from 'zod';
import { DEFAULT_FLUSH_ROWS, MAX_PENDING_ROWS } from '../accounting/usage-writer.ts';
import { PROVIDERS } from '../registry.ts';
import type { ProviderSpec } from '../spec/provider.ts';
import { STAGES } from '../stages/index.ts';

/**
 * A number, also when written as a string of digits: `${NAME}` fills settings in as strings (`port:
 * ${PORT}`), and a container's settings come from its environment.
 */
function num<T extends z.ZodType>(schema: T) {
  return z.preprocess((v) => (typeof v === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(v) ? Number(v) : v), schema);
}

const positiveInt = num(z.number().int().positive());
const nonNegInt = num(z.number().int().nonnegative());

const rate = num(z.number().nonnegative());

/** Token rates, USD per million tokens (a per-token price is refused at load: pricing/model-price.ts). */
const rateFields = {
  input: rate,
  output: rate,
  cache_read: rate.optional(),
  cache_write: rate.optional(),
  cache_write_1h: rate.optional(),
  reasoning: rate.optional(),
  input_audio: rate.optional(),
  input_image: rate.optional(),
  cache_read_audio: rate.optional(),
  cache_read_image: rate.optional(),
  output_audio: rate.optional(),
  output_image: rate.optional(),
};

export const priceSchema = z.strictObject({
  ...rateFields,
  /** USD per unit, by unit name (`web_search`: one server-side search call). */
  units: z.record(z.string().min(1), rate).optional(),
  /** Long-context tiers: a prompt above `above` tokens pays these rates for all its tokens. */
  tiers: z
    .array(
      z.strictObject({
        above: positiveInt,
        input: rate,
        output: rate,
        cache_read: rate.optional(),
        cache_write: rate.optional(),
        cache_write_1h: rate.optional(),
      }),
    )
    .optional(),
  /**
   * Service tiers (`priority`, `flex`, `batch`): the tier's own rates, or a number that scales every
   * rate of the standard price (`flex: 0.5`).
   */
  service_tiers: z
    .record(
      z.string().regex(/^[a-z][a-z0-9_]{0,31}$/, 'a service tier is a lowercase name such as priority or flex'),
      z.union([num(z.number().positive()), z.strictObject(rateFields)]),
    )
    .optional(),
});

export const timeoutsSchema = z.strictObject({
  connect_ms: positiveInt.optional(),
  first_byte_ms: positiveInt.optional(),
  idle_ms: positiveInt.optional(),
  total_ms: positiveInt.optional(),
});

/** The keys every provider kind has; each kind adds its own (ProviderSpec.configKeys). */
const commonProviderKeys = {
  name: z.string().min(1),
  base_url: z.url({ protocol: /^https?$/ }).optional(),
  api_key: z.string().optional(),
  api_keys: z.array(z.string().min(1)).optional(),
  headers: z.record(z.string(), z.string()).optional(),
  // HTTP/2 to the upstream (docs/providers.md): auto = by ALPN over TLS, HTTP/1.1 over plain HTTP.
  http2: z.literal(['auto', true, false], { error: 'http2 is auto, true or false' }).optional(),
};

/** One strict object per kind in the registry: a key of another kind is refused, naming the kind. */
function providerSchemaOf(spec: ProviderSpec) {
  const own = Object.keys(spec.configKeys);
  return z.strictObject(
    { ...commonProviderKeys, kind: z.literal(spec.kind), ...spec.configKeys },
    {
      error: (iss) =>
        iss.code === 'unrecognized_keys'
          ? `${iss.keys.join(', ')}: not a setting of kind ${spec.kind} (its own: ${own.length === 0 ? 'none' : own.join(', ')})`
          : undefined,
    },
  );
}

const providerSchemas = PROVIDERS.map(providerSchemaOf);

export const providerSchema = z.discriminatedUnion(
  'kind',
  providerSchemas as unknown as [(typeof providerSchemas)[number], ...(typeof providerSchemas)[number][]],
  {
    error: (iss) =>
      iss.code === 'invalid_union' && (iss as { note?: string }).note === 'No matching discriminator'
        ? `unknown provider kind (known: ${PROVIDERS.map((spec) => spec.kind).join(', ')})`
        : undefined,
  },
);

export const deploymentSchema = z.strictObject({
  provider: z.string().min(1),
  model: z.string().min(1),
  priority: nonNegInt.optional(),
  weight: num(z.number().positive()).optional(),
  max_tokens_field: z.enum(['max_tokens', 'max_completion_tokens']).optional(),
  structured_output: z.enum(['tool', 'native']).optional(),
  /** Top-level request parameters the deployment's model refuses (upstream wire names): left out. */
  refused_params: z.array(z.string().min(1)).optional(),
});

/**
 * Each stage's block (`redact:`), at the top level and per model: its schema is the stage folder's. Typed
 * as no keys here (config/load.ts reads the blocks by the stages' keys), so a new stage changes no type.
 */
const stageBlocks = Object.fromEntries(STAGES.map((s) => [s.key, s.schema.optional()])) as Record<never, never>;

export const modelSchema = z.strictObject({
  name: z.string().min(1),
  family: z.string().min(1).optional(),
  // Other names that reach this model: exact names, or patterns with `*` (`claude-opus-*`).
  aliases: z.array(z.string().min(1)).optional(),
  mode: z.enum(['chat', 'embedding']).optional(),
  price: priceSchema.optional(),
  deployments: z.array(deploymentSchema).min(1),
  timeouts: timeoutsSchema.optional(),
  max_retries: num(z.number().int().min(0).max(10)).optional(),
  ...stageBlocks,
});

// One upstream MCP server behind /mcp: remote (`url`, with headers the gateway keeps) or local (`command`).
// The name prefixes its tools as `NAME__TOOL`, so it may not hold the separator itself.
const mcpServerName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/, 'must be letters, digits, - and _')
  .refine((n) => !n.includes('__'), 'must not contain `__` (the separator of SERVER__TOOL)');
export const mcpServerSchema = z
  .strictObject({
    name: mcpServerName,
    url: z.url().optional(),
    transport: z.enum(['http', 'sse']).optional(),
    headers: z.record(z.string(), z.string()).optional(),
    // Client credentials the gateway trades for access tokens at token_url, sent as `Authorization: Bearer`.
    oauth: z
      .strictObject({
        token_url: z.url(),
        client_id: z.string().min(1),
        client_secret: z.string().min(1),
        scope: z.string().min(1).optional(),
      })
      .optional(),
    command: z.string().min(1).optional(),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
    timeout_ms: positiveInt.optional(),
  })
  .refine((s) => (s.url === undefined) !== (s.command === undefined), {
    message: 'give either `url` (a remote server) or `command` (a local stdio server), not both',
  })
  .refine(
    (s) => s.url !== undefined || (s.headers === undefined && s.transport === undefined && s.oauth === undefined),
    {
      message: '`headers`, `oauth` and `transport` belong to a remote server (`url`)',
    },
  )
  .refine((s) => s.command !== undefined || (s.args === undefined && s.env === undefined), {
    message: '`args` and `env` belong to a local server (`command`)',
  });

export const configSchema = z.strictObject({
  listen: z
    .strictObject({
      host: z.string().min(1).optional(),
      port: num(z.number().int().min(0).max(65535)).optional(),
      /** TLS on the gateway's port: HTTP/1.1 and HTTP/2 chosen by ALPN. */
      tls: z.strictObject({ cert_file: z.string().min(1), key_file: z.string().min(1) }).optional(),
    })
    .optional(),
  database: z.string().min(1).optional(),
  redis: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
    .optional(),
  redis_prefix: z.string().min(1).optional(),
  instance_id: z.string().min(1).optional(),
  redis_peer_timeout_ms: positiveInt.optional(),
  // Empty = no token, so `${METRICS_TOKEN:-}` can leave it off.
  metrics_token: z.string().optional(),
  // Browser origins allowed to call the gateway (CORS); none by default.
  cors_origins: z
    .array(
      z
        .string()
        .regex(
          /^https?:\/\/[^/?#\s*]+$/i,
          'must be an origin like https://app.example.com: scheme, host and optional port, no path and no *',
        ),
    )
    .optional(),
  // The admin API and dashboard's token; empty = off, like metrics_token.
  admin_token: z.string().optional(),
  // Named admin tokens with a role (docs/admin.md): `token` (or `${ENV}`) or `token_hash` (hex SHA-256).
  admin_tokens: z
    .array(
      z
        .strictObject({
          name: z.string().min(1).max(100),
          token: z.string().min(16, 'an admin token must be at least 16 characters').optional(),
          token_hash: z
            .string()
            .regex(/^[0-9a-f]{64}$/, 'must be the hex SHA-256 of the token (sha256sum)')
            .optional(),
          role: z.enum(['admin', 'team_admin', 'viewer']),
          team: z.string().min(1).optional(),
        })
        .refine((t) => (t.token === undefined) !== (t.token_hash === undefined), {
          message: 'give either `token` or `token_hash`',
        })
        .refine((t) => t.role !== 'team_admin' || t.team !== undefined, {
          message: 'a team_admin token names its `team`',
        }),
    )
    .optional(),
  // Sign-in to the dashboard and admin API with an OpenID Connect provider (docs/admin.md).
  oidc: z
    .strictObject({
      issuer: z.url({ protocol: /^https?$/ }),
      client_id: z.string().min(1),
      client_secret: z.string().optional(),
      groups_claim: z.string().min(1).optional(),
      team_claim: z.string().min(1).optional(),
      roles: z
        .strictObject({
          admin: z.array(z.string().min(1)).optional(),
          team_admin: z.array(z.string().min(1)).optional(),
          viewer: z.array(z.string().min(1)).optional(),
        })
        .optional(),
      redirect_uri: z.url({ protocol: /^https?$/ }).optional(),
      scopes: z.array(z.string().min(1)).optional(),
      session_secret: z.string().min(32, 'at least 32 characters').optional(),
      session_ttl_s: positiveInt.optional(),
    })
    .optional(),
  // Webhooks told of budget thresholds, opened circuits and expiring keys (docs/admin.md, "Alerts").
  alerts: z
    .strictObject({
      webhooks: z.array(
        z.strictObject({
          url: z.url({ protocol: /^https?$/ }),
          events: z.array(z.enum(['budget_threshold', 'circuit_open', 'key_expiring'])).min(1),
          format: z.enum(['json', 'slack']).optional(),
        }),
      ),
      budget_thresholds: z
        .array(num(z.number().positive().max(1000)))
        .min(1)
        .optional(),
      key_expiring_days: num(z.number().positive()).optional(),
    })
    .optional(),
  // Body logging for chosen keys and teams (docs/admin.md, "Body logging"): masked, cut to size, kept for a while.
  body_log: z
    .strictObject({
      keys: z.array(z.string().min(1)).optional(),
      teams: z.array(z.string().min(1)).optional(),
      retention_days: num(z.number().positive().max(3650)).optional(),
      max_bytes: positiveInt.optional(),
    })
    .optional(),
  circuit_breaker: z
    .strictObject({
      failures: positiveInt.optional(),
      min_calls: positiveInt.optional(),
      cooldown_ms: positiveInt.optional(),
      credentials_retry_ms: positiveInt.optional(),
      credentials_retry_max_ms: positiveInt.optional(),
    })
    .optional(),
  body_limit_mb: num(z.number().positive()).optional(),
  decode_budget_mb: num(z.number().positive()).optional(),
  client_request_timeout_ms: positiveInt.optional(),
  client_body_timeout_ms: positiveInt.optional(),
  client_header_timeout_ms: positiveInt.optional(),
  stream_keepalive_ms: nonNegInt.optional(),
  max_connections: positiveInt.optional(),
  // Event-loop delay (ms) that, on two samples running, cuts the share of new requests admitted; a
  // saturated loop sheds too (src/http/load-shedding.ts); 0 = never shed.
  overload_loop_delay_ms: nonNegInt.optional(),
  // The connections one client address (an IPv6 /64) may hold (default: a tenth of max_connections, at
  // least 16, at most half).
  max_connections_per_address: positiveInt.optional(),
  quota_per_usd: num(z.number().positive()).optional(),
  usage_flush_ms: nonNegInt.optional(),
  usage_flush_rows: positiveInt.optional(),
  usage_pending_rows: positiveInt.optional(),
  // Where rows the database would not take at a stop wait for the next start (default: beside an SQLite file).
  usage_spill_file: z.string().min(1).optional(),
  default_max_tokens: positiveInt.optional(),
  // The share of what is left of a budget that requests in flight may hold at once (docs/budgets.md).
  in_flight_budget_share: num(z.number().positive().max(1)).optional(),
  // Stored Responses API responses (previous_response_id, GET/DELETE /v1/responses/{id}) are kept this long.
  responses_retention_days: num(z.number().positive()).optional(),
  responses_store_max_bytes_per_key: num(z.number().int().positive()).optional(),
  responses_store_max_turns_per_key: num(z.number().int().positive()).optional(),
  // A stop (SIGTERM): readiness fails at once, new connections are still served for drain_delay_s, then
  // requests in flight run on until shutdown_grace_s after the signal (docs/operations.md, "Stopping").
  shutdown_grace_s: num(z.number().positive()).optional(),
  drain_delay_s: num(z.number().nonnegative()).optional(),
  // One info line per answered request (key masked, model, status, tokens, cost, latency).
  access_log: z.boolean().optional(),
  timeouts: timeoutsSchema.optional(),
  max_retries: num(z.number().int().min(0).max(10)).optional(),
  // /v1/messages serves every chat model, not only those of family `anthropic`.
  messages_any_model: z.boolean().optional(),
  // Where providers and models come from: the file, the database (the admin API and CLI), or both
  // (default); with `database` the file may leave them out (docs/operations.md, "Changing models live").
  models_source: z.enum(['file', 'database', 'both']).optional(),
  // The file is reloaded when it changes (checked once a second); false: only on SIGHUP.
  config_watch: z.boolean().optional(),
  // Required unless models_source is database: config/load.ts says so, naming the setting.
  providers: z.array(providerSchema).min(1).optional(),
  models: z.array(modelSchema).min(1).optional(),
  ...stageBlocks,
  mcp_servers: z.array(mcpServerSchema).optional(),
});

export type RawConfig = z.infer<typeof configSchema>;

export const DEFAULTS = {
  host: '127.0.0.1',
  port: 8080,
  database: './data/modelgate.db',
  bodyLimitMb: 10,
  // What all compressed bodies being decoded at once may hold; never below the body limit.
  decodeBudgetMb: 64,
  clientRequestTimeoutMs: 300_000,
  clientBodyTimeoutMs: 30_000,
  clientHeaderTimeoutMs: 10_000,
  overloadLoopDelayMs: 100,
  streamKeepAliveMs: 15_000,
  // Each client connection may hold an upstream one too: keep it well under the process's file limit.
  maxConnections: 10_000,
  quotaPerUsd: 500_000,
  usageFlushMs: 200,
  // Under load a batch goes before its interval is up: see DEFAULT_FLUSH_ROWS for why.
  usageFlushRows: DEFAULT_FLUSH_ROWS,
  usagePendingRows: MAX_PENDING_ROWS,
  defaultMaxTokens: 4096,
  inFlightBudgetShare: 0.125,
  responsesRetentionDays: 30,
  /** Room for thousands of long agent turns a key; 1,000 turns of 1 kB take about 3 MB. */
  responsesStoreMaxBytesPerKey: 512 * 1024 * 1024,
  responsesStoreMaxTurnsPerKey: 50_000,
  // Long enough for a coding agent's stream to finish during a rollout.
  shutdownGraceS: 600,
  // Long enough for a load balancer to see the failing readiness and send new connections elsewhere.
  drainDelayS: 5,
  maxRetries: 5,
  modelsSource: 'both',
  // An MCP server's listing or tool call that takes longer fails; its tools are left out meanwhile.
  mcpTimeoutMs: 10_000,
  // A replica silent this long is taken for dead: its reservations and unwritten spend are reconciled.
  redisPeerTimeoutMs: 30_000,
  timeouts: { connectMs: 10_000, firstByteMs: 120_000, idleMs: 60_000, totalMs: 600_000 },
} as const;

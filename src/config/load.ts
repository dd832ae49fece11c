// Reads, substitutes and validates the YAML config; every error names the file, the key path and the problem.
import { readFileSync, existsSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import type {
  DeploymentConfig,
  GatewayConfig,
  McpServerConfig,
  ModelConfig,
  ProviderConfig,
  Timeouts,
} from '../core/config-types.ts';
import type { ModelMode } from '../core/dialect.ts';
import { BUILTIN_CONFIG_YAML } from './builtin.ts';
import { applyEnvOverrides } from './env-overrides.ts';
import { modelPrice } from '../pricing/model-price.ts';
import { releaseCatalogue } from '../pricing/catalogue.ts';
import { configSchema, DEFAULTS, type RawConfig } from './schema.ts';
import { PROVIDERS } from '../registry.ts';
import { identityOf } from './identity.ts';
import type { ProviderSpec } from '../spec/provider.ts';
import { STAGES } from '../stages/index.ts';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Which file to read: --config, then MODELGATE_CONFIG, then ./modelgate.yaml if present, else the built-in. */
export function resolveConfigPath(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string | null {
  if (flag) return flag;
  if (env.MODELGATE_CONFIG) return env.MODELGATE_CONFIG;
  return existsSync('modelgate.yaml') ? 'modelgate.yaml' : null;
}

export function loadConfig(path: string | null, env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const source = path ?? '(built-in)';
  let text: string;
  if (path === null) text = BUILTIN_CONFIG_YAML;
  else {
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      throw new ConfigError(`config error in ${source}: cannot read the file (${(err as Error).message})`);
    }
  }
  return parseConfigText(text, { source, env });
}

export function parseConfigText(text: string, opts: { source: string; env?: NodeJS.ProcessEnv }): GatewayConfig {
  return parseConfigDoc(parseConfigYaml(text, opts.source), opts);
}

/** The YAML document of a config file's text, before `${NAME}` substitution and validation. */
export function parseConfigYaml(text: string, source: string): unknown {
  try {
    return parseYaml(text);
  } catch (err) {
    throw new ConfigError(`config error in ${source}: invalid YAML: ${(err as Error).message}`);
  }
}

/**
 * A config document (a file's, or a file's with the database's providers and models added) substituted,
 * overridden from the environment and validated: the one path every configuration takes, so a change
 * through the admin API is held to the same schema and messages as the file.
 */
export function parseConfigDoc(doc: unknown, opts: { source: string; env?: NodeJS.ProcessEnv }): GatewayConfig {
  const { source } = opts;
  const env = opts.env ?? process.env;
  const overridden = applyEnvOverrides(substituteEnv(doc, env, source, ''), env);
  const parsed = configSchema.safeParse(overridden.doc);
  if (!parsed.success) throw new ConfigError(formatIssues(source, parsed.error.issues, overridden.from));
  return build(parsed.data, source, env);
}

// `${NAME}` and `${NAME:-default}` inside string values; a missing variable without default is an error,
// because an empty API key would only surface later as a confusing upstream 401.
function substituteEnv(value: unknown, env: NodeJS.ProcessEnv, source: string, path: string): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_m, name: string, fallback?: string) => {
      const v = env[name];
      if (v !== undefined && v !== '') return v;
      if (fallback !== undefined) return fallback;
      throw new ConfigError(
        `config error in ${source} at ${path || '(root)'}: environment variable ${name} is not set`,
      );
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => substituteEnv(v, env, source, `${path}[${i}]`));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = substituteEnv(v, env, source, path ? `${path}.${k}` : k);
    return out;
  }
  return value;
}

/** `from`: the environment variable behind an overridden setting, named so the operator looks there. */
function formatIssues(source: string, issues: z.core.$ZodIssue[], from: ReadonlyMap<string, string>): string {
  const lines = issues.slice(0, 10).map((i) => {
    const path = formatPath(i.path);
    const variable = from.get(path);
    return `  at ${path}${variable === undefined ? '' : ` (from ${variable})`}: ${i.message}`;
  });
  return `config error in ${source}:\n${lines.join('\n')}`;
}

function formatPath(path: PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return out || '(root)';
}

function build(raw: RawConfig, source: string, env: NodeJS.ProcessEnv): GatewayConfig {
  const fail = (path: string, msg: string): never => {
    throw new ConfigError(`config error in ${source}:\n  at ${path}: ${msg}`);
  };
  const modelsSource = raw.models_source ?? DEFAULTS.modelsSource;
  if (modelsSource !== 'database') {
    if (raw.providers === undefined) fail('providers', 'required (or set models_source: database)');
    if (raw.models === undefined) fail('models', 'required (or set models_source: database)');
  }
  const rawProviders = raw.providers ?? [];
  const rawModels = raw.models ?? [];
  const providers = new Map<string, ProviderConfig>();
  rawProviders.forEach((p, i) => {
    if (providers.has(p.name)) fail(`providers[${i}].name`, `duplicate provider name "${p.name}"`);
    const spec = providerSpecOf(p.kind);
    if (spec.requiresBaseUrl && !p.base_url) fail(`providers[${i}].base_url`, `required for kind ${p.kind}`);
    const options: unknown = spec.options(p as Record<string, unknown>, (key, message) =>
      fail(`providers[${i}].${key}`, message),
    );
    const apiKeys = [...(p.api_key ? [p.api_key] : []), ...(p.api_keys ?? [])];
    providers.set(p.name, {
      name: p.name,
      kind: p.kind,
      baseUrl: (p.base_url ?? spec.defaultBaseUrl?.(p as Record<string, unknown>) ?? 'http://mock.invalid').replace(
        /\/+$/,
        '',
      ),
      apiKeys,
      headers: p.headers ?? {},
      options,
      system: spec.system ?? p.kind,
      inProcess: spec.call !== undefined,
      http2: p.http2 ?? 'auto',
    });
  });
  const defaultTimeouts = timeouts(raw.timeouts, {
    connectMs: DEFAULTS.timeouts.connectMs,
    firstByteMs: DEFAULTS.timeouts.firstByteMs,
    idleMs: DEFAULTS.timeouts.idleMs,
    totalMs: DEFAULTS.timeouts.totalMs,
  });
  const names = new Set<string>(rawModels.map((m) => m.name));
  const seenNames = new Set<string>();
  const exactAliases = new Map<string, string>();
  const models: ModelConfig[] = rawModels.map((m, i) => {
    if (seenNames.has(m.name)) fail(`models[${i}].name`, `duplicate model name "${m.name}"`);
    seenNames.add(m.name);
    (m.aliases ?? []).forEach((a, j) => {
      if (a.includes('*')) return;
      if (names.has(a)) fail(`models[${i}].aliases[${j}]`, `"${a}" is already a model's name`);
      const owner = exactAliases.get(a);
      if (owner !== undefined) fail(`models[${i}].aliases[${j}]`, `"${a}" is already an alias of model "${owner}"`);
      exactAliases.set(a, m.name);
    });
    const model: ModelConfig = {
      name: m.name,
      aliases: m.aliases ?? [],
      family: m.family ?? (m.name.toLowerCase().startsWith('claude') ? 'anthropic' : 'openai'),
      mode: m.mode ?? inferredMode(m.deployments[0].model),
      deployments: m.deployments.map((d, j) => {
        const provider = providers.get(d.provider);
        if (!provider)
          fail(
            `models[${i}].deployments[${j}].provider`,
            `unknown provider "${d.provider}" (known: ${[...providers.keys()].join(', ')})`,
          );
        const deployment: DeploymentConfig = {
          id: `${m.name}#${j}`,
          provider: provider!,
          model: d.model,
          priority: d.priority ?? 0,
          weight: d.weight ?? 1,
        };
        if (d.max_tokens_field !== undefined) deployment.maxTokensField = d.max_tokens_field;
        if (d.structured_output !== undefined) deployment.structuredOutput = d.structured_output;
        if (d.refused_params !== undefined && d.refused_params.length > 0) deployment.refusedParams = d.refused_params;
        return deployment;
      }),
      timeouts: timeouts(m.timeouts, defaultTimeouts),
      maxRetries: m.max_retries ?? raw.max_retries ?? DEFAULTS.maxRetries,
      price: null,
      stages: stageBlocksOf(m),
    };
    // Looked up once here, never per request: the configured block, else the catalogue's.
    model.price = modelPrice(m.price, model.deployments);
    return model;
  });
  releaseCatalogue();
  return {
    source,
    listen: {
      host: raw.listen?.host ?? DEFAULTS.host,
      port: raw.listen?.port ?? DEFAULTS.port,
      ...(raw.listen?.tls === undefined
        ? {}
        : { tls: { certFile: raw.listen.tls.cert_file, keyFile: raw.listen.tls.key_file } }),
    },
    database: raw.database ?? DEFAULTS.database,
    bodyLimitBytes: Math.round((raw.body_limit_mb ?? DEFAULTS.bodyLimitMb) * 1024 * 1024),
    decodeBudgetBytes: Math.round(
      Math.max(raw.decode_budget_mb ?? DEFAULTS.decodeBudgetMb, raw.body_limit_mb ?? DEFAULTS.bodyLimitMb) *
        1024 *
        1024,
    ),
    clientRequestTimeoutMs: raw.client_request_timeout_ms ?? DEFAULTS.clientRequestTimeoutMs,
    clientBodyTimeoutMs: raw.client_body_timeout_ms ?? DEFAULTS.clientBodyTimeoutMs,
    clientHeaderTimeoutMs: raw.client_header_timeout_ms ?? DEFAULTS.clientHeaderTimeoutMs,
    maxConnections: raw.max_connections ?? DEFAULTS.maxConnections,
    maxConnectionsSet: raw.max_connections !== undefined,
    overloadLoopDelayMs: raw.overload_loop_delay_ms ?? DEFAULTS.overloadLoopDelayMs,
    maxConnectionsPerAddress: Math.min(
      raw.max_connections_per_address ?? defaultPerAddressShare(raw.max_connections ?? DEFAULTS.maxConnections),
      raw.max_connections ?? DEFAULTS.maxConnections,
    ),
    streamKeepAliveMs: raw.stream_keepalive_ms ?? DEFAULTS.streamKeepAliveMs,
    quotaPerUsd: raw.quota_per_usd ?? DEFAULTS.quotaPerUsd,
    usageFlushMs: raw.usage_flush_ms ?? DEFAULTS.usageFlushMs,
    usageFlushRows: raw.usage_flush_rows ?? DEFAULTS.usageFlushRows,
    usagePendingRows: raw.usage_pending_rows ?? DEFAULTS.usagePendingRows,
    usageSpillFile: raw.usage_spill_file ?? null,
    defaultMaxTokens: raw.default_max_tokens ?? DEFAULTS.defaultMaxTokens,
    inFlightBudgetShare: raw.in_flight_budget_share ?? DEFAULTS.inFlightBudgetShare,
    shutdownGraceMs: Math.round((raw.shutdown_grace_s ?? DEFAULTS.shutdownGraceS) * 1000),
    drainDelayMs: Math.round((raw.drain_delay_s ?? DEFAULTS.drainDelayS) * 1000),
    accessLog: raw.access_log ?? false,
    responsesRetentionMs: Math.round((raw.responses_retention_days ?? DEFAULTS.responsesRetentionDays) * 86_400_000),
    responsesStoreQuota: {
      maxBytes: raw.responses_store_max_bytes_per_key ?? DEFAULTS.responsesStoreMaxBytesPerKey,
      maxTurns: raw.responses_store_max_turns_per_key ?? DEFAULTS.responsesStoreMaxTurnsPerKey,
    },
    redisUrl: raw.redis ?? null,
    redisPrefix: raw.redis_prefix ?? null,
    instanceId: raw.instance_id ?? null,
    redisPeerTimeoutMs: raw.redis_peer_timeout_ms ?? DEFAULTS.redisPeerTimeoutMs,
    metricsToken: raw.metrics_token || null,
    corsOrigins: raw.cors_origins ?? [],
    messagesAnyModel: raw.messages_any_model ?? false,
    adminToken: adminToken(raw.admin_token, env),
    ...identityOf(raw),
    breaker: {
      failures: raw.circuit_breaker?.failures,
      minCalls: raw.circuit_breaker?.min_calls,
      cooldownMs: raw.circuit_breaker?.cooldown_ms,
      credentialsRetryMs: raw.circuit_breaker?.credentials_retry_ms,
      credentialsRetryMaxMs: raw.circuit_breaker?.credentials_retry_max_ms,
    },
    modelsSource,
    configWatch: raw.config_watch ?? true,
    providers: [...providers.values()],
    models,
    stages: stageBlocksOf(raw),
    mcpServers: mcpServersOf(raw.mcp_servers ?? []),
  };
}

/** The stage blocks (`redact:` …) a config object holds, by the stages' keys; undefined when it holds none. */
function stageBlocksOf(raw: object): Record<string, unknown> | undefined {
  let blocks: Record<string, unknown> | undefined;
  for (const { key } of STAGES) {
    const block = (raw as Record<string, unknown>)[key];
    if (block !== undefined) (blocks ??= {})[key] = block;
  }
  return blocks;
}

/** `admin_token:` first, else MODELGATE_ADMIN_TOKEN; a token must be long enough not to be guessed. */
function adminToken(fromFile: string | undefined, env: NodeJS.ProcessEnv): string | null {
  const token = fromFile || env.MODELGATE_ADMIN_TOKEN || '';
  if (token === '') return null;
  if (token.length < 16)
    throw new ConfigError('config error: admin_token (or MODELGATE_ADMIN_TOKEN) must be at least 16 characters');
  return token;
}

function timeouts(raw: RawConfig['timeouts'], base: Timeouts): Timeouts {
  return {
    connectMs: raw?.connect_ms ?? base.connectMs,
    firstByteMs: raw?.first_byte_ms ?? base.firstByteMs,
    idleMs: raw?.idle_ms ?? base.idleMs,
    totalMs: raw?.total_ms ?? base.totalMs,
  };
}

/** Upstream embedding models all say so in their names (text-embedding-3-small, gemini-embedding-001). */
function inferredMode(upstreamModel: string): ModelMode {
  return /embed/i.test(upstreamModel) ? 'embedding' : 'chat';
}

/** The share of max_connections one client address may hold when none is set: a tenth, at least 16, at most half. */
function defaultPerAddressShare(maxConnections: number): number {
  return Math.max(1, Math.min(Math.max(16, Math.floor(maxConnections / 10)), Math.floor(maxConnections / 2)));
}

/** The registry's spec of a kind the schema has accepted. */
function providerSpecOf(kind: string): ProviderSpec {
  const spec = PROVIDERS.find((s) => s.kind === kind);
  if (spec === undefined) throw new ConfigError(`config error: unknown provider kind ${kind}`);
  return spec;
}

/** The `mcp_servers:` block; a name given twice is an error (it would make two servers' tools one). */
function mcpServersOf(raw: NonNullable<RawConfig['mcp_servers']>): McpServerConfig[] {
  const seen = new Set<string>();
  return raw.map((s, i) => {
    if (seen.has(s.name)) throw new Error(`mcp_servers[${i}].name: "${s.name}" is configured twice`);
    seen.add(s.name);
    const timeoutMs = s.timeout_ms ?? DEFAULTS.mcpTimeoutMs;
    if (s.url !== undefined)
      return {
        name: s.name,
        timeoutMs,
        kind: 'remote',
        url: s.url,
        transport: s.transport ?? 'http',
        headers: s.headers ?? {},
        oauth:
          s.oauth === undefined
            ? null
            : {
                tokenUrl: s.oauth.token_url,
                clientId: s.oauth.client_id,
                clientSecret: s.oauth.client_secret,
                ...(s.oauth.scope === undefined ? {} : { scope: s.oauth.scope }),
              },
      };
    return { name: s.name, timeoutMs, kind: 'stdio', command: s.command ?? '', args: s.args ?? [], env: s.env ?? {} };
  });
}

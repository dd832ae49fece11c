// The validated, defaulted configuration the rest of the gateway reads (the YAML schema lives in config/).
import type { ModelMode, ProviderKind } from './dialect.ts';

/**
 * USD per million tokens of each token class. A part class (1 h cache writes, reasoning, audio, image)
 * without its own rate costs its parent's: cacheWrite, output, input, cacheRead.
 */
export interface Rates {
  input: number;
  output: number;
  cacheRead: number;
  /** 5-minute cache writes (and writes whose TTL the upstream does not say). */
  cacheWrite: number;
  cacheWrite1h?: number;
  reasoning?: number;
  inputAudio?: number;
  inputImage?: number;
  cacheReadAudio?: number;
  cacheReadImage?: number;
  outputAudio?: number;
  outputImage?: number;
  /** The base classes' USD per token as JSON number text, made on first use (pricing/breakdown.ts). */
  perTokenText?: { input: string; output: string; cacheRead: string; cacheWrite: string };
}

/** The rate fields of Rates (every numeric one). */
export type RateField = Exclude<keyof Rates, 'perTokenText'>;

/** A long-context tier: a request whose prompt has more than `above` tokens pays `rates` for every token. */
export interface PriceTier {
  above: number;
  rates: Rates;
}

/** What a model's requests are charged: its token rates, its tiers and its per-unit charges. */
export interface Price extends Rates {
  /** USD per unit by unit name (`web_search`: one server-side search call). */
  units?: Record<string, number>;
  /** Ascending by `above`; each tier's rates are complete. */
  tiers?: readonly PriceTier[];
  /**
   * The price of each service tier a request can be served at (`priority`, `flex`, `batch`), by the
   * name Usage.serviceTier carries; a tier without one is charged the standard rates.
   */
  serviceTiers?: Readonly<Record<string, Price>>;
  /** Where the numbers came from: the price catalogue (@pydantic/genai-prices) or the model's `price:`. */
  source?: 'catalogue' | 'config';
}

export interface ProviderConfig {
  name: string;
  kind: ProviderKind;
  /** The upstream's base URL without a trailing slash, as its kind reads it (src/providers/<kind>/); `http://mock.invalid` for a provider without one. */
  baseUrl: string;
  /** Credentials used in turn; empty for a keyless provider. */
  apiKeys: string[];
  /** Extra headers sent upstream on every call. */
  headers: Record<string, string>;
  /** The kind's own settings, as its provider spec read them from its config keys (ProviderSpec.options). */
  options: unknown;
  /** Its name in traces and metrics (`gen_ai.provider.name`: `openai`, `azure.ai.openai`, `modelgate.mock`). */
  system: string;
  /** Answered in-process (the mock): no server to name in traces, nothing to pay for. */
  inProcess: boolean;
  /**
   * HTTP/2 to the upstream: `auto` offers it by ALPN over TLS and speaks HTTP/1.1 over plain HTTP; `true`
   * offers it over TLS too and speaks it by prior knowledge (h2c) over plain HTTP; `false` never. Absent: `auto`.
   */
  http2?: 'auto' | boolean;
}

export interface Timeouts {
  connectMs: number;
  firstByteMs: number;
  idleMs: number;
  totalMs: number;
}

export interface DeploymentConfig {
  /** `<model>#<index>` — stable identifier used in usage rows, metrics and circuit state. */
  id: string;
  provider: ProviderConfig;
  /** The model name sent upstream. */
  model: string;
  priority: number;
  weight: number;
  /** Translated Anthropic requests to an OpenAI-style upstream: the field that carries max_tokens (o-series models want `max_completion_tokens`). Default `max_tokens`. */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /** Translated chat requests with response_format to an Anthropic-style upstream: forced tool (default) or native `output_config.format`. */
  structuredOutput?: 'tool' | 'native';
  /**
   * Top-level request parameters the deployment's model refuses, by the upstream's wire names (`temperature`,
   * `top_p`, …): left out of what is sent, on every route, and named in `x-modelgate-adjusted`.
   */
  refusedParams?: readonly string[];
  /** The catalogue's price for this deployment when the model has no `price:` block and the catalogue knows it. */
  price?: Price;
}

export interface ModelConfig {
  name: string;
  /** `anthropic` for Claude-family models (served by /v1/messages), else whatever the operator says. */
  family: string;
  /** Other names that reach this model: exact names, or patterns with `*` (resolved after exact names and aliases). */
  aliases?: readonly string[];
  /** `embedding` models answer `/v1/embeddings` only; `chat` models every generation endpoint. */
  mode: ModelMode;
  price: Price | null;
  deployments: DeploymentConfig[];
  timeouts: Timeouts;
  maxRetries: number;
  /** The model's stage blocks by config key (`redact`), as the config wrote them; absent = none. */
  stages?: Readonly<Record<string, unknown>>;
}

export interface GatewayConfig {
  /** The file it came from, or `(built-in)`. */
  source: string;
  listen: {
    host: string;
    port: number;
    /** PEM files for TLS on the port (HTTP/1.1 and HTTP/2 by ALPN); absent: plain HTTP. */
    tls?: { certFile: string; keyFile: string };
  };
  database: string;
  /** /v1/messages serves every chat model, not only the Claude family. */
  messagesAnyModel?: boolean;
  bodyLimitBytes: number;
  /** Decoded bytes all compressed request bodies being decoded at once may hold; past it, 503. */
  decodeBudgetBytes: number;
  /** Time a client has to send its whole request, headers and body; then 408 and the connection closes. */
  clientRequestTimeoutMs: number;
  /** A body still arriving must bring 1 KB (or its end) within this long, else 408 and the connection closes. */
  clientBodyTimeoutMs: number;
  /** SSE comments to a streaming client while the upstream is silent, this often; 0 = none. */
  streamKeepAliveMs: number;
  /** Time a client has to send its request line and headers; then 408 and the connection closes. */
  clientHeaderTimeoutMs: number;
  /** Open client connections past which a new one is closed at once. */
  maxConnections: number;
  /** The config set max_connections: a file limit too low for it stops the start instead of lowering it. */
  maxConnectionsSet?: boolean;
  /** Event-loop delay (ms) that, twice running, cuts the share of new requests admitted (load-shedding.ts); 0 = never shed. */
  overloadLoopDelayMs: number;
  /** Open connections one client address (an IPv6 /64) may hold; past it a new one is closed at once. */
  maxConnectionsPerAddress: number;
  /** Quota units per USD in /api/usage/token (new-api's 500,000 by default). */
  quotaPerUsd: number;
  /** How often queued usage rows are written; 0 = write-through. */
  usageFlushMs: number;
  /** Queued rows that start a write before usageFlushMs is up. */
  usageFlushRows: number;
  /** Usage rows held in memory while the database takes none; at the bound new billable requests get 503. */
  usagePendingRows: number;
  /** Where rows the database would not take at a stop are kept for the next start; null = beside an SQLite file. */
  usageSpillFile: string | null;
  /** max_tokens used for budget reservation and translation when a chat request names none. */
  defaultMaxTokens: number;
  /** The share of what is left of a budget that reservations in flight may hold at once. */
  inFlightBudgetShare: number;
  /** A stop's upper bound from the signal: requests still running then are cut (an error event, a row), ms. */
  shutdownGraceMs: number;
  /** After the signal, how long readiness fails while new connections are still served, ms. */
  drainDelayMs: number;
  /** One info log line per answered request. */
  accessLog: boolean;
  /** How long stored Responses API responses are kept, ms. */
  responsesRetentionMs: number;
  /** What one key may hold in stored responses (text bytes, turns); a turn past either is refused. */
  responsesStoreQuota: { maxBytes: number; maxTurns: number };
  redisUrl: string | null;
  /** Key prefix of the shared admission state in Redis (default `mg:`). */
  redisPrefix: string | null;
  /** Stable name of this replica (default host:port); lets a restarted replica free its own reservations. */
  instanceId: string | null;
  /** A replica without a heartbeat for this long is taken for dead by the others (Redis only). */
  redisPeerTimeoutMs: number;
  /** The token `GET /metrics` requires as `Authorization: Bearer …`; null = open to whoever reaches the port. */
  metricsToken: string | null;
  /** Browser origins allowed cross-origin calls (`cors_origins:`); empty = cross-origin calls are refused. */
  corsOrigins: string[];
  /** The token `/admin/` and `/ui/` require as `Authorization: Bearer …`; null = both are off (404). */
  adminToken: string | null;
  /** Further named admin tokens (`admin_tokens:`), each with its role; empty = only `adminToken`. */
  adminTokens: AdminTokenConfig[];
  /** Sign-in with an OpenID Connect provider (`oidc:`); null = off. */
  oidc: OidcConfig | null;
  /** Webhooks told of budget thresholds, opened circuits and expiring keys (`alerts:`); null = none. */
  alerts: AlertsConfig | null;
  /** Request and reply bodies kept for chosen keys and teams (`body_log:`); null = none. */
  bodyLog: BodyLogConfig | null;
  /** Circuit-breaker thresholds; unset fields take the breaker's defaults (src/routing/plan.ts). */
  breaker: {
    failures?: number;
    minCalls?: number;
    cooldownMs?: number;
    credentialsRetryMs?: number;
    credentialsRetryMaxMs?: number;
  };
  /** Where providers and models come from: the file, the database (admin API, CLI) or both. */
  modelsSource: 'file' | 'database' | 'both';
  /** The file is reloaded when it changes; false: only on SIGHUP. */
  configWatch: boolean;
  providers: ProviderConfig[];
  models: ModelConfig[];
  /** The top-level stage blocks by config key (`redact`), as the config wrote them; absent = none. */
  stages?: Readonly<Record<string, unknown>>;
  /** The MCP servers `/mcp` aggregates (`mcp_servers:`); empty = /mcp lists no tools. */
  mcpServers: McpServerConfig[];
}

/** OAuth 2.0 client credentials for a remote MCP server (`oauth:`). */
export interface McpOAuthConfig {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  scope?: string;
}

/** An upstream MCP server: remote over Streamable HTTP (or SSE), or a local process spoken to over stdio. */
export type McpServerConfig = {
  name: string;
  /** A listing or a call to this server that takes longer fails (its tools are left out of a listing). */
  timeoutMs: number;
} & (
  | {
      kind: 'remote';
      url: string;
      transport: 'http' | 'sse';
      headers: Record<string, string>;
      /** Client credentials the gateway trades for access tokens (kept and refreshed by it); null = none. */
      oauth: McpOAuthConfig | null;
    }
  | { kind: 'stdio'; command: string; args: string[]; env: Record<string, string> }
);

/** What a principal of the admin API may do: everything, its own team's keys and usage, or read only. */
export type AdminRole = 'admin' | 'team_admin' | 'viewer';

/** A named admin token: only the SHA-256 of the token is kept once the config is read. */
export interface AdminTokenConfig {
  name: string;
  /** hex SHA-256 of the token. */
  hash: string;
  role: AdminRole;
  /** The team a `team_admin` token manages. */
  team?: string;
}

export interface OidcConfig {
  issuer: string;
  clientId: string;
  /** Absent for a public client (PKCE alone). */
  clientSecret: string | null;
  /** The claim listing the user's groups (default `groups`). */
  groupsClaim: string;
  /** The claim naming the team of a team administrator (default `team`). */
  teamClaim: string;
  /** Groups granting each role; the highest role any group grants wins. */
  roles: Record<AdminRole, string[]>;
  /** Where the provider sends the browser back; null = this gateway's /auth/callback on the request's host. */
  redirectUri: string | null;
  scopes: string[];
  /** Signs session cookies; null = derived from the client secret (or random per process for a public client). */
  sessionSecret: string | null;
  sessionTtlMs: number;
}

export type AlertEvent = 'budget_threshold' | 'circuit_open' | 'key_expiring';

export interface AlertWebhook {
  url: string;
  events: AlertEvent[];
  /** `json`: modelgate's own body; `slack`: an incoming-webhook body (`text`, `blocks`). */
  format: 'json' | 'slack';
}

export interface AlertsConfig {
  webhooks: AlertWebhook[];
  /** Percentages of a budget that raise `budget_threshold` (default 50, 80, 100). */
  budgetThresholds: number[];
  /** A key expiring within this long raises `key_expiring` (default 7 days). */
  keyExpiringMs: number;
}

/** Body logging: whose requests keep their bodies (keys by id or name, teams by name), how long and how much. */
export interface BodyLogConfig {
  keys: string[];
  teams: string[];
  retentionMs: number;
  /** Bytes kept of each body (the rest is cut, marked so). */
  maxBytes: number;
}

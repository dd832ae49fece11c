// The provider contract: what one kind of upstream (one folder under src/providers/, one line in
// src/registry.ts) tells the engine. Its config keys, the dialect it is spoken to in, where a request goes
// and with which headers, an optional per-request signature, how its streams are framed and how its error
// bodies read. The engine looks a provider up by its `kind` and never names one.
//
// Contract: `target` and `headers` are pure functions of their arguments (no I/O, no clock): the engine
// calls each once per provider, deployment and query (headers: per provider and key) and reuses the
// answer for every request. What changes per request (a signature over the body and the date, a token
// that expires) belongs in `sign`, which runs on a copy of the headers just before the request is sent.
import type { z } from 'zod';
import type { DeploymentConfig, ProviderConfig } from '../core/config-types.ts';
import type { Dialect } from '../core/dialect.ts';
import type { UpstreamSide } from './codec.ts';
import type { UpstreamError } from './form.ts';
import type { FrameDecoder } from './framing.ts';
import type { UpstreamCall, UpstreamResponse } from './upstream.ts';

/** What a request asks of an upstream, whatever its wire calls it. */
export type Operation =
  | 'chat'
  | 'responses'
  /** Responses API compaction (`/responses/compact`). */
  | 'compact'
  | 'messages'
  | 'generate'
  | 'embeddings'
  | 'count-tokens';

/**
 * One kind of request to an upstream: the operation, the dialect its body is written in, whether the
 * answer streams, and the API version a caller's path named. Interned (`targetQuery`): one object per
 * combination, so its `id` indexes the engine's caches.
 */
export interface TargetQuery {
  readonly id: number;
  readonly operation: Operation;
  readonly dialect: Dialect;
  readonly stream: boolean;
  /** The API version the caller's path named, where its dialect has one there (Gemini's `v1beta`, `v1`). */
  readonly version: string | undefined;
}

const queries = new Map<string, TargetQuery>();

/** The one TargetQuery for these values. Not for the request path: callers keep the answer in constants. */
export function targetQuery(operation: Operation, dialect: Dialect, stream: boolean, version?: string): TargetQuery {
  const key = `${operation} ${dialect} ${stream} ${version ?? ''}`;
  let q = queries.get(key);
  if (q === undefined) {
    q = Object.freeze({ id: queries.size, operation, dialect, stream, version });
    queries.set(key, q);
  }
  return q;
}

/** Where a request goes. */
export interface Target {
  /** `https://host[:port]`: the connection pool's key. */
  readonly origin: string;
  /** The path and query after the origin. */
  readonly path: string;
}

export interface HeaderContext {
  /** The credential routing handed out for this attempt (KeyRotation); null for a keyless provider. */
  readonly apiKey: string | null;
  /**
   * The caller's headers that describe its body (anthropic-version, anthropic-beta) where the body passes
   * through as it came; empty otherwise. Only a spec with `headersReadForward` reads them.
   */
  readonly forward: Readonly<Record<string, string>>;
}

/** A request about to be sent, for `sign`: the headers are this request's own copy, to add to. */
export interface SignInput {
  readonly provider: ProviderConfig;
  readonly deployment: DeploymentConfig;
  readonly target: Target;
  readonly headers: Record<string, string>;
  readonly body: string | Buffer;
}

/** A request body on its way to `wireBody`. */
export interface WireBodyInput {
  readonly provider: ProviderConfig;
  readonly deployment: DeploymentConfig;
  readonly query: TargetQuery;
  readonly body: string | Buffer;
  /** The caller's forwarded headers (`anthropic-beta`, after the provider's `betas`), as `headers` sees them. */
  readonly forward: Readonly<Record<string, string>>;
}

/** Which `anthropic-beta` values an upstream takes (ProviderSpec.betas). */
export interface BetaRules {
  /** The values it takes as they are. */
  readonly accepted: ReadonlySet<string>;
  /** Values it takes under another name: caller's name → the upstream's. */
  readonly renamed?: Readonly<Record<string, string>>;
}

/** The config keys of one kind, as operators write them (snake_case), beside the common ones. */
export type ConfigKeys = Readonly<Record<string, z.ZodType>>;

export interface ProviderSpec<Options = unknown> {
  /** The `kind:` operators write; the registry's key. */
  readonly kind: string;
  /**
   * The kind's own config keys, each optional or defaulted. The common keys (`name`, `kind`, `base_url`,
   * `api_key`, `api_keys`, `headers`) are every kind's; a key neither lists is refused at load.
   */
  readonly configKeys: ConfigKeys;
  /** Whether `base_url` must be set (every network upstream; the in-process mock has none). */
  readonly requiresBaseUrl: boolean;
  /** The base URL of a provider whose config names none, from its keys (Vertex's host for its location). */
  defaultBaseUrl?(raw: Readonly<Record<string, unknown>>): string;
  /**
   * The kind's settings (ProviderConfig.options) from its validated keys. `fail(key, message)` reports a
   * check the schema cannot express, naming the key; it does not return.
   */
  options(raw: Readonly<Record<string, unknown>>, fail: (key: string, message: string) => never): Options;
  /**
   * The dialect requests of an endpoint's dialect are sent in (the same one: they pass through as bytes).
   * `deployment` is given where one is at hand: a cloud that hosts several publishers' models speaks each
   * one's own dialect (Vertex AI: Gemini's for Google's models, Anthropic's for Claude).
   */
  upstreamDialect(endpoint: Dialect, provider: ProviderConfig, deployment?: DeploymentConfig): Dialect;
  /**
   * The dialect whose embeddings API the upstream serves (`openai`: `/v1/embeddings` passes through;
   * `gemini`: batchEmbedContents), or null when it serves none.
   */
  embeddingsDialect(provider: ProviderConfig): Dialect | null;
  /** Why embeddings are not served, when the provider's settings say so (shown in the 400). */
  noEmbeddingsReason?(provider: ProviderConfig): string;
  /** Whether its Responses API keeps the conversations it answers (a `previous_response_id` chain continues there). */
  readonly keepsResponses: boolean;
  /** Whether the upstream counts tokens exactly for a body in `dialect` (`count-tokens` has a target then). */
  countsTokens(provider: ProviderConfig, dialect: Dialect): boolean;
  /** Where a request of this kind goes for a deployment (cached per provider, deployment and query). */
  target(provider: ProviderConfig, deployment: DeploymentConfig, query: TargetQuery): Target;
  /**
   * The headers of every request (content type, accept, identity encoding, the operator's `headers`, the
   * static credential). Cached per provider and key unless `headersReadForward`; never mutated by the engine.
   */
  headers(provider: ProviderConfig, ctx: HeaderContext): Record<string, string>;
  /** True when `headers` reads the caller's forwarded headers: then they are built per request. */
  readonly headersReadForward?: boolean;
  /**
   * Per-request signing (AWS SigV4 over body and date, a fresh Entra ID bearer token): adds to
   * `input.headers`. Returns a promise only when it must wait (a token being fetched).
   */
  sign?(input: SignInput): void | Promise<void>;
  /**
   * The body as its wire wants it, where that differs from the dialect's (Claude on a cloud: the model in
   * the path, not the body; the API version as a body field). Runs on every request before `sign`, so it
   * is absent for every kind that sends the dialect's body as it is.
   */
  wireBody?(input: WireBodyInput): string | Buffer;
  /**
   * The `anthropic-beta` values the upstream takes, and those it knows under another name; absent: every
   * value goes as it came. A value it refuses is left out and named in `x-modelgate-adjusted`.
   */
  betas?(provider: ProviderConfig, deployment: DeploymentConfig): BetaRules | null;
  /**
   * A wire of the provider's own that no caller dialect is (Bedrock's Converse), for a deployment; null or
   * absent: the `upstreamDialect`'s. Every request to such a deployment goes through the hub with this side
   * as its upstream half; `upstreamDialect` still names the dialect of the generation query (`target`,
   * `wireBody` and `sign` see it) and the one its error bodies fall back to.
   */
  upstreamSide?(provider: ProviderConfig, deployment: DeploymentConfig): UpstreamSide | null;
  /** The framing of a deployment's streamed replies, one decoder per stream; absent: Server-Sent Events. */
  frames?(provider: ProviderConfig, deployment: DeploymentConfig): FrameDecoder;
  /**
   * Where a deployment's upstream serves the Responses API over WebSocket, and whether that is known or
   * to be tried; null or absent: it does not, and `response.create` frames a caller sends over WebSocket
   * are bridged to HTTP streaming. The upgrade carries `headers`' credential (a kind that signs its
   * requests, `sign`, does not serve it here).
   */
  responsesSocket?(provider: ProviderConfig, deployment: DeploymentConfig): ResponsesSocketTarget | null;
  /** Its error bodies where they differ from its dialect's; null leaves the body to the dialect's reader. */
  readError?(status: number, text: string): UpstreamError | null;
  /** An in-process upstream (the mock) answers here instead of the network. */
  call?(call: UpstreamCall): Promise<UpstreamResponse>;
  /** Its name in traces (`gen_ai.provider.name`); absent: its kind. */
  readonly system?: string;
  /**
   * The price catalogue's provider for this kind when the base URL does not name one (a proxy, a test
   * server), and the provider whose usage exports cover it (`modelgate reconcile`); absent: none.
   */
  readonly priceCatalogue?: string;
  /** Whether it answers generation requests at all (an `openai` upstream listing only embeddings does not); absent: yes. */
  generates?(provider: ProviderConfig): boolean;
  /**
   * Mistakes a valid configuration of this kind can still hold (a base URL with or without the version
   * path the kind adds itself), for `modelgate config check` and the start's log; `key` is the setting's
   * key under the provider (`base_url`).
   */
  check?(provider: ProviderConfig): ProviderFinding[];
}

/** Where a Responses WebSocket goes (ProviderSpec.responsesSocket). */
export interface ResponsesSocketTarget {
  /** `wss://…/responses` (`ws://` for a base URL over plain HTTP). */
  readonly url: string;
  /**
   * `known`: the upstream serves it (a refused upgrade sends that turn over HTTP); `probe`: it may, and a
   * refusal is remembered for the provider, whose later turns go over HTTP without asking again.
   */
  readonly mode: 'known' | 'probe';
}

export interface ProviderFinding {
  level: 'error' | 'warning';
  key: string;
  message: string;
}

/** The path of a base URL without its trailing slashes ('' for an origin); null when it is not a URL. */
export function baseUrlPath(baseUrl: string): string | null {
  try {
    return new URL(baseUrl).pathname.replace(/\/+$/, '');
  } catch {
    return null;
  }
}

/** A base URL's path names an API version (`/v1`, `/v1beta`). */
export const VERSIONED_PATH = /\/v\d+[a-z0-9]*(\/|$)/i;

const GENERATION: Readonly<Record<Dialect, readonly [TargetQuery, TargetQuery]>> = {
  openai: [targetQuery('chat', 'openai', false), targetQuery('chat', 'openai', true)],
  anthropic: [targetQuery('messages', 'anthropic', false), targetQuery('messages', 'anthropic', true)],
  responses: [targetQuery('responses', 'responses', false), targetQuery('responses', 'responses', true)],
  gemini: [targetQuery('generate', 'gemini', false), targetQuery('generate', 'gemini', true)],
};

/** A generation request written in `dialect` (the Gemini API version: v1beta). Two reads, no allocation. */
export function generationQuery(dialect: Dialect, stream: boolean): TargetQuery {
  return GENERATION[dialect][stream ? 1 : 0];
}

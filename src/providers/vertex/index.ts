// kind vertex: Google Vertex AI. A deployment's `model` is the publisher's model id: Gemini models
// (`gemini-2.5-pro`) are Google's and speak Gemini's wire (generateContent, streamGenerateContent with
// `?alt=sse`); Claude models (any id starting `claude`, `claude-sonnet-4-6@20250929` as Vertex names them)
// are Anthropic's and speak Anthropic's Messages wire through rawPredict / streamRawPredict, the version in
// the body (`anthropic_version: "vertex-2023-10-16"`), the model in the path, `anthropic-beta` as a header.
// `project` and `location` name where the model runs (`global` → aiplatform.googleapis.com, else the
// regional host); `base_url` replaces the host (a private endpoint, a test double). Credentials are a
// Google access token for each request: from `credentials_file` (a service-account JSON, its `token_uri`
// honoured) or application default credentials; google-auth-library keeps the token and refreshes it
// before it expires. Tokens go only into the Authorization header.
import { z } from 'zod';
import type { DeploymentConfig, ProviderConfig } from '../../core/config-types.ts';
import { isObject } from '../../core/json.ts';
import { baseUrlPath, type ProviderSpec, VERSIONED_PATH, type WireBodyInput } from '../../spec/provider.ts';
import { jsonHeaders, noTarget, splitBaseUrl } from '../json-headers.ts';
import { VERTEX_CLAUDE_BETAS } from './betas.ts';
import { type TokenSource, vertexTokenSource } from './token.ts';
import { vertexOrigin, vertexPath, vertexPublisher } from './urls.ts';

export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

export interface VertexOptions {
  project: string;
  location: string;
  /** The origin requests go to, and the path prefix of a `base_url` that has one. */
  origin: string;
  prefix: string;
  /** The Authorization header's value: at once while the kept token is fresh, else the fetch to wait for. */
  token: () => string | Promise<string>;
}

const optionsOf = (p: ProviderConfig): VertexOptions => p.options as VertexOptions;

const isClaude = (d: DeploymentConfig | undefined): boolean =>
  d !== undefined && vertexPublisher(d.model) === 'anthropic';

/** A kept token is not sent in its last minutes: google-auth-library fetches the next one by then. */
const REFRESH_BEFORE_MS = 5 * 60_000;

/**
 * One token source per provider, made on the first request (reading the credentials file is I/O; a
 * failed start is tried again by the next request). The header is kept while its token has more than
 * five minutes left, so most requests do not wait on a promise; google-auth-library refreshes it then.
 */
function lazyToken(credentialsFile: string | undefined): () => string | Promise<string> {
  let source: Promise<TokenSource> | null = null;
  let header: string | null = null;
  let freshUntil = 0;
  const fetchHeader = async (): Promise<string> => {
    source ??= vertexTokenSource(credentialsFile).catch((err: unknown) => {
      source = null;
      throw err;
    });
    const s = await source;
    const value = `Bearer ${await s()}`;
    const expiresAt = s.expiresAt?.();
    header = expiresAt === undefined ? null : value;
    freshUntil = expiresAt === undefined ? 0 : expiresAt - REFRESH_BEFORE_MS;
    return value;
  };
  return () => (header !== null && Date.now() < freshUntil ? header : fetchHeader());
}

/**
 * Anthropic's body as rawPredict takes it: the version first, no `model` (the path names it) except for
 * count-tokens, whose path names none; `anthropic_beta` is not a body field here (the header carries it).
 */
function rawPredictBody(input: WireBodyInput): string | Buffer {
  if (input.query.dialect !== 'anthropic') return input.body;
  const parsed: unknown = JSON.parse(typeof input.body === 'string' ? input.body : input.body.toString('utf8'));
  if (!isObject(parsed)) return input.body;
  const out: Record<string, unknown> = { anthropic_version: VERTEX_ANTHROPIC_VERSION };
  const keepModel = input.query.operation === 'count-tokens';
  for (const key of Object.keys(parsed)) {
    if (key === 'anthropic_version' || key === 'anthropic_beta' || (key === 'model' && !keepModel)) continue;
    out[key] = parsed[key];
  }
  return JSON.stringify(out);
}

export const vertexProvider: ProviderSpec<VertexOptions> = {
  kind: 'vertex',
  priceCatalogue: 'google',
  system: 'gcp.vertex_ai',
  configKeys: {
    project: z.string().min(1),
    location: z.string().regex(/^[a-z0-9-]+$/, 'must be a Vertex AI location such as us-east5, europe-west4 or global'),
    credentials_file: z.string().min(1).optional(),
  },
  requiresBaseUrl: false,
  defaultBaseUrl: (raw) => vertexOrigin(raw.location as string),
  options(raw) {
    const location = raw.location as string;
    const base = vertexOrigin(location, raw.base_url as string | undefined);
    const { origin, prefix } = splitBaseUrl(base);
    return {
      project: raw.project as string,
      location,
      origin,
      prefix,
      token: lazyToken(raw.credentials_file as string | undefined),
    };
  },
  upstreamDialect: (_endpoint, _p, d) => (isClaude(d) ? 'anthropic' : 'gemini'),
  embeddingsDialect: () => null,
  noEmbeddingsReason: () => 'kind vertex serves generation only',
  keepsResponses: false,
  countsTokens: (_p, dialect) => dialect === 'anthropic',
  target(p, d, query) {
    const o = optionsOf(p);
    const claude = isClaude(d);
    const op =
      query.operation === 'count-tokens' && claude
        ? 'count-tokens'
        : (claude && query.operation === 'messages') || (!claude && query.operation === 'generate')
          ? 'generate'
          : noTarget('vertex', `${query.operation} (${query.dialect}) for ${d.model}`);
    return { origin: o.origin, path: o.prefix + vertexPath(o.project, o.location, d.model, query.stream, op) };
  },
  // The caller's anthropic-beta goes with a Claude request; the version travels in the body instead.
  headersReadForward: true,
  headers(p, ctx) {
    const headers = jsonHeaders(p);
    const beta = ctx.forward['anthropic-beta'];
    if (beta) headers['anthropic-beta'] = beta;
    return headers;
  },
  wireBody: rawPredictBody,
  betas: (_p, d) => (isClaude(d) ? VERTEX_CLAUDE_BETAS : null),
  sign(input) {
    const header = optionsOf(input.provider).token();
    if (typeof header === 'string') {
      input.headers.authorization = header;
      return;
    }
    return header.then((value) => {
      input.headers.authorization = value;
    });
  },
  check(p) {
    const path = baseUrlPath(p.baseUrl);
    if (path === null || !VERSIONED_PATH.test(path)) return [];
    return [
      {
        level: 'error',
        key: 'base_url',
        message: `${p.baseUrl} ends in a version path: kind vertex takes a host (https://us-east5-aiplatform.googleapis.com) and adds /v1/projects/… itself`,
      },
    ];
  },
};

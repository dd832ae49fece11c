// Gemini's native paths: `/v1beta/models/{model}:{method}`, `GET /v1beta/models[/{model}]`,
// and the same under `/v1/`, where the `:method` suffix tells a Gemini call from OpenAI's
// `GET /v1/models/{id}` (a model id may hold a colon itself, as `llama3:8b` does, so only Gemini's
// method names count).
import type { IncomingHttpHeaders } from 'node:http';

export type GeminiMethod = 'generateContent' | 'streamGenerateContent' | 'countTokens';

const METHODS: ReadonlySet<string> = new Set<GeminiMethod>(['generateContent', 'streamGenerateContent', 'countTokens']);
/** Methods Gemini has that the gateway does not serve: a Gemini-shaped 404 rather than a model lookup. */
const OTHER_METHODS: ReadonlySet<string> = new Set([
  'embedContent',
  'batchEmbedContents',
  'predict',
  'predictLongRunning',
  'generateAnswer',
  'asyncBatchEmbedContent',
  'batchGenerateContent',
]);

export interface GeminiCall {
  /** The API version of the path: `v1beta` or `v1`. */
  version: 'v1beta' | 'v1';
  /** The model as the caller named it (percent-decoded), or null for the listing. */
  model: string | null;
  /** The `:method` suffix; null for a GET of a model or the listing; '' for a method the gateway lacks. */
  method: GeminiMethod | '' | null;
}

/**
 * What a path means to the Gemini API, or null when it is not a Gemini path: `/v1beta/...` always is;
 * `/v1/models/{model}` only with a Gemini method suffix (`GET /v1/models` and `GET /v1/models/{id}`
 * are Gemini calls only for a caller that authenticates the Gemini way: server.ts decides that).
 */
export function geminiCallOf(path: string): GeminiCall | null {
  const version = path.startsWith('/v1beta/') ? 'v1beta' : path.startsWith('/v1/models/') ? 'v1' : null;
  if (version === null) return null;
  const prefix = `/${version}/models`;
  if (version === 'v1beta' && path === prefix) return { version, model: null, method: null };
  if (!path.startsWith(`${prefix}/`) || path.length === prefix.length + 1)
    return version === 'v1beta' ? { version, model: '', method: '' } : null;
  const rest = path.slice(prefix.length + 1);
  const colon = rest.lastIndexOf(':');
  const suffix = colon === -1 ? '' : rest.slice(colon + 1);
  if (METHODS.has(suffix)) return { version, model: decoded(rest.slice(0, colon)), method: suffix as GeminiMethod };
  if (OTHER_METHODS.has(suffix)) return { version, model: decoded(rest.slice(0, colon)), method: '' };
  return version === 'v1beta' ? { version, model: decoded(rest), method: null } : null;
}

/** The same call for `GET /v1/models` and `GET /v1/models/{id}` from a caller that authenticates the Gemini way. */
export function geminiListingOf(path: string): GeminiCall | null {
  if (path === '/v1/models') return { version: 'v1', model: null, method: null };
  if (path.startsWith('/v1/models/') && path.length > 11)
    return { version: 'v1', model: decoded(path.slice(11)), method: null };
  return null;
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * A caller authenticates the Gemini way when it sends no Authorization header but `x-goog-api-key` or a
 * `?key=` query parameter (Google's SDKs and Gemini CLI do).
 */
export function geminiAuthenticated(headers: IncomingHttpHeaders, url: string | undefined): boolean {
  if (headers.authorization !== undefined) return false;
  return headers['x-goog-api-key'] !== undefined || queryKey(url) !== null;
}

/** The `key` query parameter of a request target, or null. */
export function queryKey(url: string | undefined): string | null {
  if (url === undefined) return null;
  const q = url.indexOf('?');
  if (q === -1) return null;
  return new URLSearchParams(url.slice(q + 1)).get('key');
}

/** The `alt` query parameter (`alt=sse` asks streamGenerateContent for SSE; without it Gemini answers a JSON array). */
export function queryAlt(url: string | undefined): string | null {
  if (url === undefined) return null;
  const q = url.indexOf('?');
  return q === -1 ? null : new URLSearchParams(url.slice(q + 1)).get('alt');
}

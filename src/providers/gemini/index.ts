// kind gemini: Google's Gemini API (generativelanguage.googleapis.com). `base_url` is the API origin; the
// model and the method are named in the path, which follows the caller's API version where it passes through.
import type { ProviderSpec } from '../../spec/provider.ts';
import { jsonHeaders, noTarget, splitBaseUrl, originOnly } from '../json-headers.ts';

/** `/v1beta/models/{model}:generateContent` (or the stream with `?alt=sse`) for an upstream model. */
export function geminiUpstreamPath(version: string, model: string, method: string): string {
  // A model written `models/x` (as Google's own names are) is the same model.
  const name = model.startsWith('models/') ? model.slice(7) : model;
  return `/${version}/models/${encodeURIComponent(name)}:${method}${method === 'streamGenerateContent' ? '?alt=sse' : ''}`;
}

export const geminiProvider: ProviderSpec<null> = {
  kind: 'gemini',
  priceCatalogue: 'google',
  configKeys: {},
  requiresBaseUrl: true,
  options: () => null,
  upstreamDialect: () => 'gemini',
  embeddingsDialect: () => 'gemini',
  keepsResponses: false,
  countsTokens: (_p, dialect) => dialect === 'gemini',
  target(p, deployment, query) {
    const { origin, prefix } = splitBaseUrl(p.baseUrl);
    const version = query.version ?? 'v1beta';
    const method =
      query.operation === 'generate'
        ? query.stream
          ? 'streamGenerateContent'
          : 'generateContent'
        : query.operation === 'embeddings'
          ? 'batchEmbedContents'
          : query.operation === 'count-tokens'
            ? 'countTokens'
            : noTarget('gemini', query.operation);
    return { origin, path: prefix + geminiUpstreamPath(version, deployment.model, method) };
  },
  headers(p, ctx) {
    const headers = jsonHeaders(p);
    if (ctx.apiKey) headers['x-goog-api-key'] = ctx.apiKey;
    return headers;
  },
  check: (p) => originOnly(p, 'gemini', 'https://generativelanguage.googleapis.com', '/v1beta/models/…'),
};

// kind anthropic: Anthropic's Messages API (or a compatible server). `base_url` is the API origin without
// `/v1`; `anthropic_version` is the version translated requests carry (pass-through sends the caller's).
import { z } from 'zod';
import { ANTHROPIC_VERSIONS, DEFAULT_UPSTREAM_VERSION } from '../../dialects/anthropic-messages/version.ts';
import type { ProviderSpec } from '../../spec/provider.ts';
import { jsonHeaders, noTarget, splitBaseUrl, originOnly } from '../json-headers.ts';

export interface AnthropicOptions {
  /** The anthropic-version of translated requests; undefined: the gateway's default. */
  version: string | undefined;
}

export const anthropicProvider: ProviderSpec<AnthropicOptions> = {
  kind: 'anthropic',
  priceCatalogue: 'anthropic',
  configKeys: { anthropic_version: z.enum(ANTHROPIC_VERSIONS).optional() },
  requiresBaseUrl: true,
  options: (raw) => ({ version: raw.anthropic_version as string | undefined }),
  upstreamDialect: () => 'anthropic',
  embeddingsDialect: () => null,
  keepsResponses: false,
  countsTokens: (_p, dialect) => dialect === 'anthropic',
  target(p, _deployment, query) {
    const { origin, prefix } = splitBaseUrl(p.baseUrl);
    if (query.operation === 'messages') return { origin, path: `${prefix}/v1/messages` };
    if (query.operation === 'count-tokens' && query.dialect === 'anthropic')
      return { origin, path: `${prefix}/v1/messages/count_tokens` };
    return noTarget('anthropic', `${query.operation} (${query.dialect})`);
  },
  // Pass-through carries the caller's version and beta; a translated request the one the provider names.
  headersReadForward: true,
  headers(p, ctx) {
    const headers = jsonHeaders(p);
    headers['anthropic-version'] =
      ctx.forward['anthropic-version'] ?? (p.options as AnthropicOptions).version ?? DEFAULT_UPSTREAM_VERSION;
    const beta = ctx.forward['anthropic-beta'];
    if (beta) headers['anthropic-beta'] = beta;
    if (ctx.apiKey) headers['x-api-key'] = ctx.apiKey;
    return headers;
  },
  check: (p) => originOnly(p, 'anthropic', 'https://api.anthropic.com', '/v1/messages'),
};

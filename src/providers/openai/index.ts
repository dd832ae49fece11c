// kind openai: an OpenAI or OpenAI-compatible upstream. `base_url` ends in `/v1` (like the SDK's baseURL);
// `apis` lists the OpenAI endpoints it serves natively (chat and embeddings unless it says otherwise), and
// requests for the others are translated to one it has.
import { z } from 'zod';
import type { ProviderConfig } from '../../core/config-types.ts';
import type { Dialect } from '../../core/dialect.ts';
import { baseUrlPath, type ProviderSpec, type Target, type TargetQuery, VERSIONED_PATH } from '../../spec/provider.ts';
import { jsonHeaders, noTarget, splitBaseUrl } from '../json-headers.ts';
import {
  responsesSocketFindings,
  responsesSocketKey,
  responsesSocketMode,
  responsesSocketTarget,
  type ResponsesSocketMode,
} from './responses-socket.ts';

export type OpenAIApi = 'chat' | 'responses' | 'embeddings';

export interface OpenAIOptions {
  /** The OpenAI endpoints the upstream serves natively (`responses` makes /v1/responses pass through). */
  apis: readonly OpenAIApi[];
  /** Responses over WebSocket to the upstream (`responses_websocket`; default `auto` on api.openai.com, else off). */
  responsesWebSocket: ResponsesSocketMode;
}

export const DEFAULT_APIS: readonly OpenAIApi[] = Object.freeze(['chat', 'embeddings'] as const);

/** The `apis` key, for every kind that speaks OpenAI's wire. */
export const apisKey = z
  .array(z.enum(['chat', 'responses', 'embeddings']))
  .min(1)
  .optional();

/**
 * The dialect an OpenAI-wire upstream is spoken to in: Responses requests pass through where it lists
 * `responses`; everything else goes to chat completions, or to Responses for an upstream with only that.
 */
export function openaiWireDialect(endpoint: Dialect, apis: readonly OpenAIApi[]): Dialect {
  if (endpoint === 'responses' && apis.includes('responses')) return 'responses';
  return apis.includes('chat') || !apis.includes('responses') ? 'openai' : 'responses';
}

/** The path after the API root (`…/v1`) of each OpenAI operation. */
export function openaiOperationPath(kind: string, query: TargetQuery): string {
  switch (query.operation) {
    case 'chat':
      return '/chat/completions';
    case 'responses':
      return '/responses';
    case 'compact':
      return '/responses/compact';
    case 'embeddings':
      return '/embeddings';
    case 'count-tokens':
      if (query.dialect === 'responses') return '/responses/input_tokens';
  }
  return noTarget(kind, `${query.operation} (${query.dialect})`);
}

const apisOf = (p: ProviderConfig): readonly OpenAIApi[] => (p.options as OpenAIOptions).apis;
const socketOf = (p: ProviderConfig) => ({
  mode: (p.options as OpenAIOptions).responsesWebSocket,
  servesResponses: apisOf(p).includes('responses'),
});

export const openaiProvider: ProviderSpec<OpenAIOptions> = {
  kind: 'openai',
  priceCatalogue: 'openai',
  configKeys: { apis: apisKey, responses_websocket: responsesSocketKey },
  requiresBaseUrl: true,
  options: (raw) => ({
    apis: (raw.apis as OpenAIApi[] | undefined) ?? DEFAULT_APIS,
    responsesWebSocket: responsesSocketMode(raw),
  }),
  upstreamDialect: (endpoint, p) => openaiWireDialect(endpoint, apisOf(p)),
  embeddingsDialect: (p) => (apisOf(p).includes('embeddings') ? 'openai' : null),
  noEmbeddingsReason: () => "its `apis` leaves out 'embeddings'",
  keepsResponses: true,
  countsTokens: (p, dialect) => dialect === 'responses' && apisOf(p).includes('responses'),
  target(p, _deployment, query): Target {
    const { origin, prefix } = splitBaseUrl(p.baseUrl);
    return { origin, path: prefix + openaiOperationPath('openai', query) };
  },
  headers(p, ctx) {
    const headers = jsonHeaders(p);
    if (ctx.apiKey) headers.authorization = `Bearer ${ctx.apiKey}`;
    return headers;
  },
  responsesSocket: (p) => responsesSocketTarget(p, socketOf(p)),
  generates: (p) => apisOf(p).includes('chat') || apisOf(p).includes('responses'),
  check(p) {
    const socket = responsesSocketFindings(socketOf(p));
    const path = baseUrlPath(p.baseUrl);
    if (path === null || VERSIONED_PATH.test(path)) return socket;
    return [
      ...socket,
      {
        level: 'warning',
        key: 'base_url',
        message: `${p.baseUrl} has no /v1: OpenAI-style URLs include it, as the SDKs' baseURL does (https://api.openai.com/v1); without it most upstreams answer 404 to every request`,
      },
    ];
  },
};

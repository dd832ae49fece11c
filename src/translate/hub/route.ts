// The one explicit switch on (endpoint dialect, provider kind): same dialect passes through as bytes,
// every other pair goes through the hub with the endpoint's client side and the provider's upstream
// side. A pair with no side is a clear error, never a silent fallback.
import type { Dialect, ProviderKind } from '../../core/dialect.ts';
import type { ProviderApi } from '../../core/config-types.ts';
import { GatewayError } from '../../core/errors.ts';
import { chatClient, chatUpstream } from '../../dialects/openai-chat/index.ts';
import { messagesClient, messagesUpstream } from '../../dialects/anthropic-messages/index.ts';
import { responsesClient, responsesUpstream } from '../../dialects/openai-responses/index.ts';
import type { ClientSide, UpstreamSide } from './codec.ts';

export type Route = { kind: 'passthrough'; upstream: Dialect } | { kind: 'hub'; upstream: Dialect; client: ClientSide; side: UpstreamSide };

const CLIENT_SIDES: Readonly<Record<Dialect, ClientSide>> = { openai: chatClient, anthropic: messagesClient, responses: responsesClient };
const UPSTREAM_SIDES: Readonly<Record<Dialect, UpstreamSide>> = { openai: chatUpstream, anthropic: messagesUpstream, responses: responsesUpstream };
const DEFAULT_APIS: readonly ProviderApi[] = ['chat', 'embeddings'];

/**
 * The dialect an upstream is spoken to in. The mock speaks every dialect, so it is always same-dialect;
 * a `kind: openai` upstream serves the OpenAI endpoints its provider lists in `apis` (Responses
 * requests pass through where `responses` is listed; an upstream with Responses only gets the others
 * translated to it).
 */
export function upstreamDialectFor(endpoint: Dialect, provider: ProviderKind, apis: readonly ProviderApi[] = DEFAULT_APIS): Dialect {
  if (provider === 'mock') return endpoint;
  if (provider === 'anthropic') return 'anthropic';
  if (endpoint === 'responses' && apis.includes('responses')) return 'responses';
  return apis.includes('chat') || !apis.includes('responses') ? 'openai' : 'responses';
}

export function routeFor(endpoint: Dialect, provider: ProviderKind, apis?: readonly ProviderApi[]): Route {
  const upstream = upstreamDialectFor(endpoint, provider, apis);
  if (upstream === endpoint) return { kind: 'passthrough', upstream };
  const client = CLIENT_SIDES[endpoint];
  const side = UPSTREAM_SIDES[upstream];
  if (client === undefined || side === undefined) throw new GatewayError('internal_error', { message: `No translation from ${endpoint} to ${upstream}.` });
  return { kind: 'hub', upstream, client, side };
}

// The one explicit switch on (endpoint dialect, provider kind): same dialect passes through as bytes,
// every other pair goes through the hub with the endpoint's client side and the provider's upstream
// side. A pair with no side is a clear error, never a silent fallback.
import type { Dialect, ProviderKind } from '../../core/dialect.ts';
import { GatewayError } from '../../core/errors.ts';
import { chatClient, chatUpstream } from '../../dialects/openai-chat/index.ts';
import { messagesClient, messagesUpstream } from '../../dialects/anthropic-messages/index.ts';
import { geminiClient, geminiUpstream } from '../../dialects/gemini/index.ts';
import type { ClientSide, UpstreamSide } from './codec.ts';

export type Route = { kind: 'passthrough'; upstream: Dialect } | { kind: 'hub'; upstream: Dialect; client: ClientSide; side: UpstreamSide };

const CLIENT_SIDES: Readonly<Record<Dialect, ClientSide>> = { openai: chatClient, anthropic: messagesClient, gemini: geminiClient };
const UPSTREAM_SIDES: Readonly<Record<Dialect, UpstreamSide>> = { openai: chatUpstream, anthropic: messagesUpstream, gemini: geminiUpstream };

export function routeFor(endpoint: Dialect, provider: ProviderKind): Route {
  // The mock speaks every dialect, so it is always same-dialect.
  const upstream: Dialect = provider === 'mock' ? endpoint : provider;
  if (upstream === endpoint) return { kind: 'passthrough', upstream };
  const client = CLIENT_SIDES[endpoint];
  const side = UPSTREAM_SIDES[upstream];
  if (client === undefined || side === undefined) throw new GatewayError('internal_error', { message: `No translation from ${endpoint} to ${upstream}.` });
  return { kind: 'hub', upstream, client, side };
}

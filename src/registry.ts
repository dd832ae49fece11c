// The one registry: every dialect's two faces to the hub, and every provider kind, keyed by the names
// operators and endpoints use (Dialect, `kind:`). The engine looks both up here and names neither; a new
// provider is a folder under src/providers/ and one line in PROVIDERS.
import type { DeploymentConfig, ProviderConfig } from './core/config-types.ts';
import type { Dialect } from './core/dialect.ts';
import { messagesClient, messagesUpstream } from './dialects/anthropic-messages/index.ts';
import { converseClient } from './dialects/bedrock-converse/index.ts';
import { geminiClient, geminiUpstream } from './dialects/gemini/index.ts';
import { chatClient, chatUpstream } from './dialects/openai-chat/index.ts';
import { responsesClient, responsesUpstream } from './dialects/openai-responses/index.ts';
import { anthropicProvider } from './providers/anthropic/index.ts';
import { anthropicAwsProvider } from './providers/anthropic-aws/index.ts';
import { azureProvider } from './providers/azure/index.ts';
import { bedrockProvider } from './providers/bedrock/index.ts';
import { geminiProvider } from './providers/gemini/index.ts';
import { mockProvider } from './providers/mock/index.ts';
import { openaiProvider } from './providers/openai/index.ts';
import { vertexProvider } from './providers/vertex/index.ts';
import type { ClientSide, UpstreamSide } from './spec/codec.ts';
import type { ProviderSpec } from './spec/provider.ts';

// biome-ignore lint/suspicious/noExplicitAny: each spec reads its own options type
export const PROVIDERS: readonly ProviderSpec<any>[] = [
  openaiProvider,
  anthropicProvider,
  geminiProvider,
  mockProvider,
  azureProvider,
  vertexProvider,
  bedrockProvider,
  anthropicAwsProvider,
];

export const CLIENT_SIDES: Readonly<Record<Dialect, ClientSide>> = {
  openai: chatClient,
  anthropic: messagesClient,
  responses: responsesClient,
  gemini: geminiClient,
};

export const UPSTREAM_SIDES: Readonly<Record<Dialect, UpstreamSide>> = {
  openai: chatUpstream,
  anthropic: messagesUpstream,
  responses: responsesUpstream,
  gemini: geminiUpstream,
};

/**
 * Client faces of routes that are /v1/messages underneath (translate/client-over-messages.ts), by the
 * route family's name: no provider speaks them as a caller does, so they have no upstream side here.
 */
export const MESSAGES_INGRESS_SIDES = {
  converse: converseClient,
} as const satisfies Readonly<Record<string, ClientSide>>;

const BY_KIND: Readonly<Record<string, ProviderSpec>> = Object.freeze(
  Object.fromEntries(PROVIDERS.map((spec) => [spec.kind, spec])),
);

/** The spec of a kind, or undefined for a kind the registry does not hold. */
export function specOfKind(kind: string): ProviderSpec | undefined {
  return BY_KIND[kind];
}

/** The spec of a provider's kind (config load has checked the kind). */
export function providerSpec(p: ProviderConfig): ProviderSpec {
  const spec = BY_KIND[p.kind];
  if (spec === undefined) throw new Error(`no provider kind ${p.kind} in the registry`);
  return spec;
}

/** The dialect requests of an endpoint's dialect are sent to the provider in. */
export function upstreamDialectFor(endpoint: Dialect, p: ProviderConfig): Dialect {
  return providerSpec(p).upstreamDialect(endpoint, p);
}

/** Whether the deployment's upstream serves /v1/responses itself and keeps its conversations. */
export function servesResponsesNatively(d: DeploymentConfig): boolean {
  const spec = providerSpec(d.provider);
  return spec.keepsResponses && spec.upstreamDialect('responses', d.provider, d) === 'responses';
}

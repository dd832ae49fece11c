// The one explicit switch on (endpoint, provider kind): how one request meets its deployment's upstream.
// Same dialect passes through as bytes; every other pair goes through the hub with the endpoint's client
// side and the provider's upstream side; embeddings and Gemini's native API have arms of their own. A
// pair with no side is a clear error, never a silent fallback.
import type { Dialect, ProviderKind } from '../core/dialect.ts';
import type { DeploymentConfig, ProviderApi } from '../core/config-types.ts';
import { GatewayError } from '../core/errors.ts';
import type { RequestFacts } from '../dialects/request-facts.ts';
import type { TextMasker } from '../dialects/passthrough-tap.ts';
import { chatClient, chatUpstream } from '../dialects/openai-chat/index.ts';
import { messagesClient, messagesUpstream } from '../dialects/anthropic-messages/index.ts';
import { geminiClient, geminiUpstream } from '../dialects/gemini/index.ts';
import { responsesClient, responsesUpstream } from '../dialects/openai-responses/index.ts';
import { EmbeddingsToGeminiExchange } from '../dialects/embeddings/gemini-exchange.ts';
import { GeminiPassthroughExchange } from '../dialects/gemini/passthrough-exchange.ts';
import type { ClientSide, UpstreamSide } from './hub/codec.ts';
import { TranslatedExchange } from './hub/translated-exchange.ts';
import type { Exchange } from './exchange.ts';
import { PassthroughExchange } from './passthrough-exchange.ts';

export interface ExchangeInput {
  dialect: Dialect;
  /** The client's body as received, and decoded. */
  raw: Buffer;
  text: string;
  parsed: Record<string, unknown>;
  facts: RequestFacts;
  /** Prompt tokens estimated before the call (memoised; the tokenizer runs on first use). */
  promptEstimate: () => number;
  defaultMaxTokens: number;
  /** Admission reserved this many output tokens for a request that names no limit: send it (admission/admission.ts). */
  outputCap: number | null;
  /** Masks provider credentials in text an upstream sends back (its own stream error events). */
  masker?: TextMasker;
  /** POST /v1/embeddings (dialect openai). */
  embedding?: boolean;
  /** The API version of a Gemini path (`v1beta` or `v1`). */
  geminiVersion?: 'v1beta' | 'v1';
  /** A pass-through to another path than the dialect's own (`/responses/compact`). */
  upstreamPath?: string;
  /** Translated requests to OpenAI-style upstreams: the caller's prompt_cache_key, else its session id. */
  promptCacheKey?: string;
}

const NO_REFUSED: readonly string[] = [];

/** The client's bytes to an upstream of its own dialect, `model` patched; `more` is what the route adds. */
function passthrough(
  input: ExchangeInput,
  deployment: DeploymentConfig,
  more: Pick<
    ConstructorParameters<typeof PassthroughExchange>[0],
    'outputCap' | 'maxTokensField' | 'masker' | 'refusedParams' | 'upstreamPath'
  >,
): Exchange {
  const { dialect, raw, text, parsed, facts, promptEstimate } = input;
  return new PassthroughExchange({
    dialect,
    raw,
    text,
    parsed,
    facts,
    upstreamModel: deployment.model,
    promptEstimate,
    ...more,
  });
}

export function exchangeFor(input: ExchangeInput, deployment: DeploymentConfig): Exchange {
  if (input.embedding === true) return embeddingsExchangeFor(input, deployment);
  // Gemini names its model in the path: its pass-through is its own.
  const gemini = geminiPassthroughFor(input, deployment);
  if (gemini !== null) return gemini;
  const route = routeFor(input.dialect, deployment.provider.kind, deployment.provider.apis);
  if (route.kind === 'passthrough') {
    return passthrough(input, deployment, {
      outputCap: input.outputCap,
      maxTokensField: deployment.maxTokensField,
      masker: input.masker,
      refusedParams: deployment.refusedParams,
      upstreamPath: input.upstreamPath,
    });
  }
  return new TranslatedExchange({
    client: route.client,
    upstream: route.side,
    clientDialect: input.dialect,
    upstreamDialect: route.upstream,
    parsed: input.parsed,
    model: input.facts.model,
    stream: input.facts.stream,
    outputCap: input.outputCap,
    promptEstimate: input.promptEstimate,
    upstreamOptions: {
      upstreamModel: deployment.model,
      defaultMaxTokens: input.defaultMaxTokens,
      refusedParams: deployment.refusedParams ?? NO_REFUSED,
      maxTokensField: deployment.maxTokensField,
      structuredOutput: deployment.structuredOutput,
      promptCacheKey: input.promptCacheKey,
    },
    masker: input.masker,
  });
}

export type Route =
  | { kind: 'passthrough'; upstream: Dialect }
  | { kind: 'hub'; upstream: Dialect; client: ClientSide; side: UpstreamSide };

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
const DEFAULT_APIS: readonly ProviderApi[] = ['chat', 'embeddings'];

/**
 * The dialect an upstream is spoken to in. The mock speaks every dialect, so it is always same-dialect;
 * a `kind: openai` upstream serves the OpenAI endpoints its provider lists in `apis` (Responses
 * requests pass through where `responses` is listed; an upstream with Responses only gets the others
 * translated to it).
 */
export function upstreamDialectFor(
  endpoint: Dialect,
  provider: ProviderKind,
  apis: readonly ProviderApi[] = DEFAULT_APIS,
): Dialect {
  if (provider === 'mock') return endpoint;
  if (provider === 'anthropic') return 'anthropic';
  if (provider === 'gemini') return 'gemini';
  if (endpoint === 'responses' && apis.includes('responses')) return 'responses';
  return apis.includes('chat') || !apis.includes('responses') ? 'openai' : 'responses';
}

export function routeFor(endpoint: Dialect, provider: ProviderKind, apis?: readonly ProviderApi[]): Route {
  const upstream = upstreamDialectFor(endpoint, provider, apis);
  if (upstream === endpoint) return { kind: 'passthrough', upstream };
  const client = CLIENT_SIDES[endpoint];
  const side = UPSTREAM_SIDES[upstream];
  if (client === undefined || side === undefined)
    throw new GatewayError('internal_error', { message: `No translation from ${endpoint} to ${upstream}.` });
  return { kind: 'hub', upstream, client, side };
}

/** POST /v1/embeddings: pass-through where the upstream serves it, Gemini's batchEmbedContents on a Gemini upstream. */
function embeddingsExchangeFor(input: ExchangeInput, deployment: DeploymentConfig): Exchange {
  const p = deployment.provider;
  if (p.kind === 'gemini') {
    return new EmbeddingsToGeminiExchange({
      parsed: input.parsed,
      clientModel: input.facts.model,
      upstreamModel: deployment.model,
      promptEstimate: input.promptEstimate,
    });
  }
  if (p.kind === 'mock' || (p.kind === 'openai' && (p.apis ?? DEFAULT_APIS).includes('embeddings'))) {
    return passthrough(input, deployment, { upstreamPath: '/embeddings' });
  }
  // The operator's configuration, not the caller's request: said plainly, not retried elsewhere.
  throw new GatewayError('invalid_request', {
    status: 400,
    message: `The model \`${input.facts.model}\` is routed to provider '${p.name}' (kind ${p.kind}), which does not serve embeddings${p.kind === 'openai' ? " (its `apis` leaves out 'embeddings')" : ''}.`,
    param: 'model',
  });
}

/** Gemini requests to a Gemini upstream (or the mock, which speaks every dialect) pass through. */
function geminiPassthroughFor(input: ExchangeInput, deployment: DeploymentConfig): Exchange | null {
  const kind = deployment.provider.kind;
  if (input.dialect !== 'gemini' || (kind !== 'gemini' && kind !== 'mock')) return null;
  return new GeminiPassthroughExchange({
    raw: input.raw,
    parsed: input.parsed,
    version: input.geminiVersion ?? 'v1beta',
    upstreamModel: deployment.model,
    stream: input.facts.stream,
    promptEstimate: input.promptEstimate,
    outputCap: input.outputCap,
  });
}

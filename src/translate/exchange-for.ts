// How one request meets its deployment's upstream: same dialect passes through as bytes; every other pair
// goes through the hub with the endpoint's client side and the upstream dialect's side; embeddings and
// Gemini's native API have arms of their own. Which dialect an upstream speaks is its provider spec's
// answer (src/registry.ts); this file names no provider. A pair with no side is a clear error, never a
// silent fallback.
import type { Dialect } from '../core/dialect.ts';
import type { DeploymentConfig } from '../core/config-types.ts';
import { GatewayError } from '../core/errors.ts';
import type { RequestFacts } from '../dialects/request-facts.ts';
import type { TextMasker } from '../dialects/passthrough-tap.ts';
import { EmbeddingsToGeminiExchange } from './embeddings-gemini-exchange.ts';
import { GeminiPassthroughExchange } from './gemini-passthrough-exchange.ts';
import { CLIENT_SIDES, providerSpec, UPSTREAM_SIDES } from '../registry.ts';
import type { ClientSide, UpstreamSide } from '../spec/codec.ts';
import type { Exchange } from '../spec/exchange.ts';
import type { CallSignatureBook } from '../spec/call-signatures.ts';
import type { FrameDecoder } from '../spec/framing.ts';
import { SseDecoder } from '../core/sse.ts';
import { targetQuery, type TargetQuery } from '../spec/provider.ts';
import type { ProviderSpec } from '../spec/provider.ts';
import { TranslatedExchange } from './hub/translated-exchange.ts';
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
  /** A pass-through to another operation than the dialect's generation (Responses compaction). */
  upstreamQuery?: TargetQuery;
  /** Translated requests to OpenAI-style upstreams: the caller's prompt_cache_key, else its session id. */
  promptCacheKey?: string;
  /** The caller's key id: what the hub keeps for the caller between requests is kept per key. */
  owner?: string;
  /** Where an upstream's tool-call signatures are kept for callers that cannot carry them (translated routes only). */
  signatures?: CallSignatureBook;
}

const NO_REFUSED: readonly string[] = [];

/** The client's bytes to an upstream of its own dialect, `model` patched; `more` is what the route adds. */
function passthrough(
  input: ExchangeInput,
  deployment: DeploymentConfig,
  more: Pick<
    ConstructorParameters<typeof PassthroughExchange>[0],
    'outputCap' | 'maxTokensField' | 'masker' | 'refusedParams' | 'upstreamQuery' | 'dropCarried'
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
  const spec = providerSpec(deployment.provider);
  if (input.embedding === true) return embeddingsExchangeFor(input, deployment, spec);
  // A stream framed otherwise than as SSE cannot be relayed as bytes: the hub reads it even where the
  // dialects match.
  const ownSide = spec.upstreamSide?.(deployment.provider, deployment) ?? null;
  const upstreamDialect = spec.upstreamDialect(input.dialect, deployment.provider, deployment);
  const route =
    ownSide === null
      ? routeFor(input.dialect, upstreamDialect, spec.frames !== undefined && input.facts.stream)
      : ownRoute(input.dialect, upstreamDialect, ownSide);
  // Gemini names its model in the path: its pass-through is its own.
  if (route.kind === 'passthrough' && input.dialect === 'gemini') return geminiPassthrough(input, deployment);
  if (route.kind === 'passthrough') {
    return passthrough(input, deployment, {
      outputCap: input.outputCap,
      maxTokensField: deployment.maxTokensField,
      masker: input.masker,
      refusedParams: deployment.refusedParams,
      upstreamQuery: input.upstreamQuery,
      dropCarried: CLIENT_SIDES[input.dialect].dropCarriedReasoning,
    });
  }
  return new TranslatedExchange({
    client: route.client,
    upstream: route.side,
    frames: spec.frames === undefined ? sseFrames : () => spec.frames!(deployment.provider, deployment),
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
      owner: input.owner,
    },
    masker: input.masker,
    signatures: input.signatures,
  });
}

export type Route =
  | { kind: 'passthrough'; upstream: Dialect }
  | { kind: 'hub'; upstream: Dialect; client: ClientSide; side: UpstreamSide };

/**
 * Pass-through where the upstream speaks the endpoint's dialect (unless `viaHub`: its framing must be
 * read), else the hub's pair of sides.
 */
export function routeFor(endpoint: Dialect, upstream: Dialect, viaHub = false): Route {
  if (upstream === endpoint && !viaHub) return { kind: 'passthrough', upstream };
  const client = CLIENT_SIDES[endpoint];
  const side = UPSTREAM_SIDES[upstream];
  if (client === undefined || side === undefined)
    throw new GatewayError('internal_error', { message: `No translation from ${endpoint} to ${upstream}.` });
  return { kind: 'hub', upstream, client, side };
}

/** Through the hub to a provider's own wire (ProviderSpec.upstreamSide), whatever the caller's dialect. */
function ownRoute(endpoint: Dialect, upstream: Dialect, side: UpstreamSide): Route {
  const client = CLIENT_SIDES[endpoint];
  if (client === undefined)
    throw new GatewayError('internal_error', { message: `No translation from ${endpoint} to ${upstream}.` });
  return { kind: 'hub', upstream, client, side };
}

/** The framing of a provider that gives none of its own: Server-Sent Events. */
const sseFrames = (): FrameDecoder => new SseDecoder();

const OPENAI_EMBEDDINGS = targetQuery('embeddings', 'openai', false);

/** POST /v1/embeddings: pass-through where the upstream serves OpenAI's, Gemini's batchEmbedContents on a Gemini-wire upstream. */
function embeddingsExchangeFor(input: ExchangeInput, deployment: DeploymentConfig, spec: ProviderSpec): Exchange {
  const p = deployment.provider;
  const dialect = spec.embeddingsDialect(p);
  if (dialect === 'gemini') {
    return new EmbeddingsToGeminiExchange({
      parsed: input.parsed,
      clientModel: input.facts.model,
      upstreamModel: deployment.model,
      promptEstimate: input.promptEstimate,
    });
  }
  if (dialect === 'openai') return passthrough(input, deployment, { upstreamQuery: OPENAI_EMBEDDINGS });
  // The operator's configuration, not the caller's request: said plainly, not retried elsewhere.
  const why = spec.noEmbeddingsReason?.(p);
  throw new GatewayError('invalid_request', {
    status: 400,
    message: `The model \`${input.facts.model}\` is routed to provider '${p.name}' (kind ${p.kind}), which does not serve embeddings${why === undefined ? '' : ` (${why})`}.`,
    param: 'model',
  });
}

/** Gemini requests to an upstream that speaks Gemini pass through. */
function geminiPassthrough(input: ExchangeInput, deployment: DeploymentConfig): Exchange {
  return new GeminiPassthroughExchange({
    raw: input.raw,
    parsed: input.parsed,
    version: input.geminiVersion ?? 'v1beta',
    upstreamModel: deployment.model,
    stream: input.facts.stream,
    promptEstimate: input.promptEstimate,
    outputCap: input.outputCap,
    dropCarried: CLIENT_SIDES.gemini.dropCarriedReasoning,
  });
}

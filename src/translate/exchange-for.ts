// Picks how one request meets its deployment's upstream: pass-through or the translation hub, by the
// hub's one switch (translate/hub/route.ts).
import type { Dialect } from '../core/dialect.ts';
import type { DeploymentConfig } from '../core/config-types.ts';
import type { RequestFacts } from '../dialects/request-facts.ts';
import type { TextMasker } from '../dialects/passthrough-tap.ts';
import { routeFor } from './hub/route.ts';
import { TranslatedExchange } from './hub/translated-exchange.ts';
import type { Exchange } from './exchange.ts';
import { PassthroughExchange } from './passthrough-exchange.ts';
import { embeddingsExchangeFor, geminiPassthroughFor } from './exchange-for-gemini.ts';

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
  /** Admission reserved this many output tokens for a request that names no limit: send it (admit.ts). */
  outputCap: number | null;
  /** Masks provider credentials in text an upstream sends back (its own stream error events). */
  masker?: TextMasker;
  /** POST /v1/embeddings (dialect openai). */
  embedding?: boolean;
  /** The API version of a Gemini path (`v1beta` or `v1`). */
  geminiVersion?: 'v1beta' | 'v1';
}

const NO_REFUSED: readonly string[] = [];

export function exchangeFor(input: ExchangeInput, deployment: DeploymentConfig): Exchange {
  if (input.embedding === true) return embeddingsExchangeFor(input, deployment);
  // Gemini names its model in the path: its pass-through is its own.
  const gemini = geminiPassthroughFor(input, deployment);
  if (gemini !== null) return gemini;
  const route = routeFor(input.dialect, deployment.provider.kind, deployment.provider.apis);
  if (route.kind === 'passthrough') {
    return new PassthroughExchange({
      dialect: input.dialect,
      raw: input.raw,
      text: input.text,
      parsed: input.parsed,
      facts: input.facts,
      upstreamModel: deployment.model,
      promptEstimate: input.promptEstimate,
      outputCap: input.outputCap,
      maxTokensField: deployment.maxTokensField,
      masker: input.masker,
      refusedParams: deployment.refusedParams,
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
    },
    masker: input.masker,
  });
}

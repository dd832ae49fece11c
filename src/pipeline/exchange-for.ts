// Picks how one request meets its deployment's upstream: pass-through or the translation hub, by the
// hub's one switch (translate/hub/route.ts).
import type { Dialect } from '../core/dialect.ts';
import type { DeploymentConfig } from '../core/config-types.ts';
import type { RequestFacts } from '../dialects/request-facts.ts';
import type { TextMasker } from '../dialects/passthrough-tap.ts';
import { routeFor } from '../translate/hub/route.ts';
import { TranslatedExchange } from '../translate/hub/translated-exchange.ts';
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
  /** Admission reserved this many output tokens for a request that names no limit: send it (admit.ts). */
  outputCap: number | null;
  /** Masks provider credentials in text an upstream sends back (its own stream error events). */
  masker?: TextMasker;
}

const NO_REFUSED: readonly string[] = [];

export function exchangeFor(input: ExchangeInput, deployment: DeploymentConfig): Exchange {
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
    promptEstimate: input.promptEstimate,
    upstreamOptions: {
      upstreamModel: deployment.model,
      defaultMaxTokens: input.defaultMaxTokens,
      refusedParams: deployment.refusedParams ?? NO_REFUSED,
      maxTokensField: deployment.maxTokensField,
      structuredOutput: deployment.structuredOutput,
    },
  });
}

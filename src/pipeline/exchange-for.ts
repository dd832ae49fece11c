// The one explicit switch on (endpoint dialect, provider kind) that picks pass-through or a translator.
import type { Dialect } from '../core/dialect.ts';
import type { DeploymentConfig } from '../core/config-types.ts';
import { GatewayError } from '../core/errors.ts';
import type { RequestFacts } from '../dialects/request-facts.ts';
import type { TextMasker } from '../dialects/passthrough-tap.ts';
import type { Exchange } from './exchange.ts';
import { PassthroughExchange } from './passthrough-exchange.ts';
import { ChatToAnthropicExchange, MessagesToOpenAIExchange } from './translated-exchange.ts';

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

export function exchangeFor(input: ExchangeInput, deployment: DeploymentConfig): Exchange {
  const kind = deployment.provider.kind;
  // The mock speaks both dialects, so it is always same-dialect.
  const upstream: Dialect = kind === 'mock' ? input.dialect : kind;
  if (upstream === input.dialect) {
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
    });
  }
  if (input.dialect === 'openai' && upstream === 'anthropic') {
    return new ChatToAnthropicExchange({ parsed: input.parsed, facts: input.facts, upstreamModel: deployment.model, defaultMaxTokens: input.defaultMaxTokens, promptEstimate: input.promptEstimate, structuredOutput: deployment.structuredOutput, masker: input.masker });
  }
  if (input.dialect === 'anthropic' && upstream === 'openai') {
    return new MessagesToOpenAIExchange({ parsed: input.parsed, facts: input.facts, upstreamModel: deployment.model, promptEstimate: input.promptEstimate, maxTokensField: deployment.maxTokensField, masker: input.masker });
  }
  throw new GatewayError('internal_error', { message: `No translation from ${input.dialect} to ${upstream}.` });
}

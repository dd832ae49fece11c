// The switch's arms for embeddings and for Gemini's native API (issue 40): pass-through where the
// upstream speaks the caller's API, Gemini's batchEmbedContents for embeddings on a Gemini upstream.
import type { DeploymentConfig } from '../core/config-types.ts';
import { GatewayError } from '../core/errors.ts';
import { EmbeddingsToGeminiExchange } from '../dialects/embeddings/gemini-exchange.ts';
import { GeminiPassthroughExchange } from '../dialects/gemini/passthrough-exchange.ts';
import type { Exchange } from './exchange.ts';
import type { ExchangeInput } from './exchange-for.ts';
import { PassthroughExchange } from './passthrough-exchange.ts';

const DEFAULT_APIS = ['chat', 'embeddings'];

export function embeddingsExchangeFor(input: ExchangeInput, deployment: DeploymentConfig): Exchange {
  const p = deployment.provider;
  if (p.kind === 'gemini') {
    return new EmbeddingsToGeminiExchange({ parsed: input.parsed, clientModel: input.facts.model, upstreamModel: deployment.model, promptEstimate: input.promptEstimate });
  }
  if (p.kind === 'mock' || (p.kind === 'openai' && (p.apis ?? DEFAULT_APIS).includes('embeddings'))) {
    return new PassthroughExchange({
      dialect: 'openai',
      raw: input.raw,
      text: input.text,
      parsed: input.parsed,
      facts: input.facts,
      upstreamModel: deployment.model,
      promptEstimate: input.promptEstimate,
      upstreamPath: '/embeddings',
    });
  }
  // The operator's configuration, not the caller's request: said plainly, not retried elsewhere.
  throw new GatewayError('invalid_request', {
    status: 400,
    message: `The model \`${input.facts.model}\` is routed to provider '${p.name}' (kind ${p.kind}), which does not serve embeddings${p.kind === 'openai' ? " (its `apis` leaves out 'embeddings')" : ''}.`,
    param: 'model',
  });
}

/** Gemini requests to a Gemini upstream (or the mock, which speaks every dialect) pass through. */
export function geminiPassthroughFor(input: ExchangeInput, deployment: DeploymentConfig): Exchange | null {
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

// POST /v1/embeddings to a Gemini upstream: the inputs become one `batchEmbedContents` call, and its
// vectors come back in OpenAI's list shape (base64 made by the gateway when the caller asked for it).
import { GatewayError } from '../core/errors.ts';
import { isObject } from '../core/json.ts';
import { emptyUsage, type Usage } from '../core/usage.ts';
import type { Exchange, StreamRelay } from '../spec/exchange.ts';
import { targetQuery, type TargetQuery } from '../spec/provider.ts';
import { upstreamObject } from './gemini-passthrough-exchange.ts';
import { usageFromGemini } from '../dialects/gemini/usage.ts';
import { float32Base64 } from '../dialects/embeddings/float32-base64.ts';
import { embeddingInputs } from '../dialects/embeddings/validate.ts';

export interface EmbeddingsToGeminiOptions {
  parsed: Record<string, unknown>;
  /** The model the caller named: the reply shows it. */
  clientModel: string;
  upstreamModel: string;
  /** Prompt tokens estimated before the call: Gemini's batch answer carries no usage. */
  promptEstimate: () => number;
}

/** Gemini's batchEmbedContents (v1beta). */
const BATCH_EMBED = targetQuery('embeddings', 'gemini', false);

export class EmbeddingsToGeminiExchange implements Exchange {
  readonly upstreamDialect = 'gemini';
  readonly upstreamQuery: TargetQuery = BATCH_EMBED;
  readonly responseHeaders: Record<string, string> = {};
  #opts: EmbeddingsToGeminiOptions;
  #count: number;
  #body: string;

  constructor(opts: EmbeddingsToGeminiOptions) {
    this.#opts = opts;
    const inputs = embeddingInputs(opts.parsed.input);
    if (inputs.kind !== 'text') {
      throw new GatewayError('invalid_request', {
        message:
          'This model is served by a Gemini upstream, which embeds text only: send `input` as a string or an array of strings, not tokens.',
        param: 'input',
      });
    }
    this.#count = inputs.texts.length;
    const name = opts.upstreamModel.startsWith('models/') ? opts.upstreamModel : `models/${opts.upstreamModel}`;
    const dims = opts.parsed.dimensions;
    const requests = inputs.texts.map((text) => {
      const r: Record<string, unknown> = { model: name, content: { parts: [{ text }] } };
      if (typeof dims === 'number') r.outputDimensionality = dims;
      return r;
    });
    this.#body = JSON.stringify({ requests });
  }

  upstreamBody(): string {
    return this.#body;
  }

  json(upstreamText: string): { body: string; usage: Usage } {
    const reply = upstreamObject(upstreamText);
    const embeddings = Array.isArray(reply.embeddings) ? reply.embeddings : null;
    if (embeddings === null || embeddings.length !== this.#count) {
      throw new GatewayError('upstream_error', {
        message: `The upstream answered without one embedding per input (${this.#count} asked).`,
      });
    }
    const base64 = this.#opts.parsed.encoding_format === 'base64';
    const data = embeddings.map((e: unknown, index) => {
      const values = isObject(e) && Array.isArray(e.values) ? (e.values as number[]) : null;
      if (values === null)
        throw new GatewayError('upstream_error', { message: `The upstream's embedding ${index} has no values.` });
      return { object: 'embedding', index, embedding: base64 ? float32Base64(values) : values };
    });
    const usage = usageFromGemini(reply.usageMetadata) ?? { ...emptyUsage(), inputTokens: this.#opts.promptEstimate() };
    const prompt = usage.inputTokens + usage.cacheReadTokens;
    const body = JSON.stringify({
      object: 'list',
      data,
      model: this.#opts.clientModel,
      usage: { prompt_tokens: prompt, total_tokens: prompt },
    });
    return { body, usage: { ...usage, outputTokens: 0 } };
  }

  stream(): StreamRelay {
    throw new GatewayError('internal_error', { message: 'Embeddings are never streamed.' });
  }
}

// Gemini requests to a Gemini upstream: the caller's bytes go up as they came (the model is named in
// the path, which the gateway writes with the deployment's model) and the answer comes back as it is,
// tapped for `usageMetadata` (STYLE.md "Pass-through never re-serialises").
import { GatewayError } from '../core/errors.ts';
import { isObject } from '../core/json.ts';
import type { Usage } from '../core/usage.ts';
import { estimatedReplyUsage } from '../dialects/reply-usage.ts';
import type { Exchange, StreamRelay } from '../spec/exchange.ts';
import { targetQuery, type TargetQuery } from '../spec/provider.ts';
import { noteCarriedDropped, PassthroughRelay } from './passthrough-exchange.ts';
import { CARRIER_IN_JSON } from '../spec/reasoning-carrier.ts';
import { GeminiStreamTap } from '../dialects/gemini/passthrough-tap.ts';
import { usageFromGemini } from '../dialects/gemini/usage.ts';

export interface GeminiPassthroughOptions {
  raw: Buffer;
  parsed: Record<string, unknown>;
  /** The caller's API version, kept upstream: a field one version lacks is the caller's choice. */
  version: 'v1beta' | 'v1';
  upstreamModel: string;
  stream: boolean;
  promptEstimate: () => number;
  /** An output limit to add (the request names none and a budget reserved this much). */
  outputCap: number | null;
  /** Removes the gateway's reasoning tokens from a Gemini body (ClientSide.dropCarriedReasoning). */
  dropCarried?: (body: Record<string, unknown>) => number;
}

/** A 2xx body as a JSON object; anything else is the upstream's fault (a failed attempt). */
export function upstreamObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new GatewayError('upstream_error', { message: 'The upstream answered 200 with a body that is not JSON.' });
  }
  if (!isObject(value))
    throw new GatewayError('upstream_error', {
      message: 'The upstream answered 200 with a body that is not a JSON object.',
    });
  return value;
}

/** Generation in the caller's API version, which a passed-through body is written for. */
const GENERATE = {
  v1beta: [targetQuery('generate', 'gemini', false, 'v1beta'), targetQuery('generate', 'gemini', true, 'v1beta')],
  v1: [targetQuery('generate', 'gemini', false, 'v1'), targetQuery('generate', 'gemini', true, 'v1')],
} as const;

export class GeminiPassthroughExchange implements Exchange {
  readonly upstreamDialect = 'gemini';
  readonly upstreamQuery: TargetQuery;
  readonly responseHeaders: Record<string, string> = {};
  #opts: GeminiPassthroughOptions;

  constructor(opts: GeminiPassthroughOptions) {
    this.#opts = opts;
    this.upstreamQuery = GENERATE[opts.version][opts.stream ? 1 : 0];
    if (opts.outputCap !== null) {
      this.responseHeaders['x-modelgate-adjusted'] =
        `generationConfig.maxOutputTokens set to ${opts.outputCap}: the key's limits reserve that much output for a request that names no limit`;
    }
  }

  withoutCarriedReasoning(): boolean {
    const { dropCarried, parsed, raw } = this.#opts;
    if (dropCarried === undefined || !raw.includes(CARRIER_IN_JSON)) return false;
    const copy = structuredClone(parsed);
    const dropped = dropCarried(copy);
    if (dropped === 0) return false;
    this.#opts = { ...this.#opts, parsed: copy, raw: Buffer.from(JSON.stringify(copy)) };
    noteCarriedDropped(this.responseHeaders, dropped);
    return true;
  }

  upstreamBody(): string | Buffer {
    const { outputCap, parsed, raw } = this.#opts;
    if (outputCap === null) return raw;
    // Added in front of the caller's bytes, which stay as they came, unless a generationConfig must change.
    if (parsed.generationConfig === undefined)
      return Buffer.concat([
        Buffer.from(`{"generationConfig":{"maxOutputTokens":${outputCap}},`),
        raw.subarray(raw.indexOf(0x7b) + 1),
      ]);
    const config = isObject(parsed.generationConfig) ? parsed.generationConfig : {};
    return JSON.stringify({ ...parsed, generationConfig: { ...config, maxOutputTokens: outputCap } });
  }

  json(upstreamText: string): { body: string; usage: Usage } {
    const reply = upstreamObject(upstreamText);
    // A reply without usage is billed as on every route: read by its dialect's decoder, estimated.
    const usage =
      usageFromGemini(reply.usageMetadata) ?? estimatedReplyUsage(reply, 'gemini', this.#opts.promptEstimate);
    return { body: upstreamText, usage };
  }

  stream(): StreamRelay {
    return new PassthroughRelay({
      tap: new GeminiStreamTap(),
      dialect: 'gemini',
      promptEstimate: this.#opts.promptEstimate,
    });
  }
}

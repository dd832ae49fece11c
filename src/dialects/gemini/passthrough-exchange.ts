// Gemini requests to a Gemini upstream: the caller's bytes go up as they came (the model is named in
// the path, which the gateway writes with the deployment's model) and the answer comes back as it is,
// tapped for `usageMetadata` (STYLE.md "Pass-through never re-serialises").
import { GatewayError } from '../../core/errors.ts';
import { isObject } from '../../core/json.ts';
import type { Usage } from '../../core/usage.ts';
import { estimatedUsage } from '../../translate/hub/usage-estimate.ts';
import type { Exchange, StreamRelay } from '../../pipeline/exchange.ts';
import { renderStreamError } from '../render-error.ts';
import { GeminiStreamTap } from './passthrough-tap.ts';
import { usageFromGemini } from './usage.ts';
import { decodeGeminiReply } from './decode-reply.ts';

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
}

/** `/v1beta/models/{model}:generateContent` (or the stream with `?alt=sse`) for an upstream model. */
export function geminiUpstreamPath(version: string, model: string, method: string): string {
  // A model written `models/x` (as Google's own names are) is the same model.
  const name = model.startsWith('models/') ? model.slice(7) : model;
  return `/${version}/models/${encodeURIComponent(name)}:${method}${method === 'streamGenerateContent' ? '?alt=sse' : ''}`;
}

export class GeminiPassthroughExchange implements Exchange {
  readonly upstreamDialect = 'gemini';
  readonly upstreamPath: string;
  readonly responseHeaders: Record<string, string> = {};
  #opts: GeminiPassthroughOptions;

  constructor(opts: GeminiPassthroughOptions) {
    this.#opts = opts;
    this.upstreamPath = geminiUpstreamPath(opts.version, opts.upstreamModel, opts.stream ? 'streamGenerateContent' : 'generateContent');
    if (opts.outputCap !== null) {
      this.responseHeaders['x-modelgate-adjusted'] = `generationConfig.maxOutputTokens set to ${opts.outputCap}: the key's limits reserve that much output for a request that names no limit`;
    }
  }

  upstreamBody(): string | Buffer {
    const { outputCap, parsed, raw } = this.#opts;
    if (outputCap === null) return raw;
    // Added in front of the caller's bytes, which stay as they came, unless a generationConfig must change.
    if (parsed.generationConfig === undefined) return Buffer.concat([Buffer.from(`{"generationConfig":{"maxOutputTokens":${outputCap}},`), raw.subarray(raw.indexOf(0x7b) + 1)]);
    const config = isObject(parsed.generationConfig) ? parsed.generationConfig : {};
    return JSON.stringify({ ...parsed, generationConfig: { ...config, maxOutputTokens: outputCap } });
  }

  json(upstreamText: string): { body: string; usage: Usage } {
    let reply: unknown;
    try {
      reply = JSON.parse(upstreamText);
    } catch {
      throw new GatewayError('upstream_error', { message: 'The upstream answered 200 with a body that is not JSON.' });
    }
    if (!isObject(reply)) throw new GatewayError('upstream_error', { message: 'The upstream answered 200 with a body that is not a JSON object.' });
    // A reply without usage is billed as on every route: read by its dialect's decoder, estimated.
    const usage = usageFromGemini(reply.usageMetadata) ?? estimatedUsage(decodeGeminiReply(reply), this.#opts.promptEstimate);
    return { body: upstreamText, usage };
  }

  stream(): StreamRelay {
    return new GeminiPassthroughRelay(new GeminiStreamTap(), this.#opts.promptEstimate);
  }
}

class GeminiPassthroughRelay implements StreamRelay {
  readonly encoding = 'latin1';
  // An upstream's own error event is its bytes, forwarded; a stream that stops early fails in relayStream.
  readonly failed = false;
  #tap: GeminiStreamTap;
  #promptEstimate: () => number;

  constructor(tap: GeminiStreamTap, promptEstimate: () => number) {
    this.#tap = tap;
    this.#promptEstimate = promptEstimate;
  }

  get finished(): boolean {
    return this.#tap.finished;
  }

  push(chunk: Uint8Array): string {
    return this.#tap.push(chunk);
  }

  end(): string {
    return this.#tap.end();
  }

  // As the other pass-through: a stream cut before its usage bills the prompt estimate and one token
  // per delivered event.
  usage(): Usage {
    const u = { ...this.#tap.usage };
    if (!this.#tap.sawUsage) u.inputTokens = this.#promptEstimate();
    if (!this.#tap.finished || !this.#tap.sawUsage) u.outputTokens = Math.max(u.outputTokens, this.#tap.events);
    return u;
  }

  errorEvent(err: GatewayError, requestId: string): string {
    return this.#tap.endedWithError ? '' : renderStreamError('gemini', err, requestId);
  }
}

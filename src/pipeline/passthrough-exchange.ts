// Same-dialect traffic: the client's bytes go upstream with only `model` patched, and the answer comes
// back with only `model` patched, tapped for usage on the way (STYLE.md "Pass-through never re-serialises").
import type { Dialect } from '../core/dialect.ts';
import { GatewayError } from '../core/errors.ts';
import type { Usage } from '../core/usage.ts';
import { patchFirstModel, patchModelBytes } from '../dialects/json-model-patch.ts';
import { PassthroughStreamTap, type TextMasker } from '../dialects/passthrough-tap.ts';
import { renderStreamError } from '../dialects/render-error.ts';
import { isObject } from '../core/json.ts';
import type { RequestFacts } from '../dialects/request-facts.ts';
import type { Exchange, StreamRelay } from './exchange.ts';
import { extractUsage } from './extract-usage.ts';
import { estimatedReplyUsage } from './reply-usage-estimate.ts';
import { deliveredText } from '../dialects/delivered-text.ts';
import { countText } from '../admission/estimate-tokens.ts';

const INCLUDE_USAGE_HEAD = Buffer.from('{"stream_options":{"include_usage":true},');

export class PassthroughExchange implements Exchange {
  readonly upstreamDialect: Dialect;
  readonly responseHeaders: Record<string, string> = {};
  #raw: Buffer;
  #text: string;
  #parsed: Record<string, unknown>;
  #facts: RequestFacts;
  #upstreamModel: string;
  #promptEstimate: () => number;
  #outputCap: { field: string; tokens: number } | null;
  #masker: TextMasker | undefined;

  constructor(opts: {
    dialect: Dialect;
    raw: Buffer;
    text: string;
    parsed: Record<string, unknown>;
    facts: RequestFacts;
    upstreamModel: string;
    promptEstimate: () => number;
    /** An output limit to add (the request names none and a budget reserved this much). */
    outputCap?: number | null;
    /** Masks provider credentials in the upstream's own stream error events. */
    masker?: TextMasker;
    maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  }) {
    this.upstreamDialect = opts.dialect;
    this.#raw = opts.raw;
    this.#text = opts.text;
    this.#parsed = opts.parsed;
    this.#facts = opts.facts;
    this.#upstreamModel = opts.upstreamModel;
    this.#promptEstimate = opts.promptEstimate;
    this.#masker = opts.masker;
    // Messages always name max_tokens; only chat requests can come without a limit. The field every
    // OpenAI model accepts (reasoning models refuse max_tokens) unless the deployment says otherwise.
    const cap = opts.dialect === 'openai' ? (opts.outputCap ?? null) : null;
    this.#outputCap = cap === null ? null : { field: opts.maxTokensField ?? 'max_completion_tokens', tokens: cap };
    if (this.#outputCap !== null) {
      this.responseHeaders['x-modelgate-adjusted'] = `${this.#outputCap.field} set to ${cap}: the key's limits reserve that much output for a request that names no limit`;
    }
  }

  upstreamBody(): string | Buffer {
    const body = patchModelBytes(this.#raw, this.#text, this.#upstreamModel);
    // DESIGN.md: always ask OpenAI-style upstreams for stream usage; the tap strips it again if unasked.
    const askUsage = this.upstreamDialect === 'openai' && this.#facts.stream && !this.#facts.includeUsage;
    const cap = this.#outputCap;
    if (body !== null && !askUsage && cap === null) return body;
    // Added fields go in front of the caller's bytes, which stay as they came (numbers past 2^53 too);
    // only a key the body already has (a stream_options to amend, an invalid limit) needs re-serialising.
    if (body !== null && !(askUsage && this.#parsed.stream_options !== undefined) && !(cap !== null && this.#parsed[cap.field] !== undefined)) {
      const head = cap === null ? INCLUDE_USAGE_HEAD : Buffer.from(`${askUsage ? INCLUDE_USAGE_HEAD.toString('latin1') : '{'}"${cap.field}":${cap.tokens},`);
      // The body is a JSON object (validated, with its model and messages), so its first '{' opens it.
      return Buffer.concat([head, body.subarray(body.indexOf(0x7b) + 1)]);
    }
    // Re-serialised when the model key is repeated or escaped (the upstream must read the model that was
    // routed and billed, whichever of repeated keys its parser keeps), or a key it has must change.
    const out: Record<string, unknown> = { ...this.#parsed, model: this.#upstreamModel };
    if (askUsage) out.stream_options = { ...(isObject(this.#parsed.stream_options) ? this.#parsed.stream_options : {}), include_usage: true };
    if (cap !== null) out[cap.field] = cap.tokens;
    return JSON.stringify(out);
  }

  json(upstreamText: string): { body: string; usage: Usage } {
    let usage = extractUsage(upstreamText, this.upstreamDialect);
    if (usage === null) {
      // Rare (servers that omit usage), so the body is parsed only here.
      const reply = jsonObject(upstreamText);
      if (reply === null) throw new GatewayError('upstream_error', { message: 'The upstream answered 200 with a body that is not JSON.' });
      usage = estimatedReplyUsage(reply, this.upstreamDialect, this.#promptEstimate);
    }
    const body = this.#facts.model === this.#upstreamModel ? upstreamText : patchFirstModel(upstreamText, JSON.stringify(this.#facts.model));
    return { body, usage };
  }

  stream(): StreamRelay {
    return new PassthroughRelay({
      tap: new PassthroughStreamTap({
        dialect: this.upstreamDialect,
        clientModel: this.#facts.model,
        upstreamModel: this.#upstreamModel,
        stripUsageChunk: this.upstreamDialect === 'openai' && !this.#facts.includeUsage,
        masker: this.#masker,
      }),
      dialect: this.upstreamDialect,
      promptEstimate: this.#promptEstimate,
    });
  }
}

function jsonObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : null;
  } catch {
    return null;
  }
}

class PassthroughRelay implements StreamRelay {
  readonly encoding = 'latin1';
  #tap: PassthroughStreamTap;
  #dialect: Dialect;
  #promptEstimate: () => number;

  constructor(opts: { tap: PassthroughStreamTap; dialect: Dialect; promptEstimate: () => number }) {
    this.#tap = opts.tap;
    this.#dialect = opts.dialect;
    this.#promptEstimate = opts.promptEstimate;
  }

  get finished(): boolean {
    return this.#tap.finished;
  }

  // A pass-through stream that stops early fails in relayStream; an upstream's own error event is its
  // bytes, forwarded as they are.
  readonly failed = false;

  push(chunk: Uint8Array): string {
    return this.#tap.push(chunk);
  }

  end(): string {
    return this.#tap.end();
  }

  // A cut stream may never carry usage, and some servers never send it (they ignore stream_options):
  // bill the prompt estimate and the delivered output counted with the tokenizer (at least one token
  // per delivered delta event). A whole stream with the upstream's own usage is billed on that alone.
  usage(): Usage {
    const u = { ...this.#tap.usage };
    if (!this.#tap.sawUsage) u.inputTokens = this.#promptEstimate();
    if (!this.#tap.finished || !this.#tap.sawUsage) u.outputTokens = Math.max(u.outputTokens, this.#tap.deltaEvents, this.#deliveredTokens());
    return u;
  }

  /** The delivered output's tokens; bytes past what the tap kept count at the kept part's ratio. */
  #deliveredTokens(): number {
    const tap = this.#tap;
    const tokens = countText(deliveredText(tap.delivered, this.#dialect));
    if (tap.unkeptBytes === 0) return tokens;
    const kept = tap.delivered.reduce((n, b) => n + b.length, 0);
    return Math.ceil(tokens * ((kept + tap.unkeptBytes) / Math.max(1, kept)));
  }

  errorEvent(err: GatewayError, requestId: string): string {
    // The upstream's own error event, just forwarded, already ends the stream well-formed: one is enough.
    return this.#tap.endsWithError() ? '' : renderStreamError(this.#dialect, err, requestId);
  }
}

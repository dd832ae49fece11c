// Same-dialect traffic: the client's bytes go upstream with only `model` patched, and the answer comes
// back with only `model` patched, tapped for usage on the way (STYLE.md "Pass-through never re-serialises").
import type { Dialect } from '../core/dialect.ts';
import { GatewayError } from '../core/errors.ts';
import { noteServedTier, type Usage } from '../core/usage.ts';
import { extractUsage, patchFirstModel, patchModelBytes, stringField } from '../dialects/json-text.ts';
import { PassthroughStreamTap, type TextMasker } from '../dialects/passthrough-tap.ts';
import { ResponsesStreamTap } from '../dialects/openai-responses/passthrough-tap.ts';
import { renderStreamError } from '../dialects/render-error.ts';
import { isObject } from '../core/json.ts';
import type { RequestFacts } from '../dialects/request-facts.ts';
import type { Exchange, StreamRelay } from '../spec/exchange.ts';
import { generationQuery, type TargetQuery } from '../spec/provider.ts';
import { estimatedReplyUsage } from '../dialects/reply-usage.ts';
import { deliveredText } from '../dialects/delivered-text.ts';
import { countText } from '../admission/estimate-tokens.ts';
import { CARRIER_IN_JSON } from '../spec/reasoning-carrier.ts';

/** Says in x-modelgate-adjusted that reasoning carried for another provider was left out. */
export function noteCarriedDropped(headers: Record<string, string>, dropped: number): void {
  const note = `${dropped} reasoning block(s) another provider wrote (carried in the gateway's tokens) left out: the upstream refused them`;
  const before = headers['x-modelgate-adjusted'];
  headers['x-modelgate-adjusted'] = before === undefined ? note : `${before}; ${note}`;
}

const INCLUDE_USAGE_HEAD = Buffer.from('{"stream_options":{"include_usage":true},');

export class PassthroughExchange implements Exchange {
  readonly upstreamDialect: Dialect;
  readonly upstreamQuery: TargetQuery;
  readonly responseHeaders: Record<string, string> = {};
  #raw: Buffer;
  #text: string;
  #parsed: Record<string, unknown>;
  #facts: RequestFacts;
  #upstreamModel: string;
  #promptEstimate: () => number;
  #outputCap: { field: string; tokens: number } | null;
  #masker: TextMasker | undefined;
  /** Refused parameters this body sets: they are left out (config `refused_params`). */
  #refused: string[] | null = null;
  readonly #dropCarried: ((body: Record<string, unknown>) => number) | undefined;

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
    /** Another operation than the dialect's generation one (embeddings). */
    upstreamQuery?: TargetQuery;
    /** Top-level parameters the deployment's model refuses. */
    refusedParams?: readonly string[];
    /** Removes the gateway's reasoning tokens from a body of this dialect (ClientSide.dropCarriedReasoning). */
    dropCarried?: (body: Record<string, unknown>) => number;
  }) {
    this.#dropCarried = opts.dropCarried;
    this.upstreamDialect = opts.dialect;
    this.upstreamQuery = opts.upstreamQuery ?? generationQuery(opts.dialect, opts.facts.stream);
    this.#raw = opts.raw;
    this.#text = opts.text;
    this.#parsed = opts.parsed;
    this.#facts = opts.facts;
    this.#upstreamModel = opts.upstreamModel;
    this.#promptEstimate = opts.promptEstimate;
    this.#masker = opts.masker;
    // Messages always name max_tokens; only chat and Responses requests can come without a limit. On chat
    // the field every OpenAI model accepts (reasoning models refuse max_tokens) unless the deployment says otherwise.
    const cap = opts.dialect !== 'anthropic' ? (opts.outputCap ?? null) : null;
    const field = opts.dialect === 'responses' ? 'max_output_tokens' : (opts.maxTokensField ?? 'max_completion_tokens');
    this.#outputCap = cap === null ? null : { field, tokens: cap };
    const adjusted: string[] = [];
    if (this.#outputCap !== null) {
      adjusted.push(
        `${this.#outputCap.field} set to ${cap}: the key's limits reserve that much output for a request that names no limit`,
      );
    }
    if (opts.refusedParams !== undefined) {
      const present = opts.refusedParams.filter((field) => field !== 'model' && opts.parsed[field] !== undefined);
      if (present.length > 0) {
        this.#refused = present;
        for (const field of present) adjusted.push(`${field} left out: the deployment's model refuses it`);
      }
    }
    if (adjusted.length > 0) this.responseHeaders['x-modelgate-adjusted'] = adjusted.join('; ');
  }

  withoutCarriedReasoning(): boolean {
    if (this.#dropCarried === undefined || !this.#text.includes(CARRIER_IN_JSON)) return false;
    const parsed = structuredClone(this.#parsed);
    const dropped = this.#dropCarried(parsed);
    if (dropped === 0) return false;
    this.#parsed = parsed;
    this.#text = JSON.stringify(parsed);
    this.#raw = Buffer.from(this.#text);
    noteCarriedDropped(this.responseHeaders, dropped);
    return true;
  }

  upstreamBody(): string | Buffer {
    const body = patchModelBytes(this.#raw, this.#text, this.#upstreamModel);
    // DESIGN.md: always ask OpenAI-style upstreams for stream usage; the tap strips it again if unasked.
    const askUsage = this.upstreamDialect === 'openai' && this.#facts.stream && !this.#facts.includeUsage;
    const cap = this.#outputCap;
    const refused = this.#refused;
    if (body !== null && !askUsage && cap === null && refused === null) return body;
    // Added fields go in front of the caller's bytes, which stay as they came (numbers past 2^53 too);
    // only a key the body already has (a stream_options to amend, an invalid limit) needs re-serialising.
    if (
      body !== null &&
      refused === null &&
      !(askUsage && this.#parsed.stream_options !== undefined) &&
      !(cap !== null && this.#parsed[cap.field] !== undefined)
    ) {
      const head =
        cap === null
          ? INCLUDE_USAGE_HEAD
          : Buffer.from(`${askUsage ? INCLUDE_USAGE_HEAD.toString('latin1') : '{'}"${cap.field}":${cap.tokens},`);
      // The body is a JSON object (validated, with its model and messages), so its first '{' opens it.
      return Buffer.concat([head, body.subarray(body.indexOf(0x7b) + 1)]);
    }
    // Re-serialised when the model key is repeated or escaped (the upstream must read the model that was
    // routed and billed, whichever of repeated keys its parser keeps), or a key it has must change or go
    // (a parameter the deployment's model refuses: rare, so the bytes are not spliced for it).
    const out: Record<string, unknown> = { ...this.#parsed, model: this.#upstreamModel };
    if (refused !== null) for (const field of refused) delete out[field];
    if (askUsage)
      out.stream_options = {
        ...(isObject(this.#parsed.stream_options) ? this.#parsed.stream_options : {}),
        include_usage: true,
      };
    if (cap !== null) out[cap.field] = cap.tokens;
    return JSON.stringify(out);
  }

  json(upstreamText: string): { body: string; usage: Usage } {
    let usage = extractUsage(upstreamText, this.upstreamDialect);
    if (usage === null) {
      // Rare (servers that omit usage), so the body is parsed only here.
      const reply = jsonObject(upstreamText);
      if (reply === null)
        throw new GatewayError('upstream_error', {
          message: 'The upstream answered 200 with a body that is not JSON.',
        });
      usage = estimatedReplyUsage(reply, this.upstreamDialect, this.#promptEstimate);
    }
    // OpenAI says the tier it served at beside the usage, not in it; read only when the caller asked for one.
    if (typeof this.#parsed.service_tier === 'string' && usage.serviceTier === undefined)
      noteServedTier(usage, stringField(upstreamText, 'service_tier') ?? this.#parsed.service_tier);
    const body =
      this.#facts.model === this.#upstreamModel
        ? upstreamText
        : patchFirstModel(upstreamText, JSON.stringify(this.#facts.model));
    return { body, usage };
  }

  stream(): StreamRelay {
    if (this.upstreamDialect === 'responses') {
      const tap = new ResponsesStreamTap({
        clientModel: this.#facts.model,
        upstreamModel: this.#upstreamModel,
        masker: this.#masker,
      });
      return new PassthroughRelay({ tap, dialect: 'responses', promptEstimate: this.#promptEstimate });
    }
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

/** What the relay needs of a dialect's stream tap (dialects/passthrough-tap.ts, Gemini's). */
type StreamTap = Pick<
  PassthroughStreamTap,
  'usage' | 'sawUsage' | 'finished' | 'deltaEvents' | 'push' | 'end' | 'endsWithError'
> &
  Partial<Pick<PassthroughStreamTap, 'delivered' | 'unkeptBytes'>>;

export class PassthroughRelay implements StreamRelay {
  #tap: StreamTap;
  #dialect: Dialect;
  #promptEstimate: () => number;

  constructor(opts: { tap: StreamTap; dialect: Dialect; promptEstimate: () => number }) {
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

  push(chunk: Uint8Array): Uint8Array {
    return this.#tap.push(chunk);
  }

  end(): Uint8Array {
    return this.#tap.end();
  }

  // A cut stream may never carry usage, and some servers never send it (they ignore stream_options):
  // bill the prompt estimate and the delivered output counted with the tokenizer (at least one token
  // per delivered delta event). A whole stream with the upstream's own usage is billed on that alone.
  usage(): Usage {
    const u = { ...this.#tap.usage };
    if (!this.#tap.sawUsage) u.inputTokens = this.#promptEstimate();
    if (!this.#tap.finished || !this.#tap.sawUsage)
      u.outputTokens = Math.max(u.outputTokens, this.#tap.deltaEvents, this.#deliveredTokens());
    return u;
  }

  /** The delivered output's tokens; bytes past what the tap kept count at the kept part's ratio. */
  #deliveredTokens(): number {
    const tap = this.#tap;
    // The chat and messages taps keep what they forwarded; the Responses tap counts its events only.
    if (tap.delivered === undefined || this.#dialect === 'responses') return 0;
    const tokens = countText(deliveredText(tap.delivered, this.#dialect));
    const unkept = tap.unkeptBytes ?? 0;
    if (unkept === 0) return tokens;
    const kept = tap.delivered.reduce((n, b) => n + b.length, 0);
    return Math.ceil(tokens * ((kept + unkept) / Math.max(1, kept)));
  }

  errorEvent(err: GatewayError, requestId: string): string {
    // The upstream's own error event, just forwarded, already ends the stream well-formed: one is enough.
    if (this.#tap.endsWithError()) return '';
    return renderStreamError(
      this.#dialect,
      err,
      requestId,
      this.#tap instanceof ResponsesStreamTap ? this.#tap.events : 0,
    );
  }

  finalResponse(): string | null {
    return this.#tap instanceof ResponsesStreamTap ? this.#tap.finalResponse : null;
  }
}

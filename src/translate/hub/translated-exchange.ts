// Cross-dialect traffic, for every pair alike: the client side decodes the caller's request into the hub
// form, the upstream side writes it for its upstream, and the answer (whole or streamed) comes back the
// same way reversed. Which sides meet is translate/exchange-for.ts's choice.
import type { Dialect } from '../../core/dialect.ts';
import { GatewayError } from '../../core/errors.ts';
import { isObject, MAX_REQUEST_DEPTH, nestedDeeperThan } from '../../core/json.ts';
import type { Usage } from '../../core/usage.ts';
import { renderStreamError } from '../../dialects/render-error.ts';
import type { TextMasker } from '../../dialects/passthrough-tap.ts';
import type { Exchange, StreamRelay } from '../../spec/exchange.ts';
import type { Frame, FrameDecoder } from '../../spec/framing.ts';
import { generationQuery, type TargetQuery } from '../../spec/provider.ts';
import type { ClientReplyContext, ClientSide, UpstreamOptions, UpstreamSide } from '../../spec/codec.ts';
import { HubStreamTranslator } from './stream-translator.ts';
import { TranslationError } from '../../spec/translation-error.ts';
import { estimatedHubUsage } from '../../dialects/reply-usage.ts';
import type { CallSignatureBook, KeptSignature } from '../../spec/call-signatures.ts';
import type { HubReply } from '../../spec/form.ts';
import { SignatureTap, unsignedCalls } from './kept-signatures.ts';

/**
 * Deeper than this a request is refused before translation: the translators walk it and the upstream
 * body is serialised again, which a few thousand levels of brackets would overflow. Tool schemas, the
 * deepest part of a real request, stay far below it.
 */
export const MAX_TRANSLATED_DEPTH = MAX_REQUEST_DEPTH;

export interface TranslatedExchangeOptions {
  client: ClientSide;
  upstream: UpstreamSide;
  /** The endpoint's dialect (for in-stream gateway errors) and the upstream's (for its error bodies). */
  clientDialect: Dialect;
  upstreamDialect: Dialect;
  parsed: Record<string, unknown>;
  /** The model name the caller asked for. */
  model: string;
  /** Whether the caller asked for a stream (a Gemini path says so; the other dialects' bodies do too). */
  stream?: boolean;
  /** An output limit a budget reserved for a request that names none: the upstream is held to it. */
  outputCap?: number | null;
  promptEstimate: () => number;
  upstreamOptions: UpstreamOptions;
  /** Masks provider credentials in the upstream's own stream error events before they are translated. */
  masker?: TextMasker;
  /** Cuts the upstream's streamed body into frames: its provider's framing. */
  frames: () => FrameDecoder;
  /** Where an upstream's tool-call signatures are kept for callers that cannot carry them. */
  signatures?: CallSignatureBook;
}

export class TranslatedExchange implements Exchange {
  readonly upstreamDialect: Dialect;
  readonly upstreamQuery: TargetQuery;
  readonly responseHeaders: Record<string, string> = {};
  readonly #client: ClientSide;
  readonly #upstream: UpstreamSide;
  readonly #clientDialect: Dialect;
  readonly #options: UpstreamOptions;
  readonly #cap: number | null;
  #body: string | null = null;
  #replyState: unknown = null;
  readonly #ctx: ClientReplyContext;
  /** Where the upstream's call signatures are kept for this caller; null when they need not be. */
  #book: { book: CallSignatureBook; owner: string } | null = null;
  readonly #pending: Promise<void>[] = [];
  readonly #masker: TextMasker | undefined;
  readonly #frames: () => FrameDecoder;

  constructor(opts: TranslatedExchangeOptions) {
    this.upstreamDialect = opts.upstreamDialect;
    this.#frames = opts.frames;
    this.#masker = opts.masker;
    this.#client = opts.client;
    this.#upstream = opts.upstream;
    this.#clientDialect = opts.clientDialect;
    this.#options = opts.upstreamOptions;
    if (nestedDeeperThan(opts.parsed, MAX_TRANSLATED_DEPTH)) {
      throw new GatewayError('invalid_request', {
        message: `The request nests objects and arrays more than ${MAX_TRANSLATED_DEPTH} levels deep.`,
      });
    }
    const request = translating(() => opts.client.decodeRequest(opts.parsed, { stream: opts.stream === true }));
    const cap = request.maxOutputTokens === undefined ? (opts.outputCap ?? null) : null;
    if (cap !== null) request.maxOutputTokens = cap;
    this.#cap = cap;
    this.upstreamQuery = generationQuery(opts.upstreamDialect, request.stream === true);
    this.#ctx = {
      model: opts.model,
      created: Math.floor(Date.now() / 1000),
      request,
      origin: opts.upstream.dialect,
      promptEstimate: opts.promptEstimate,
    };
    // An upstream that signs its tool calls, for a caller that cannot carry the signatures: they are kept
    // as the reply names them, and the request's own calls are looked up before its body is built.
    const owner = opts.upstreamOptions.owner;
    const book = opts.signatures;
    if (
      book !== undefined &&
      owner !== undefined &&
      opts.upstream.signsCalls === true &&
      !opts.client.carriesCallSignatures
    ) {
      this.#book = { book, owner };
      this.kept = () => this.#keptNow();
      const calls = unsignedCalls(request);
      if (calls.length > 0) {
        this.prepare = async () => {
          const found = await book.find(owner, opts.upstreamOptions.upstreamModel, calls);
          if (this.#body === null) this.#encode(found);
        };
        return;
      }
    }
    this.#encode();
  }

  readonly prepare?: () => Promise<void>;
  readonly kept?: () => Promise<void> | null;

  /** Writes the request for the upstream (with the kept signatures of its calls, when any were looked up). */
  #encode(callSignatures?: ReadonlyMap<string, string>): void {
    const options =
      callSignatures === undefined || callSignatures.size === 0 ? this.#options : { ...this.#options, callSignatures };
    const encoded = translating(() => this.#upstream.encodeRequest(this.#ctx.request, options));
    if (this.#cap !== null)
      encoded.adjustments.push(
        `output limit set to ${this.#cap}: the key's limits reserve that much output for a request that names no limit`,
      );
    this.#body = encoded.body;
    this.#replyState = encoded.replyState;
    if (encoded.adjustments.length > 0)
      this.responseHeaders['x-modelgate-adjusted'] = headerSafe(encoded.adjustments.join('; '));
  }

  upstreamBody(): string {
    // Asked for without prepare(): the calls go with what the upstream accepts in place of a signature.
    if (this.#body === null) this.#encode();
    return this.#body as string;
  }

  /** Starts writing signatures the reply made for the caller's next turn. */
  #keep(kept: KeptSignature[]): void {
    if (this.#book === null || kept.length === 0) return;
    this.#pending.push(this.#book.book.keep(this.#book.owner, this.#options.upstreamModel, kept));
  }

  #keptNow(): Promise<void> | null {
    if (this.#pending.length === 0) return null;
    return Promise.all(this.#pending).then(() => undefined);
  }

  json(upstreamText: string): { body: string; usage: Usage } {
    const value = parseUpstream(upstreamText);
    try {
      const reply = this.#upstream.decodeReply(value, this.#replyState);
      if (this.#book !== null) this.#keep(signedCalls(reply));
      const usage = reply.usageMissing === true ? estimatedHubUsage(reply, this.#ctx.promptEstimate) : reply.usage;
      return { body: this.#client.encodeReply(reply, this.#ctx), usage };
    } catch (err) {
      if (err instanceof GatewayError) throw err;
      // What the decoders copy (a tool's input) is serialised again, which an upstream's thousands of
      // nested brackets would overflow: such a reply is the upstream's fault, a failed attempt like any
      // malformed 2xx, not the gateway's 500. The cause is named so a decoder bug is not taken for it.
      const cause = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      throw new GatewayError('upstream_error', {
        message: `The upstream answered 200 with a body that could not be translated (${cause}).`,
      });
    }
  }

  stream(): StreamRelay {
    const decoder = this.#upstream.streamDecoder(this.#replyState);
    const translator = new HubStreamTranslator({
      decoder: this.#book === null ? decoder : new SignatureTap(decoder, (k) => this.#keep([k])),
      encoder: this.#client.streamEncoder(this.#ctx),
      promptEstimate: this.#ctx.promptEstimate,
    });
    return new TranslatedRelay(this.#frames(), translator, this.#clientDialect, this.#masker);
  }
}

function parseUpstream(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new GatewayError('upstream_error', { message: 'The upstream answered 200 with a body that is not JSON.' });
  }
  if (!isObject(value))
    throw new GatewayError('upstream_error', { message: 'The upstream answered 200 with JSON that is not an object.' });
  return value;
}

class TranslatedRelay implements StreamRelay {
  readonly #decoder: FrameDecoder;
  readonly #t: HubStreamTranslator;
  readonly #dialect: Dialect;
  readonly #masker: TextMasker | undefined;

  constructor(
    frames: FrameDecoder,
    translator: HubStreamTranslator,
    clientDialect: Dialect,
    masker: TextMasker | undefined,
  ) {
    this.#decoder = frames;
    this.#t = translator;
    this.#dialect = clientDialect;
    this.#masker = masker;
  }

  /** An upstream's error event has the provider's credentials masked before the translator reads it. */
  #event(ev: Frame): string {
    if (this.#masker !== undefined && (ev.event === 'error' || ev.data.startsWith('{"error"')))
      ev = { event: ev.event, data: this.#masker.mask(ev.data) };
    return this.#t.push(ev);
  }

  get finished(): boolean {
    return this.#t.finished;
  }

  get failed(): boolean {
    return this.#t.failed;
  }

  push(chunk: Uint8Array): string {
    let out = '';
    for (const ev of this.#decoder.push(chunk)) out += this.#event(ev);
    return out;
  }

  end(): string {
    let out = '';
    for (const ev of this.#decoder.end()) out += this.#event(ev);
    // The decoder's end() gives its own well-formed error ending when the upstream stopped early.
    return out + this.#t.end();
  }

  usage(): Usage {
    return this.#t.usage;
  }

  errorEvent(err: GatewayError, requestId: string): string {
    // A Responses stream ends with response.failed, written by its encoder with the output so far.
    if (this.#dialect === 'responses')
      return this.#t.failWith({
        type: 'error',
        status: err.status,
        errorType: 'server_error',
        message: err.message,
        code: err.code,
      });
    return renderStreamError(this.#dialect, err, requestId);
  }

  finalResponse(): string | null {
    return this.#t.final();
  }
}

/** A decoder's or encoder's refusal of the caller's request: a 400 naming its field. */
function translating<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof TranslationError)
      throw new GatewayError('invalid_request', { message: err.message, param: err.param });
    throw err;
  }
}

/** The tool calls of a whole reply that came signed. */
function signedCalls(reply: HubReply): KeptSignature[] {
  const out: KeptSignature[] = [];
  for (const p of reply.content)
    if (p.type === 'tool-call' && p.signature !== undefined) out.push({ callId: p.id, signature: p.signature });
  return out;
}

function headerSafe(v: string): string {
  return v.replace(/[^\x20-\x7e]/g, '?').slice(0, 500);
}

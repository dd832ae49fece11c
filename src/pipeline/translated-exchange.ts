// Cross-dialect traffic: the request is rebuilt for the upstream's dialect by the pure translators in
// translate/, and the answer (whole or streamed) is rebuilt for the caller's dialect.
import type { Dialect } from '../core/dialect.ts';
import { GatewayError } from '../core/errors.ts';
import { isObject, nestedDeeperThan } from '../core/json.ts';
import { emptyUsage, type Usage } from '../core/usage.ts';
import { SseDecoder, type SseEvent } from '../core/sse.ts';
import { renderStreamError } from '../dialects/render-error.ts';
import type { RequestFacts } from '../dialects/request-facts.ts';
import type { TextMasker } from '../dialects/passthrough-tap.ts';
import {
  chatRequestToMessages, messagesResponseToChat, MessagesStreamToChatStream,
  messagesRequestToChat, chatResponseToMessages, ChatStreamToMessagesStream,
  TranslationError, usageFromAnthropic, usageFromOpenAi,
  type ChatRequest, type MessagesRequest, type Message, type ChatCompletion, type JsonMode,
} from '../translate/index.ts';
import type { Exchange, StreamRelay } from './exchange.ts';
import { estimatedReplyUsage } from './reply-usage-estimate.ts';

interface StreamTranslator {
  push(ev: SseEvent): string;
  end(): string;
  readonly usage: Usage;
  readonly finished: boolean;
  readonly failed: boolean;
}

function parseUpstream<T>(text: string): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new GatewayError('upstream_error', { message: 'The upstream answered 200 with a body that is not JSON.' });
  }
  if (!isObject(value)) throw new GatewayError('upstream_error', { message: 'The upstream answered 200 with JSON that is not an object.' });
  return value as T;
}

/**
 * Runs a reply translator. The reply translators take any JSON object, but what they copy (a tool's
 * input) is serialised again, which an upstream's thousands of nested brackets would overflow: such a
 * reply is the upstream's fault, a failed attempt like any malformed 2xx, not the gateway's 500.
 */
function translateReply<R>(translate: () => R): R {
  try {
    return translate();
  } catch (err) {
    if (err instanceof GatewayError) throw err;
    // The cause is named so that a translator bug, should one hide here, is not taken for the upstream's.
    const cause = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    throw new GatewayError('upstream_error', { message: `The upstream answered 200 with a body that could not be translated (${cause}).` });
  }
}

/**
 * Deeper than this a request is refused before translation: the translators walk it and the upstream
 * body is serialised again, which a few thousand levels of brackets would overflow. Tool schemas, the
 * deepest part of a real request, stay far below it.
 */
export const MAX_TRANSLATED_DEPTH = 128;

/**
 * Runs a request translator: a field with no faithful equivalent becomes a 400 naming it, and whatever
 * the translator adjusted is reported to the caller in `x-modelgate-adjusted`.
 */
function translateRequest<R extends { adjustments: string[] }>(body: unknown, translate: () => R, headers: Record<string, string>): R {
  if (nestedDeeperThan(body, MAX_TRANSLATED_DEPTH)) {
    throw new GatewayError('invalid_request', { message: `The request nests objects and arrays more than ${MAX_TRANSLATED_DEPTH} levels deep.` });
  }
  let result: R;
  try {
    result = translate();
  } catch (err) {
    if (err instanceof TranslationError) throw new GatewayError('invalid_request', { message: err.message, param: err.param });
    throw err;
  }
  if (result.adjustments.length) headers['x-modelgate-adjusted'] = headerSafe(result.adjustments.join('; '));
  return result;
}

/** OpenAI chat client → Anthropic-style upstream. */
export class ChatToAnthropicExchange implements Exchange {
  readonly upstreamDialect: Dialect = 'anthropic';
  readonly responseHeaders: Record<string, string> = {};
  #body: string;
  #jsonMode: JsonMode | null;
  #facts: RequestFacts;
  #created = Math.floor(Date.now() / 1000);

  #promptEstimate: () => number;
  #masker: TextMasker | undefined;

  constructor(opts: { parsed: Record<string, unknown>; facts: RequestFacts; upstreamModel: string; defaultMaxTokens: number; promptEstimate: () => number; structuredOutput?: 'tool' | 'native'; masker?: TextMasker }) {
    this.#facts = opts.facts;
    this.#masker = opts.masker;
    this.#promptEstimate = opts.promptEstimate;
    const r = translateRequest(
      opts.parsed,
      () => chatRequestToMessages(opts.parsed as ChatRequest, { upstreamModel: opts.upstreamModel, defaultMaxTokens: opts.defaultMaxTokens, structuredOutput: opts.structuredOutput }),
      this.responseHeaders,
    );
    this.#body = JSON.stringify(r.body);
    this.#jsonMode = r.jsonMode;
  }

  upstreamBody(): string {
    return this.#body;
  }

  json(upstreamText: string): { body: string; usage: Usage } {
    const msg = parseUpstream<Message>(upstreamText);
    return translateReply(() => {
      const chat = messagesResponseToChat(msg, { model: this.#facts.model, created: this.#created, jsonMode: this.#jsonMode ?? undefined });
      const usage = isObject(msg.usage) ? usageFromAnthropic(msg.usage, emptyUsage()) : estimatedReplyUsage(msg, 'anthropic', this.#promptEstimate);
      return { body: JSON.stringify(chat), usage };
    });
  }

  stream(): StreamRelay {
    const t = new MessagesStreamToChatStream({ model: this.#facts.model, created: this.#created, includeUsage: this.#facts.includeUsage, jsonMode: this.#jsonMode ?? undefined });
    return new TranslatedRelay({ translator: t, clientDialect: 'openai', masker: this.#masker });
  }
}

/** Anthropic messages client → OpenAI-compatible upstream. */
export class MessagesToOpenAIExchange implements Exchange {
  readonly upstreamDialect: Dialect = 'openai';
  readonly responseHeaders: Record<string, string> = {};
  #body: string;
  #facts: RequestFacts;
  #stopSequences: string[] | undefined;
  #promptEstimate: () => number;

  #masker: TextMasker | undefined;

  constructor(opts: { parsed: Record<string, unknown>; facts: RequestFacts; upstreamModel: string; promptEstimate: () => number; maxTokensField?: 'max_tokens' | 'max_completion_tokens'; masker?: TextMasker }) {
    this.#masker = opts.masker;
    this.#facts = opts.facts;
    this.#promptEstimate = opts.promptEstimate;
    const stops = opts.parsed.stop_sequences;
    this.#stopSequences = Array.isArray(stops) ? (stops as string[]) : undefined;
    const r = translateRequest(opts.parsed, () => messagesRequestToChat(opts.parsed as MessagesRequest, { upstreamModel: opts.upstreamModel, maxTokensField: opts.maxTokensField }), this.responseHeaders);
    this.#body = JSON.stringify(r.body);
  }

  upstreamBody(): string {
    return this.#body;
  }

  json(upstreamText: string): { body: string; usage: Usage } {
    const resp = parseUpstream<ChatCompletion>(upstreamText);
    return translateReply(() => {
      const msg = chatResponseToMessages(resp, { model: this.#facts.model, stopSequences: this.#stopSequences });
      return { body: JSON.stringify(msg), usage: usageFromOpenAi(resp.usage) ?? estimatedReplyUsage(resp, 'openai', this.#promptEstimate) };
    });
  }

  stream(): StreamRelay {
    const t = new ChatStreamToMessagesStream({ model: this.#facts.model, inputTokens: this.#promptEstimate(), stopSequences: this.#stopSequences });
    return new TranslatedRelay({ translator: t, clientDialect: 'anthropic', masker: this.#masker });
  }
}

class TranslatedRelay implements StreamRelay {
  #decoder = new SseDecoder();
  #t: StreamTranslator;
  #dialect: Dialect;
  #masker: TextMasker | undefined;

  constructor(opts: { translator: StreamTranslator; clientDialect: Dialect; masker?: TextMasker }) {
    this.#t = opts.translator;
    this.#dialect = opts.clientDialect;
    this.#masker = opts.masker;
  }

  /** An upstream's error event has the provider's credentials masked before the translator reads it. */
  #event(ev: SseEvent): string {
    if (this.#masker !== undefined && (ev.event === 'error' || ev.data.startsWith('{"error"'))) ev = { event: ev.event, data: this.#masker.mask(ev.data) };
    return this.#t.push(ev);
  }

  readonly encoding = 'utf8';

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
    // The translator's end() writes its own well-formed error ending when the upstream stopped early.
    return out + this.#t.end();
  }

  usage(): Usage {
    return this.#t.usage;
  }

  errorEvent(err: GatewayError, requestId: string): string {
    return renderStreamError(this.#dialect, err, requestId);
  }
}

function headerSafe(v: string): string {
  return v.replace(/[^\x20-\x7e]/g, '?').slice(0, 500);
}

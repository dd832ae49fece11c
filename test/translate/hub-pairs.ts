// The two cross-dialect pairs the gateway has always translated, each run through the hub: a client
// side's decoder joined to an upstream side's encoder (and back). The translator tests keep their
// cases against these, so every case exercises the hub's real path.
import type { HubReply, HubRequest } from '../../src/spec/form.ts';
import { SseDecoder, type SseEvent } from '../../src/core/sse.ts';
import type { Usage } from '../../src/core/usage.ts';
import { HubStreamTranslator } from '../../src/translate/hub/stream-translator.ts';
import { TranslatedExchange } from '../../src/translate/hub/translated-exchange.ts';
export { MAX_TRANSLATED_DEPTH } from '../../src/translate/hub/translated-exchange.ts';
import { chatClient, chatUpstream } from '../../src/dialects/openai-chat/index.ts';
import { messagesClient, messagesUpstream } from '../../src/dialects/anthropic-messages/index.ts';
import { ChatStreamDecoder } from '../../src/dialects/openai-chat/decode-stream.ts';
import { ChatStreamEncoder } from '../../src/dialects/openai-chat/encode-stream.ts';
import { MessagesStreamDecoder } from '../../src/dialects/anthropic-messages/decode-stream.ts';
import { MessagesStreamEncoder } from '../../src/dialects/anthropic-messages/encode-stream.ts';
import type { JsonMode, StructuredOutputMode } from '../../src/dialects/anthropic-messages/structured-output.ts';
import type { MessagesReplyState } from '../../src/dialects/anthropic-messages/encode-request.ts';
import type { ChatCompletion, ChatRequest } from '../../src/dialects/openai-chat/wire.ts';
import type { Message, MessagesRequest } from '../../src/dialects/anthropic-messages/wire.ts';
import { FINISH_REASON_TO_HUB, HUB_TO_FINISH_REASON } from '../../src/dialects/openai-chat/finish-reasons.ts';
import { HUB_TO_STOP_REASON, STOP_REASON_TO_HUB } from '../../src/dialects/anthropic-messages/stop-reasons.ts';
import type { FinishReason } from '../../src/dialects/openai-chat/wire.ts';
import type { StopReason } from '../../src/dialects/anthropic-messages/wire.ts';

export type * from '../../src/dialects/openai-chat/wire.ts';
export type * from '../../src/dialects/anthropic-messages/wire.ts';
export { TranslationError } from '../../src/spec/translation-error.ts';
export { LEADING_USER_PLACEHOLDER } from '../../src/dialects/anthropic-messages/encode-history.ts';
export { RAW_ARGUMENTS_KEY } from '../../src/dialects/anthropic-messages/encode-reply.ts';

export interface ChatToMessagesOptions {
  upstreamModel: string;
  defaultMaxTokens: number;
  structuredOutput?: StructuredOutputMode;
  refusedParams?: readonly string[];
}

/** chat request → hub → messages request. */
export function chatRequestToMessages(
  body: ChatRequest,
  opts: ChatToMessagesOptions,
): { body: MessagesRequest; adjustments: string[]; jsonMode: JsonMode | null; hub: HubRequest } {
  const hub = chatClient.decodeRequest(body as Record<string, unknown>);
  const out = messagesUpstream.encodeRequest(hub, { refusedParams: [], ...opts });
  return {
    body: JSON.parse(out.body) as MessagesRequest,
    adjustments: out.adjustments,
    jsonMode: (out.replyState as MessagesReplyState).jsonMode,
    hub,
  };
}

/** messages request → hub → chat request. */
export function messagesRequestToChat(
  body: MessagesRequest,
  opts: {
    upstreamModel: string;
    maxTokensField?: 'max_tokens' | 'max_completion_tokens';
    refusedParams?: readonly string[];
  },
): { body: ChatRequest; adjustments: string[]; hub: HubRequest } {
  const hub = messagesClient.decodeRequest(body as Record<string, unknown>);
  const out = chatUpstream.encodeRequest(hub, { defaultMaxTokens: 4096, refusedParams: [], ...opts });
  return { body: JSON.parse(out.body) as ChatRequest, adjustments: out.adjustments, hub };
}

function ctx(model: string, created: number, request: Partial<HubRequest> = {}, promptEstimate = 0) {
  const req: HubRequest = { system: [], messages: [], tools: [], stream: true, extra: {}, from: 'chat', ...request };
  return { model, created, request: req, promptEstimate: () => promptEstimate };
}

/** Anthropic Message → hub reply → chat.completion. */
export function messagesResponseToChat(
  msg: Message,
  opts: { model: string; created: number; jsonMode?: JsonMode | null },
): ChatCompletion {
  const reply: HubReply = messagesUpstream.decodeReply(msg as unknown as Record<string, unknown>, {
    jsonMode: opts.jsonMode ?? null,
  });
  return JSON.parse(chatClient.encodeReply(reply, ctx(opts.model, opts.created))) as ChatCompletion;
}

/** chat.completion → hub reply → Anthropic Message. */
export function chatResponseToMessages(
  resp: ChatCompletion,
  opts: { model: string; stopSequences?: string[] },
): Message {
  const reply = chatUpstream.decodeReply(resp as unknown as Record<string, unknown>, {
    stopSequences: opts.stopSequences,
  });
  return JSON.parse(messagesClient.encodeReply(reply, ctx(opts.model, 0))) as Message;
}

/** A hub stream translator with the old pair's face: push SSE events, read usage and how it ended. */
class PairStream {
  protected readonly t: HubStreamTranslator;
  constructor(t: HubStreamTranslator) {
    this.t = t;
  }
  push(ev: SseEvent): string {
    return this.t.push(ev);
  }
  end(): string {
    return this.t.end();
  }
  get usage(): Usage {
    return this.t.usage;
  }
  get finished(): boolean {
    return this.t.finished;
  }
  get failed(): boolean {
    return this.t.failed;
  }
}

export interface MessagesStreamToChatOptions {
  model: string;
  created: number;
  includeUsage: boolean;
  jsonMode?: JsonMode | null;
}

/** Anthropic upstream stream → hub events → chat chunks. */
export class MessagesStreamToChatStream extends PairStream {
  constructor(opts: MessagesStreamToChatOptions) {
    const c = ctx(opts.model, opts.created, { streamUsage: opts.includeUsage });
    super(
      new HubStreamTranslator({
        decoder: new MessagesStreamDecoder({ jsonMode: opts.jsonMode ?? null }),
        encoder: new ChatStreamEncoder(c),
        promptEstimate: c.promptEstimate,
      }),
    );
  }
}

export interface ChatStreamToMessagesOptions {
  model: string;
  inputTokens: number;
  stopSequences?: string[];
}

/** OpenAI-style upstream stream → hub events → Anthropic events. */
export class ChatStreamToMessagesStream extends PairStream {
  readonly #decoder: ChatStreamDecoder;
  constructor(opts: ChatStreamToMessagesOptions) {
    const decoder = new ChatStreamDecoder({ stopSequences: opts.stopSequences });
    const c = ctx(opts.model, 0, { from: 'messages' }, Math.max(1, Math.round(opts.inputTokens)));
    super(
      new HubStreamTranslator({ decoder, encoder: new MessagesStreamEncoder(c), promptEstimate: c.promptEstimate }),
    );
    this.#decoder = decoder;
  }
  get lateFragments(): number {
    return this.#decoder.lateFragments;
  }
}

/** The stop and finish tables as the two dialects compose them through the hub's finish reasons. */
export const STOP_REASON_TO_FINISH_REASON: Record<StopReason, FinishReason> = Object.fromEntries(
  Object.entries(STOP_REASON_TO_HUB).map(([stop, hub]) => [stop, HUB_TO_FINISH_REASON[hub]]),
) as Record<StopReason, FinishReason>;
export const FINISH_REASON_TO_STOP_REASON: Record<FinishReason, StopReason> = Object.fromEntries(
  Object.entries(FINISH_REASON_TO_HUB).map(([finish, hub]) => [finish, HUB_TO_STOP_REASON[hub]]),
) as Record<FinishReason, StopReason>;

interface ExchangeOptions {
  parsed: Record<string, unknown>;
  facts: { model: string };
  upstreamModel: string;
  promptEstimate: () => number;
  defaultMaxTokens?: number;
  structuredOutput?: StructuredOutputMode;
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  refusedParams?: readonly string[];
}

function upstreamOptions(opts: ExchangeOptions) {
  return {
    upstreamModel: opts.upstreamModel,
    defaultMaxTokens: opts.defaultMaxTokens ?? 4096,
    refusedParams: opts.refusedParams ?? [],
    structuredOutput: opts.structuredOutput,
    maxTokensField: opts.maxTokensField,
  };
}

/** The hub's translated exchange for a chat client and an Anthropic-style upstream, as exchange-for.ts builds it. */
export class ChatToAnthropicExchange extends TranslatedExchange {
  constructor(opts: ExchangeOptions) {
    super({
      client: chatClient,
      upstream: messagesUpstream,
      clientDialect: 'openai',
      upstreamDialect: 'anthropic',
      parsed: opts.parsed,
      model: opts.facts.model,
      promptEstimate: opts.promptEstimate,
      upstreamOptions: upstreamOptions(opts),
      frames: () => new SseDecoder(),
    });
  }
}

/** The hub's translated exchange for a messages client and an OpenAI-style upstream. */
export class MessagesToOpenAIExchange extends TranslatedExchange {
  constructor(opts: ExchangeOptions) {
    super({
      client: messagesClient,
      upstream: chatUpstream,
      clientDialect: 'anthropic',
      upstreamDialect: 'openai',
      parsed: opts.parsed,
      model: opts.facts.model,
      promptEstimate: opts.promptEstimate,
      upstreamOptions: upstreamOptions(opts),
      frames: () => new SseDecoder(),
    });
  }
}

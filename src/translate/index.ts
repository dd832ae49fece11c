// The translation core: pure functions between the OpenAI chat-completions and Anthropic messages dialects.
// No I/O anywhere in this folder. Mapping table, defaults and what cannot be translated: docs/translation.md.
//
// Direction 1 — client speaks OpenAI chat, upstream is Anthropic-style:
//   chatRequestToMessages(body, { upstreamModel, defaultMaxTokens, structuredOutput? })
//     → { body: MessagesRequest, adjustments: string[], jsonMode: JsonMode | null }
//     `adjustments` lists what was changed or dropped (e.g. 'temperature clamped to 1'); surface it in a
//     response header. Pass `jsonMode` on to the reply translator below.
//   messagesResponseToChat(msg, { model, created, jsonMode? }) → ChatCompletion
//   new MessagesStreamToChatStream({ model, created, includeUsage, jsonMode? })
//     .push(ev: SseEvent) → SSE text for the client ('' if none); .end() → flush: an error chunk + [DONE] if
//     the upstream stopped before message_stop; .usage (cumulative), .finished, .failed.
// Direction 2 — client speaks Anthropic messages, upstream is OpenAI-compatible:
//   messagesRequestToChat(body, { upstreamModel, maxTokensField? }) → { body: ChatRequest, adjustments }
//     When body.stream is true the upstream is asked for usage (stream_options.include_usage = true).
//   chatResponseToMessages(resp, { model, stopSequences? }) → Message
//   new ChatStreamToMessagesStream({ model, inputTokens, stopSequences? })
//     inputTokens: the estimate counted before the first event, shown in message_start (never 0);
//     .push(ev) / .end() as above; .end() without a finish_reason upstream → `event: error`.
// Errors:
//   upstreamErrorToDialect({ upstreamKind, clientDialect, status, bodyText })
//     → { status, type, message, code, param }   (status is what to answer the client, per DESIGN.md)
//   TranslationError (status 400, `param` names the field) is thrown by the request translators for
//   anything with no faithful equivalent in the target dialect.
// `model` in every reply, chunk and event is opts.model (the name the client asked for); ids are fresh
// `chatcmpl-…` / `msg_…`; `created` is opts.created (unix seconds).

export type * from './wire-openai.ts';
export type * from './wire-anthropic.ts';
export { chatRequestToMessages } from './chat-request-to-messages.ts';
export type { ChatToMessagesOptions, ChatToMessagesResult } from './chat-request-to-messages.ts';
export { chatHistoryToMessages, LEADING_USER_PLACEHOLDER } from './chat-history-to-messages.ts';
export { messagesResponseToChat } from './messages-response-to-chat.ts';
export type { MessagesToChatOptions } from './messages-response-to-chat.ts';
export { MessagesStreamToChatStream } from './messages-stream-to-chat-stream.ts';
export type { MessagesStreamToChatOptions } from './messages-stream-to-chat-stream.ts';
export { messagesRequestToChat } from './messages-request-to-chat.ts';
export type { MessagesToChatRequestOptions, MessagesToChatRequestResult } from './messages-request-to-chat.ts';
export { chatResponseToMessages, RAW_ARGUMENTS_KEY } from './chat-response-to-messages.ts';
export type { ChatToMessagesResponseOptions } from './chat-response-to-messages.ts';
export { ChatStreamToMessagesStream } from './chat-stream-to-messages-stream.ts';
export type { ChatStreamToMessagesOptions } from './chat-stream-to-messages-stream.ts';
export { upstreamErrorToDialect, clientStatusFor, maskSecrets, ANTHROPIC_ERROR_STATUS } from './upstream-error.ts';
export type { DialectError, UpstreamErrorOptions } from './upstream-error.ts';
export { STOP_REASON_TO_FINISH_REASON, FINISH_REASON_TO_STOP_REASON, finishReasonFor, stopReasonFor } from './stop-reasons.ts';
export { EFFORT_TO_THINKING_BUDGET, MIN_THINKING_BUDGET, effortForBudget, effortForThinking } from './reasoning.ts';
export { JSON_TOOL_BASE_NAME } from './structured-output.ts';
export type { JsonMode, StructuredOutputMode } from './structured-output.ts';
export { usageFromAnthropic, usageFromOpenAi, usageToAnthropic, usageToOpenAi } from './usage-map.ts';
export { TranslationError } from './translation-error.ts';

// The hub's internal form of a generation request: every dialect decodes its requests into it and encodes
// it into its upstream requests, so no pair of dialects is ever written twice. Shaped after
// the Vercel AI SDK's LanguageModelV3 prompt, with the inbound direction and cache markers added.
// Contract: a decoder refuses (TranslationError, a 400 naming the client's field) only what the form
// cannot hold; an encoder leaves out what its wire cannot carry and names it in `adjustments`, or
// refuses it when dropping it would change the meaning. Message order is the conversation's order;
// decoders do not repair history (merging turns, pairing tool results): the encoder whose upstream
// needs it does.
import type { Usage } from '../core/usage.ts';

/** Every dialect the hub speaks; each is one folder under src/dialects/. */
export type HubDialect = 'chat' | 'messages' | 'responses' | 'gemini';

/** A prompt-cache breakpoint (Anthropic `cache_control`, also sent by OpenAI-style clients such as OpenRouter's). */
export interface CacheMarker {
  type: 'ephemeral';
  ttl?: string;
}

export interface TextPart {
  type: 'text';
  text: string;
  cache?: CacheMarker;
  /** Anthropic citations on a text block; other dialects cannot carry them. */
  citations?: unknown[];
}

/** Images and documents alike: the media type says which. */
export interface FilePart {
  type: 'file';
  mediaType: string;
  data: { base64: string } | { url: string } | { fileId: string } | { text: string };
  filename?: string;
  title?: string;
  /** Anthropic document `context`; OpenAI image `detail`. */
  context?: string;
  detail?: string;
  cache?: CacheMarker;
}

/**
 * Model reasoning. Only the dialect that produced it can verify `signature`, `redacted` or `encrypted`,
 * so `origin` names it and an encoder of another dialect drops what it cannot vouch for.
 */
export interface ReasoningPart {
  type: 'reasoning';
  text: string;
  origin?: HubDialect;
  /** Anthropic thinking signature, Gemini thought signature. */
  signature?: string;
  /** Anthropic `redacted_thinking` data. */
  redacted?: string;
  /** OpenAI Responses `encrypted_content`, with the reasoning item's id. */
  encrypted?: string;
  id?: string;
}

export interface ToolCallPart {
  type: 'tool-call';
  id: string;
  name: string;
  /** The arguments as JSON text (a `custom` tool's free-form input as it was written). */
  input: string;
  /** `custom` tools (free-form input, e.g. Codex's apply_patch) are carried as a function with one string parameter. */
  kind?: 'function' | 'custom';
  cache?: CacheMarker;
  /** Gemini thought signature of a function call. */
  signature?: string;
}

export interface ToolResultPart {
  type: 'tool-result';
  callId: string;
  name?: string;
  content: Array<TextPart | FilePart>;
  isError?: boolean;
  cache?: CacheMarker;
  /** The client sent the content as one bare string (content holds one text part, or none for ''). */
  plainText?: boolean;
}

export type UserPart = TextPart | FilePart;
export type AssistantPart = TextPart | FilePart | ReasoningPart | ToolCallPart;

export type HubMessage =
  /** A system message inside the conversation, kept at its position (Claude Code sends one). */
  | { role: 'system'; content: TextPart[] }
  /** `name`: chat's speaker name; dialects without one name it in adjustments. */
  | { role: 'user'; content: UserPart[]; name?: string }
  | { role: 'assistant'; content: AssistantPart[] }
  | { role: 'tool'; content: ToolResultPart[] };

export interface HubTool {
  name: string;
  description?: string;
  /** JSON Schema of the input; a `custom` tool has none. */
  inputSchema?: Record<string, unknown>;
  kind: 'function' | 'custom';
  /** A custom tool's grammar or format, kept for the dialect that understands it. */
  format?: unknown;
  strict?: boolean;
  cache?: CacheMarker;
}

export type HubToolChoice = { type: 'auto' } | { type: 'none' } | { type: 'required' } | { type: 'tool'; name: string };

export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';

export interface HubReasoning {
  effort?: ReasoningEffort;
  /** Anthropic `thinking.budget_tokens`, Gemini `thinkingBudget`. */
  budgetTokens?: number;
  /** Anthropic adaptive thinking. */
  adaptive?: boolean;
  /** Whether the client wants reasoning text back (Responses `summary`, Gemini `includeThoughts`). */
  summary?: 'auto' | 'concise' | 'detailed';
  /** Responses `include: ["reasoning.encrypted_content"]`. */
  includeEncrypted?: boolean;
}

export type HubResponseFormat =
  | { type: 'text' }
  | { type: 'json'; schema?: Record<string, unknown>; name?: string; description?: string; strict?: boolean };

export interface HubRequest {
  /** Top-level system prompt (chat's leading system messages, messages' `system`, Responses `instructions`). */
  system: TextPart[];
  messages: HubMessage[];
  tools: HubTool[];
  toolChoice?: HubToolChoice;
  parallelToolCalls?: boolean;
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  stopSequences?: string[];
  stream: boolean;
  /** The client asked for usage in the stream (chat's `stream_options.include_usage`). */
  streamUsage?: boolean;
  responseFormat?: HubResponseFormat;
  reasoning?: HubReasoning;
  /** End-user id (chat `user`, Anthropic `metadata.user_id`). */
  user?: string;
  metadata?: Record<string, string>;
  /** Top-level automatic cache marker (Anthropic `cache_control` on the request). */
  cache?: CacheMarker;
  /**
   * Fields of the client's dialect with no hub equivalent, by name, so the upstream encoder of the same
   * family may carry them and any other encoder names them in `x-modelgate-adjusted`.
   */
  extra: Record<string, unknown>;
  /** Which dialect decoded it: an encoder keeps what only that dialect can vouch for. */
  from: HubDialect;
}

export type FinishReason =
  | 'stop'
  | 'stop-sequence'
  | 'length'
  | 'tool-calls'
  | 'content-filter'
  | 'refusal'
  | 'pause'
  | 'context-window'
  | 'error'
  | 'other';

/** A whole reply: the fold of its stream's events (events.ts, hub/fold.ts). */
export interface HubReply {
  id?: string;
  content: AssistantPart[];
  finish: FinishReason;
  /** The matched stop sequence when finish is `stop-sequence`. */
  stopSequence?: string;
  /** What the upstream reported (zeros when it reported nothing; see usageMissing). */
  usage: HubUsage;
  /** The upstream's reply carried no usage: the hub bills its own estimate instead. */
  usageMissing?: boolean;
}

/**
 * An upstream's error as read from its body or in-stream event, before it is shaped for the caller
 * (hub/upstream-error.ts). `type`/`code`/`param` are the upstream dialect's own words.
 */
export interface UpstreamError {
  from: HubDialect;
  /** The upstream's HTTP status (for in-stream errors, the one its error type stands for). */
  status: number;
  message?: string;
  type?: string;
  code?: string;
  param?: string;
}

/** Billing usage plus what replies show but budgets do not need apart. */
export interface HubUsage extends Usage {
  /** Output tokens spent reasoning (already inside outputTokens). */
  reasoningTokens?: number;
}

// Wire types of the OpenAI chat-completions dialect as the translators read and write them.
// Loose on purpose: fields the gateway does not translate stay `unknown` so nothing fails to parse.

/**
 * Gateway extension (LiteLLM's name): an Anthropic reply's thinking and redacted_thinking blocks, each
 * with its own signature, so a client that echoes them back keeps every block valid.
 */
export type ChatThinkingBlock =
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string };

export type ChatRole = 'system' | 'developer' | 'user' | 'assistant' | 'tool' | 'function';

export interface ChatTextPart {
  type: 'text';
  text: string;
}

export interface ChatImagePart {
  type: 'image_url';
  image_url: { url: string; detail?: string };
}

export interface ChatFilePart {
  type: 'file';
  file: { file_data?: string; file_id?: string; filename?: string };
}

/** A part type the gateway cannot translate (input_audio, refusal in user turns, …). */
export interface ChatOtherPart {
  type: string;
  [key: string]: unknown;
}

export type ChatContentPart = ChatTextPart | ChatImagePart | ChatFilePart | ChatOtherPart;

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatMessage {
  role: ChatRole;
  content?: string | ChatContentPart[] | null;
  name?: string;
  tool_calls?: ChatToolCall[];
  tool_call_id?: string;
  refusal?: string | null;
  /** DeepSeek/vLLM-style reasoning text; the gateway uses it for Anthropic thinking blocks. */
  reasoning_content?: string | null;
  /** Gateway extension: the Anthropic thinking signature, so a thinking block survives a round trip. */
  reasoning_signature?: string | null;
  /** OpenRouter-style reasoning text, read on replies from OpenAI-compatible upstreams. */
  reasoning?: string | null;
  thinking_blocks?: ChatThinkingBlock[] | null;
}

export interface ChatFunctionTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean | null };
}

export type ChatToolChoice =
  | 'auto'
  | 'none'
  | 'required'
  | { type: 'function'; function: { name: string } }
  | { type: string; [key: string]: unknown };

export type ChatResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | {
      type: 'json_schema';
      json_schema: { name: string; description?: string; schema?: Record<string, unknown>; strict?: boolean | null };
    };

export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  /** Not in the OpenAI schema but sent by some clients for Anthropic-style targets. */
  top_k?: number | null;
  n?: number | null;
  stop?: string | string[] | null;
  stream?: boolean | null;
  stream_options?: { include_usage?: boolean; [key: string]: unknown } | null;
  tools?: ChatFunctionTool[] | Array<{ type: string; [key: string]: unknown }>;
  tool_choice?: ChatToolChoice;
  parallel_tool_calls?: boolean | null;
  response_format?: ChatResponseFormat | { type: string; [key: string]: unknown };
  reasoning_effort?: ReasoningEffort | null;
  user?: string;
  [key: string]: unknown;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call';

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number; [key: string]: unknown } | null;
  completion_tokens_details?: { reasoning_tokens?: number; [key: string]: unknown } | null;
  [key: string]: unknown;
}

export interface ChatResponseMessage {
  role: 'assistant';
  content: string | null;
  refusal: string | null;
  tool_calls?: ChatToolCall[];
  reasoning_content?: string | null;
  reasoning_signature?: string | null;
  reasoning?: string | null;
  thinking_blocks?: ChatThinkingBlock[];
}

export interface ChatChoice {
  index: number;
  message: ChatResponseMessage;
  logprobs: null;
  finish_reason: FinishReason | null;
  /** vLLM extension: the matched stop string (or token id) when finish_reason is stop. */
  stop_reason?: string | number | null;
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: ChatChoice[];
  usage?: ChatUsage | null;
  system_fingerprint?: string | null;
}

export interface ChatToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
}

export interface ChatDelta {
  role?: 'assistant';
  content?: string | null;
  refusal?: string | null;
  tool_calls?: ChatToolCallDelta[];
  reasoning_content?: string | null;
  reasoning_signature?: string | null;
  reasoning?: string | null;
  thinking_blocks?: ChatThinkingBlock[];
}

export interface ChatChunkChoice {
  index: number;
  delta: ChatDelta;
  logprobs?: null;
  finish_reason: FinishReason | null;
  stop_reason?: string | number | null;
}

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: ChatChunkChoice[];
  usage?: ChatUsage | null;
}

export interface ChatErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

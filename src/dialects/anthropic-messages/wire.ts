// Wire types of the Anthropic messages dialect as the translators read and write them.
// Loose on purpose: block and field kinds the gateway does not translate stay open so nothing fails to parse.

export interface CacheControl {
  type: 'ephemeral';
  ttl?: string;
}

export interface TextBlock {
  type: 'text';
  text: string;
  cache_control?: CacheControl | null;
  citations?: unknown[] | null;
}

export type ImageSource = { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };

export interface ImageBlock {
  type: 'image';
  source: ImageSource;
  cache_control?: CacheControl | null;
}

export interface DocumentBlock {
  type: 'document';
  source: { type: string; media_type?: string; data?: string; url?: string; [key: string]: unknown };
  title?: string | null;
  context?: string | null;
  cache_control?: CacheControl | null;
}

export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
  cache_control?: CacheControl | null;
  caller?: { type: string };
}

export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | Array<TextBlock | ImageBlock | DocumentBlock | OtherBlock>;
  is_error?: boolean;
  cache_control?: CacheControl | null;
}

export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}

export interface RedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

/** Server-tool blocks, search results and anything newer than this file. */
export interface OtherBlock {
  type: string;
  [key: string]: unknown;
}

export type ContentBlock =
  | TextBlock
  | ImageBlock
  | DocumentBlock
  | ToolUseBlock
  | ToolResultBlock
  | ThinkingBlock
  | RedactedThinkingBlock
  | OtherBlock;

export interface MessageParam {
  role: 'user' | 'assistant';
  content: string | ContentBlock[];
}

export interface AnthropicTool {
  type?: string | null;
  name: string;
  description?: string;
  input_schema?: Record<string, unknown>;
  cache_control?: CacheControl | null;
  [key: string]: unknown;
}

export type AnthropicToolChoice =
  | { type: 'auto'; disable_parallel_tool_use?: boolean }
  | { type: 'any'; disable_parallel_tool_use?: boolean }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean }
  | { type: 'none' };

export type ThinkingConfig =
  | { type: 'enabled'; budget_tokens: number; display?: string | null }
  | { type: 'disabled' }
  | { type: 'adaptive'; display?: string | null };

export type EffortLevel = 'low' | 'medium' | 'high' | 'xhigh' | 'max';

export interface OutputConfig {
  effort?: EffortLevel | null;
  format?: { type: 'json_schema'; schema: Record<string, unknown> } | null;
}

export interface MessagesRequest {
  model: string;
  messages: MessageParam[];
  max_tokens: number;
  system?: string | TextBlock[];
  temperature?: number;
  top_p?: number;
  top_k?: number;
  stop_sequences?: string[];
  stream?: boolean;
  tools?: AnthropicTool[];
  tool_choice?: AnthropicToolChoice;
  thinking?: ThinkingConfig;
  output_config?: OutputConfig;
  metadata?: { user_id?: string | null };
  [key: string]: unknown;
}

export type StopReason =
  | 'end_turn'
  | 'max_tokens'
  | 'stop_sequence'
  | 'tool_use'
  | 'pause_turn'
  | 'refusal'
  | 'model_context_window_exceeded';

export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  [key: string]: unknown;
}

export interface Message {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: ContentBlock[];
  stop_reason: StopReason | null;
  stop_sequence: string | null;
  usage: AnthropicUsage;
  [key: string]: unknown;
}

export interface AnthropicErrorBody {
  type: 'error';
  error: { type: string; message: string };
  request_id?: string | null;
}

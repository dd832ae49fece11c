// Direction 2, request: an Anthropic messages body → an OpenAI chat-completions body for an OpenAI-compatible
// upstream. Callers' alternation has already been validated (400 before translation), so turns map one to
// one, except that a user turn's tool_result blocks become `role:"tool"` messages ahead of its other content.
import type { ContentBlock, EffortLevel, MessageParam, MessagesRequest, TextBlock, ThinkingConfig } from './wire-anthropic.ts';
import type { ChatContentPart, ChatFunctionTool, ChatMessage, ChatRequest, ChatToolCall, ChatToolChoice, ReasoningEffort } from './wire-openai.ts';
import { sourceToImageUrl } from './images.ts';
import { isObject, num, str } from './narrow.ts';
import { effortForThinking } from './reasoning.ts';
import { TranslationError } from './translation-error.ts';

export interface MessagesToChatRequestOptions {
  /** The model name the deployment sends upstream. */
  upstreamModel: string;
  /** Which field carries the limit; `max_tokens` is what most OpenAI-compatible servers accept. */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
}

export interface MessagesToChatRequestResult {
  body: ChatRequest;
  adjustments: string[];
}

/** Messages fields with no chat equivalent; dropped with no error, and named in adjustments. */
const DROPPED_FIELDS = ['top_k', 'service_tier', 'container', 'inference_geo', 'cache_control', 'mcp_servers', 'context_management'] as const;

function systemOf(system: MessagesRequest['system']): string | undefined {
  if (system === undefined || system === null) return undefined;
  if (typeof system === 'string') return system.length > 0 ? system : undefined;
  if (!Array.isArray(system)) throw new TranslationError('system', 'system must be a string or an array of text blocks');
  const text = system.map((b: unknown, i) => {
    if (!isObject(b) || b.type !== 'text') throw new TranslationError(`system[${i}].type`, 'system blocks must be text');
    const t = str(b.text);
    if (t === undefined) throw new TranslationError(`system[${i}].text`, 'text must be a string');
    return t;
  });
  return text.length > 0 ? text.join('\n\n') : undefined;
}

function userPart(block: ContentBlock, param: string): ChatContentPart {
  if (block.type === 'text') return { type: 'text', text: textOf(block, param) };
  if (block.type === 'image' && isObject(block.source)) {
    const src = block.source;
    if (src.type === 'base64' && typeof src.media_type === 'string' && typeof src.data === 'string') {
      return { type: 'image_url', image_url: { url: sourceToImageUrl({ type: 'base64', media_type: src.media_type, data: src.data }) } };
    }
    if (src.type === 'url' && typeof src.url === 'string') return { type: 'image_url', image_url: { url: src.url } };
  }
  if (block.type === 'document' && isObject(block.source)) {
    const src = block.source;
    if (src.type === 'text' && typeof src.data === 'string') return { type: 'text', text: src.data };
    if (src.type === 'base64' && src.media_type === 'application/pdf' && typeof src.data === 'string') {
      const file: { file_data: string; filename?: string } = { file_data: `data:application/pdf;base64,${src.data}` };
      if (typeof block.title === 'string') file.filename = block.title;
      return { type: 'file', file };
    }
  }
  throw new TranslationError(`${param}.type`, `content block ${String(block.type)} cannot be sent to this model`);
}

/** A text block's text; anything else is a 400 here rather than a bad request upstream. */
function textOf(block: ContentBlock, param: string): string {
  const text = str((block as TextBlock).text);
  if (text === undefined) throw new TranslationError(`${param}.text`, 'text must be a string');
  return text;
}

/** The content blocks of a turn, each checked to be an object. */
function blocksOf(content: unknown, param: string): ContentBlock[] {
  if (!Array.isArray(content)) throw new TranslationError(param, 'content must be a string or an array of content blocks');
  content.forEach((block: unknown, i) => {
    if (!isObject(block)) throw new TranslationError(`${param}[${i}]`, 'each content block must be an object');
  });
  return content as ContentBlock[];
}

function toolResultText(content: unknown, param: string, images: ChatContentPart[]): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw new TranslationError(param, 'tool_result content must be a string or blocks');
  const texts: string[] = [];
  content.forEach((b: unknown, i) => {
    if (!isObject(b)) return;
    // Chat tool messages hold text only, so images ride in a user message right after the tool results.
    if (b.type === 'image') images.push(userPart(b as ContentBlock, `${param}[${i}]`));
    else if (b.type === 'text') texts.push(textOf(b as ContentBlock, `${param}[${i}]`));
    else throw new TranslationError(`${param}[${i}].type`, `tool_result block ${String(b.type)} cannot be sent to this model`);
  });
  // Separate blocks are separate pieces of the result (rows, files): a line between them, as for user text.
  return texts.join('\n');
}

function userMessages(msg: MessageParam, param: string, adjustments: string[]): ChatMessage[] {
  if (typeof msg.content === 'string') return [{ role: 'user', content: msg.content }];
  const tools: ChatMessage[] = [];
  const parts: ChatContentPart[] = [];
  const images: ChatContentPart[] = [];
  blocksOf(msg.content, `${param}.content`).forEach((block, i) => {
    const at = `${param}.content[${i}]`;
    if (block.type === 'tool_result') {
      const text = toolResultText(block.content, `${at}.content`, images);
      // Chat has no error flag on tool messages; the marker keeps the meaning visible to the model.
      const content = block.is_error === true ? `[tool error] ${text}` : text;
      tools.push({ role: 'tool', tool_call_id: str(block.tool_use_id) ?? '', content });
    } else {
      parts.push(userPart(block, at));
    }
  });
  if (images.length > 0) adjustments.push(`${param}: tool_result images moved to a user message`);
  const rest = [...images, ...parts];
  if (rest.length === 0) return tools;
  const onlyText = rest.every((p) => p.type === 'text');
  const content = onlyText ? rest.map((p) => (p.type === 'text' ? String(p.text) : '')).join('\n') : rest;
  return [...tools, { role: 'user', content }];
}

function assistantMessage(msg: MessageParam, param: string): ChatMessage {
  if (typeof msg.content === 'string') return { role: 'assistant', content: msg.content };
  const blocks = blocksOf(msg.content, `${param}.content`);
  const toolCalls: ChatToolCall[] = [];
  let text = '';
  blocks.forEach((block, i) => {
    const at = `${param}.content[${i}]`;
    if (block.type === 'tool_use') {
      const name = str(block.name);
      if (name === undefined) throw new TranslationError(`${at}.name`, 'tool_use name must be a string');
      const input = isObject(block.input) ? block.input : {};
      toolCalls.push({ id: str(block.id) ?? '', type: 'function', function: { name, arguments: JSON.stringify(input) } });
    } else if (block.type === 'text') text += textOf(block, at);
    // Thinking blocks are signed by Anthropic for Anthropic; an OpenAI-compatible upstream cannot use them.
    else if (block.type !== 'thinking' && block.type !== 'redacted_thinking') {
      throw new TranslationError(`${at}.type`, `content block ${String(block.type)} cannot be sent to this model`);
    }
  });
  const out: ChatMessage = { role: 'assistant', content: text.length === 0 && toolCalls.length > 0 ? null : text };
  if (toolCalls.length > 0) out.tool_calls = toolCalls;
  return out;
}

function toolsOf(tools: unknown): ChatFunctionTool[] | undefined {
  if (tools === undefined || tools === null) return undefined;
  if (!Array.isArray(tools)) throw new TranslationError('tools', 'tools must be an array');
  return tools.map((t: unknown, i): ChatFunctionTool => {
    if (!isObject(t) || (t.type !== undefined && t.type !== null && t.type !== 'custom')) {
      const type = isObject(t) ? String(t.type) : 'unknown';
      throw new TranslationError(`tools[${i}].type`, `server tool ${type} cannot be used with this deployment`);
    }
    const name = str(t.name);
    if (name === undefined) throw new TranslationError(`tools[${i}].name`, 'tool name is required');
    const parameters = isObject(t.input_schema) ? t.input_schema : { type: 'object', properties: {} };
    const fn: ChatFunctionTool['function'] = { name, parameters };
    const description = str(t.description);
    if (description !== undefined) fn.description = description;
    return { type: 'function', function: fn };
  });
}

function toolChoiceOf(choice: unknown, out: ChatRequest): void {
  if (!isObject(choice)) return;
  if (choice.disable_parallel_tool_use === true) out.parallel_tool_calls = false;
  let mapped: ChatToolChoice;
  if (choice.type === 'auto') mapped = 'auto';
  else if (choice.type === 'any') mapped = 'required';
  else if (choice.type === 'none') mapped = 'none';
  else if (choice.type === 'tool' && str(choice.name) !== undefined) mapped = { type: 'function', function: { name: choice.name as string } };
  else throw new TranslationError('tool_choice.type', `tool_choice ${String(choice.type)} is not supported`);
  out.tool_choice = mapped;
}

const EFFORT_LEVELS: ReadonlySet<unknown> = new Set<EffortLevel>(['low', 'medium', 'high', 'xhigh', 'max']);
const THINKING_TYPES: ReadonlySet<unknown> = new Set(['enabled', 'disabled', 'adaptive']);

/** reasoning_effort for the request's thinking and effort settings, which are checked here: they become a field upstream. */
function reasoningOf(thinking: unknown, effort: unknown): ReasoningEffort | undefined {
  if (effort !== undefined && effort !== null && !EFFORT_LEVELS.has(effort)) {
    throw new TranslationError('output_config.effort', 'effort must be one of low, medium, high, xhigh, max');
  }
  if (thinking === undefined || thinking === null) return effortForThinking(undefined, effort as EffortLevel | null | undefined);
  if (!isObject(thinking) || !THINKING_TYPES.has(thinking.type)) {
    throw new TranslationError('thinking.type', 'thinking.type must be enabled, disabled or adaptive');
  }
  if (thinking.type === 'enabled' && num(thinking.budget_tokens) === undefined) {
    throw new TranslationError('thinking.budget_tokens', 'thinking.budget_tokens must be a number');
  }
  return effortForThinking(thinking as unknown as ThinkingConfig, effort as EffortLevel | null | undefined);
}

export function messagesRequestToChat(body: MessagesRequest, opts: MessagesToChatRequestOptions): MessagesToChatRequestResult {
  if (!isObject(body) || !Array.isArray(body.messages)) throw new TranslationError('messages', 'messages must be an array');
  const adjustments: string[] = [];
  const messages: ChatMessage[] = [];
  const system = systemOf(body.system);
  if (system !== undefined) messages.push({ role: 'system', content: system });
  body.messages.forEach((msg, i) => {
    const param = `messages[${i}]`;
    if (!isObject(msg)) throw new TranslationError(param, 'each message must be an object');
    if (msg.role === 'user') messages.push(...userMessages(msg, param, adjustments));
    else if (msg.role === 'assistant') messages.push(assistantMessage(msg, param));
    else throw new TranslationError(`${param}.role`, 'role must be user or assistant');
  });

  // A final assistant turn is a prefill Anthropic continues; an OpenAI-style model answers it instead.
  const final = messages.at(-1);
  if (final?.role === 'assistant' && typeof final.content === 'string' && final.content.length > 0) {
    adjustments.push('final assistant message sent as history: the upstream answers it rather than continuing it');
  }
  const out: ChatRequest = { model: opts.upstreamModel, messages };
  out[opts.maxTokensField ?? 'max_tokens'] = body.max_tokens;
  const temperature = num(body.temperature);
  if (temperature !== undefined) out.temperature = temperature;
  const topP = num(body.top_p);
  if (topP !== undefined) out.top_p = topP;
  if (Array.isArray(body.stop_sequences) && body.stop_sequences.length > 0) out.stop = body.stop_sequences;
  if (body.stream === true) {
    out.stream = true;
    // Usage is always recorded, so the upstream is asked for it even when the client cannot see it.
    out.stream_options = { include_usage: true };
  }
  const tools = toolsOf(body.tools);
  if (tools !== undefined && tools.length > 0) {
    out.tools = tools;
    toolChoiceOf(body.tool_choice, out);
  }
  const config: unknown = body.output_config;
  if (config !== undefined && config !== null && !isObject(config)) throw new TranslationError('output_config', 'output_config must be an object');
  const effort = reasoningOf(body.thinking, isObject(config) ? config.effort : undefined);
  if (effort !== undefined) out.reasoning_effort = effort;
  const format = isObject(config) ? config.format : undefined;
  if (isObject(format) && isObject(format.schema)) {
    out.response_format = { type: 'json_schema', json_schema: { name: 'output', schema: format.schema } };
  }
  const user = isObject(body.metadata) ? str(body.metadata.user_id) : undefined;
  if (user !== undefined) out.user = user;
  for (const field of DROPPED_FIELDS) {
    if (body[field] !== undefined && body[field] !== null) adjustments.push(`${field} dropped`);
  }
  return { body: out, adjustments };
}

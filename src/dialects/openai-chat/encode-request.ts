// The hub's request → a chat-completions body for an OpenAI-compatible upstream. Each hub message maps
// to one chat message, except that a tool message's results become one `tool` message each; images in a
// tool result ride in a user message right after (chat tool messages hold text only). Thinking blocks
// and cache markers have no place here and are left out.
import type { EncodedRequest, UpstreamOptions } from '../../spec/codec.ts';
import type { FilePart, HubMessage, HubRequest, HubToolChoice, TextPart, UserPart } from '../../spec/form.ts';
import { refusedParam } from '../../spec/refused-params.ts';
import { TranslationError } from '../../spec/translation-error.ts';
import { CUSTOM_TOOL_SCHEMA, wrapCustomInput } from '../../spec/custom-tool.ts';
import type {
  ChatContentPart,
  ChatFunctionTool,
  ChatMessage,
  ChatRequest,
  ChatToolCall,
  ChatToolChoice,
} from './wire.ts';

/** What the reply decoders must know of how the request was written. */
export interface ChatReplyState {
  /** The client's stop sequences, to report which one ended the text. */
  stopSequences: readonly string[] | undefined;
}

function joinText(parts: readonly TextPart[], separator: string): string {
  return parts.map((p) => p.text).join(separator);
}

function filePart(part: FilePart): ChatContentPart {
  const data = part.data;
  if ('text' in data) return { type: 'text', text: data.text };
  if (part.mediaType === 'application/pdf' && 'base64' in data) {
    const file: { file_data: string; filename?: string } = { file_data: `data:application/pdf;base64,${data.base64}` };
    const name = part.title ?? part.filename;
    if (name !== undefined) file.filename = name;
    return { type: 'file', file };
  }
  if (part.mediaType.startsWith('image/')) {
    if ('base64' in data)
      return { type: 'image_url', image_url: { url: `data:${part.mediaType};base64,${data.base64}` } };
    if ('url' in data) return { type: 'image_url', image_url: { url: data.url } };
  }
  throw new TranslationError('messages', `a ${part.mediaType} file of this form cannot be sent to this model`);
}

/** `lead`: images of the tool results just before, which go first. */
function userMessage(parts: readonly UserPart[], lead: readonly ChatContentPart[]): ChatMessage {
  const out = [
    ...lead,
    ...parts.map((p): ChatContentPart => (p.type === 'text' ? { type: 'text', text: p.text } : filePart(p))),
  ];
  const onlyText = out.every((p) => p.type === 'text');
  return { role: 'user', content: onlyText ? out.map((p) => String((p as { text: string }).text)).join('\n') : out };
}

function assistantMessage(msg: Extract<HubMessage, { role: 'assistant' }>): ChatMessage {
  let text = '';
  const toolCalls: ChatToolCall[] = [];
  for (const part of msg.content) {
    if (part.type === 'text') text += part.text;
    // A custom tool's free-form input goes as the one string parameter it was declared with.
    else if (part.type === 'tool-call')
      toolCalls.push({
        id: part.id,
        type: 'function',
        function: { name: part.name, arguments: part.kind === 'custom' ? wrapCustomInput(part.input) : part.input },
      });
    // Reasoning is signed by its producer for its producer: an OpenAI-compatible upstream cannot use it.
  }
  const out: ChatMessage = { role: 'assistant', content: text.length === 0 && toolCalls.length > 0 ? null : text };
  if (toolCalls.length > 0) out.tool_calls = toolCalls;
  return out;
}

function messagesOf(req: HubRequest, adjustments: string[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  const system = joinText(req.system, '\n\n');
  if (system.length > 0) out.push({ role: 'system', content: system });
  /** Tool-result images waiting for the user message that follows the tool messages. */
  let images: ChatContentPart[] = [];
  const flushImages = (): void => {
    if (images.length > 0) out.push({ role: 'user', content: images });
    images = [];
  };
  for (const msg of req.messages) {
    if (msg.role !== 'user') flushImages();
    switch (msg.role) {
      case 'system':
        // Kept at its position (Claude Code sends one mid-conversation): chat takes system messages anywhere.
        out.push({ role: 'system', content: joinText(msg.content, '\n\n') });
        break;
      case 'user':
        out.push(userMessage(msg.content, images));
        images = [];
        break;
      case 'assistant':
        out.push(assistantMessage(msg));
        break;
      case 'tool':
        for (const result of msg.content) {
          const texts: TextPart[] = [];
          for (const p of result.content) {
            if (p.type === 'text') texts.push(p);
            else images.push(filePart(p));
          }
          const text = joinText(texts, '\n');
          // Chat has no error flag on tool messages; the marker keeps the meaning visible to the model.
          out.push({
            role: 'tool',
            tool_call_id: result.callId,
            content: result.isError === true ? `[tool error] ${text}` : text,
          });
        }
        if (images.length > 0) adjustments.push('tool_result images moved to a user message');
        break;
    }
  }
  flushImages();
  return out;
}

function toolChoiceOf(choice: HubToolChoice): ChatToolChoice {
  if (choice.type === 'tool') return { type: 'function', function: { name: choice.name } };
  return choice.type;
}

export function encodeChatRequest(req: HubRequest, opts: UpstreamOptions): EncodedRequest {
  const adjustments: string[] = [];
  const messages = messagesOf(req, adjustments);
  // A final assistant turn is a prefill Anthropic continues; an OpenAI-style model answers it instead.
  const final = messages.at(-1);
  if (final?.role === 'assistant' && typeof final.content === 'string' && final.content.length > 0) {
    adjustments.push('final assistant message sent as history: the upstream answers it rather than continuing it');
  }
  const out: ChatRequest = { model: opts.upstreamModel, messages };
  out[opts.maxTokensField ?? 'max_tokens'] = req.maxOutputTokens;
  if (req.temperature !== undefined && !refusedParam(opts, 'temperature', adjustments))
    out.temperature = req.temperature;
  if (req.topP !== undefined && !refusedParam(opts, 'top_p', adjustments)) out.top_p = req.topP;
  if (req.stopSequences !== undefined && req.stopSequences.length > 0 && !refusedParam(opts, 'stop', adjustments))
    out.stop = req.stopSequences;
  if (req.stream) {
    out.stream = true;
    // Usage is always recorded, so the upstream is asked for it even when the client cannot see it.
    out.stream_options = { include_usage: true };
  }
  if (req.tools.length > 0) {
    out.tools = req.tools.map((t): ChatFunctionTool => {
      const fn: ChatFunctionTool['function'] = {
        name: t.name,
        parameters:
          t.kind === 'custom' ? { ...CUSTOM_TOOL_SCHEMA } : (t.inputSchema ?? { type: 'object', properties: {} }),
      };
      if (t.description !== undefined) fn.description = t.description;
      return { type: 'function', function: fn };
    });
    if (req.parallelToolCalls === false) out.parallel_tool_calls = false;
    if (req.toolChoice !== undefined) out.tool_choice = toolChoiceOf(req.toolChoice);
  }
  const effort = req.reasoning?.effort;
  // OpenAI-compatible servers that speak reasoning_effort rarely know `max`; `xhigh` is the nearest.
  if (effort !== undefined && effort !== 'none' && !refusedParam(opts, 'reasoning_effort', adjustments))
    out.reasoning_effort = effort === 'max' ? 'xhigh' : effort;
  const rf = req.responseFormat;
  if (rf?.type === 'json') {
    out.response_format =
      rf.schema === undefined
        ? { type: 'json_object' }
        : { type: 'json_schema', json_schema: { name: rf.name ?? 'output', schema: rf.schema } };
  }
  if (req.user !== undefined) out.user = req.user;
  const cacheKey = opts.promptCacheKey !== undefined && !refusedParam(opts, 'prompt_cache_key', adjustments);
  if (cacheKey) (out as ChatRequest & { prompt_cache_key?: string }).prompt_cache_key = opts.promptCacheKey;
  if (req.topK !== undefined) adjustments.push('top_k dropped');
  for (const field of Object.keys(req.extra))
    if (!(cacheKey && field === 'prompt_cache_key')) adjustments.push(`${field} dropped`);
  if (req.cache !== undefined) adjustments.push('cache_control dropped');
  const replyState: ChatReplyState = { stopSequences: req.stopSequences };
  return { body: JSON.stringify(out), adjustments, replyState };
}

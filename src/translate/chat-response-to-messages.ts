// Direction 2, reply: an OpenAI chat.completion from the upstream → an Anthropic Message for the client.
// Reasoning text (reasoning_content or reasoning) becomes a leading thinking block with an empty signature.
import type { ContentBlock, Message, ToolUseBlock } from './wire-anthropic.ts';
import type { ChatCompletion } from './wire-openai.ts';
import { emptyUsage } from '../core/usage.ts';
import { newMessageId, toAnthropicToolId } from './ids.ts';
import { isObject, str, tryParseJson } from './narrow.ts';
import { stopReasonFor } from './stop-reasons.ts';
import { usageFromOpenAi, usageToAnthropic } from './usage-map.ts';

export interface ChatToMessagesResponseOptions {
  /** The model name the client asked for. */
  model: string;
  /** The client's stop_sequences, to report which one ended the text. */
  stopSequences?: string[];
}

/** Tool arguments that are not a JSON object are kept, not dropped, under this key. */
export const RAW_ARGUMENTS_KEY = '_raw_arguments';

/** Tool-call arguments as an Anthropic input object. */
export function toolInputOf(args: string): Record<string, unknown> {
  if (args.trim().length === 0) return {};
  const parsed = tryParseJson(args);
  return isObject(parsed) ? parsed : { [RAW_ARGUMENTS_KEY]: args };
}

export function toolUseBlock(opts: { id: string | undefined; name: string; input: Record<string, unknown> }): ToolUseBlock {
  return { type: 'tool_use', id: toAnthropicToolId(opts.id), name: opts.name, input: opts.input, caller: { type: 'direct' } };
}

export function chatResponseToMessages(resp: ChatCompletion, opts: ChatToMessagesResponseOptions): Message {
  const choice = Array.isArray(resp.choices) && isObject(resp.choices[0]) ? resp.choices[0] : undefined;
  const msg = choice !== undefined && isObject(choice.message) ? choice.message : undefined;
  const content: ContentBlock[] = [];
  const reasoning = str(msg?.reasoning_content) ?? str(msg?.reasoning) ?? '';
  if (reasoning.length > 0) content.push({ type: 'thinking', thinking: reasoning, signature: '' });
  const text = str(msg?.content) ?? '';
  const refusal = str(msg?.refusal) ?? '';
  if (text.length > 0) content.push({ type: 'text', text, citations: null });
  if (refusal.length > 0) content.push({ type: 'text', text: refusal, citations: null });
  for (const call of Array.isArray(msg?.tool_calls) ? msg.tool_calls : []) {
    if (!isObject(call) || !isObject(call.function)) continue;
    const input = toolInputOf(str(call.function.arguments) ?? '');
    content.push(toolUseBlock({ id: str(call.id), name: str(call.function.name) ?? '', input }));
  }
  const stop = stopReasonFor({
    finish: refusal.length > 0 ? 'content_filter' : choice?.finish_reason,
    text,
    stopSequences: opts.stopSequences,
    matched: choice?.stop_reason,
  });
  // Some servers (older vLLM, Ollama) report `stop` alongside tool calls; the tool calls are what counts.
  if (stop.stopReason === 'end_turn' && content.some((b) => b.type === 'tool_use')) stop.stopReason = 'tool_use';
  return {
    id: newMessageId(),
    type: 'message',
    role: 'assistant',
    model: opts.model,
    content,
    stop_reason: stop.stopReason,
    stop_sequence: stop.stopSequence,
    stop_details: null,
    container: null,
    usage: usageToAnthropic(usageFromOpenAi(resp.usage) ?? emptyUsage()) as Message['usage'],
  };
}

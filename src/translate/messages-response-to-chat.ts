// Direction 1, reply: an Anthropic Message from the upstream → an OpenAI chat.completion for the client.
// Thinking text goes to message.reasoning_content and its signature to message.reasoning_signature, so a
// client that echoes the assistant message back keeps the thinking block valid; every thinking and
// redacted_thinking block, each with its own signature, is also listed in message.thinking_blocks.
import type { Message } from './wire-anthropic.ts';
import type { ChatCompletion, ChatResponseMessage, ChatThinkingBlock, ChatToolCall, FinishReason } from './wire-openai.ts';
import { emptyUsage } from '../core/usage.ts';
import { newChatCompletionId } from './ids.ts';
import { isObject, str } from './narrow.ts';
import { finishReasonFor } from './stop-reasons.ts';
import { jsonTextOfToolInput, type JsonMode } from './structured-output.ts';
import { usageFromAnthropic, usageToOpenAi } from './usage-map.ts';

export interface MessagesToChatOptions {
  /** The model name the client asked for. */
  model: string;
  /** Unix seconds. */
  created: number;
  /** From chatRequestToMessages: the forced tool whose input is the JSON reply. */
  jsonMode?: JsonMode | null;
}

export function messagesResponseToChat(msg: Message, opts: MessagesToChatOptions): ChatCompletion {
  let text = '';
  let reasoning = '';
  let signature = '';
  let jsonText: string | undefined;
  const toolCalls: ChatToolCall[] = [];
  const thinkingBlocks: ChatThinkingBlock[] = [];
  for (const block of Array.isArray(msg.content) ? msg.content : []) {
    if (!isObject(block)) continue;
    if (block.type === 'text') text += str(block.text) ?? '';
    else if (block.type === 'thinking') {
      reasoning += str(block.thinking) ?? '';
      signature = str(block.signature) ?? signature;
      thinkingBlocks.push({ type: 'thinking', thinking: str(block.thinking) ?? '', signature: str(block.signature) ?? '' });
    } else if (block.type === 'redacted_thinking') {
      thinkingBlocks.push({ type: 'redacted_thinking', data: str(block.data) ?? '' });
    } else if (block.type === 'tool_use') {
      const input = isObject(block.input) ? block.input : {};
      const name = str(block.name) ?? '';
      if (opts.jsonMode != null && name === opts.jsonMode.toolName) {
        jsonText = jsonTextOfToolInput(input, opts.jsonMode);
        continue;
      }
      toolCalls.push({ id: str(block.id) ?? '', type: 'function', function: { name, arguments: JSON.stringify(input) } });
    }
  }
  let finish: FinishReason = finishReasonFor(msg.stop_reason);
  // The JSON reply replaces any text around it: the client asked for JSON only.
  if (jsonText !== undefined) {
    text = jsonText;
    if (toolCalls.length === 0 && finish === 'tool_calls') finish = 'stop';
  }
  const message: ChatResponseMessage = {
    role: 'assistant',
    content: text.length === 0 && toolCalls.length > 0 ? null : text,
    refusal: null,
  };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  if (reasoning.length > 0 || signature.length > 0) {
    message.reasoning_content = reasoning;
    if (signature.length > 0) message.reasoning_signature = signature;
  }
  if (thinkingBlocks.length > 0) message.thinking_blocks = thinkingBlocks;
  return {
    id: newChatCompletionId(),
    object: 'chat.completion',
    created: opts.created,
    model: opts.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
    usage: usageToOpenAi(usageFromAnthropic(msg.usage, emptyUsage())),
  };
}

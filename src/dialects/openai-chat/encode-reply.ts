// The hub's reply → a chat.completion for a /v1/chat/completions caller. Reasoning text goes to
// message.reasoning_content; Anthropic's thinking keeps its signature in message.reasoning_signature and
// every thinking and redacted_thinking block whole in message.thinking_blocks (LiteLLM's names), so a
// client that echoes the assistant message back keeps each block valid.
import type { ClientReplyContext } from '../../spec/codec.ts';
import type { HubReply } from '../../spec/form.ts';
import { HUB_TO_FINISH_REASON } from './finish-reasons.ts';
import { newChatCompletionId } from './ids.ts';
import { usageToOpenAi } from './usage.ts';
import type { ChatCompletion, ChatResponseMessage, ChatThinkingBlock, ChatToolCall } from './wire.ts';

export function encodeChatReply(reply: HubReply, ctx: ClientReplyContext): string {
  let text = '';
  let reasoning = '';
  let signature = '';
  const toolCalls: ChatToolCall[] = [];
  const thinkingBlocks: ChatThinkingBlock[] = [];
  for (const part of reply.content) {
    if (part.type === 'text') text += part.text;
    else if (part.type === 'tool-call')
      toolCalls.push({
        id: part.id,
        type: 'function',
        function: { name: part.name, arguments: part.input.length === 0 ? '{}' : part.input },
      });
    else if (part.type === 'reasoning') {
      reasoning += part.text;
      if (part.origin !== 'messages') continue;
      if (part.redacted !== undefined) thinkingBlocks.push({ type: 'redacted_thinking', data: part.redacted });
      else {
        signature = part.signature ?? '';
        thinkingBlocks.push({ type: 'thinking', thinking: part.text, signature });
      }
    }
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
  const completion: ChatCompletion = {
    id: newChatCompletionId(),
    object: 'chat.completion',
    created: ctx.created,
    model: ctx.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: HUB_TO_FINISH_REASON[reply.finish] }],
    usage: usageToOpenAi(reply.usage),
  };
  return JSON.stringify(completion);
}

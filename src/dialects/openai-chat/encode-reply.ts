// The hub's reply → a chat.completion for a /v1/chat/completions caller. Reasoning text goes to
// message.reasoning_content; Anthropic's thinking keeps its signature in message.reasoning_signature and
// every thinking and redacted_thinking block whole in message.thinking_blocks (LiteLLM's names), so a
// client that echoes the assistant message back keeps each block valid. Another provider's opaque
// reasoning (OpenAI's encrypted content, Gemini's thought signatures) goes in the same places as the
// gateway's token (reasoning-carrier.ts).
import type { ClientReplyContext } from '../../spec/codec.ts';
import type { HubReply, ReasoningPart } from '../../spec/form.ts';
import { carrierOf } from '../../spec/reasoning-carrier.ts';
import { HUB_TO_FINISH_REASON } from './finish-reasons.ts';
import { newChatCompletionId } from './ids.ts';
import { usageToOpenAi } from './usage.ts';
import type { ChatCompletion, ChatResponseMessage, ChatThinkingBlock, ChatToolCall } from './wire.ts';

/**
 * The thinking block a reasoning part is listed as: Anthropic's as Anthropic wrote it (LiteLLM's
 * shape, which clients echo back), another provider's opaque reasoning as a thinking block whose
 * signature is the gateway's token (reasoning-carrier.ts); null for reasoning with nothing opaque.
 */
export function thinkingBlockOf(part: ReasoningPart): ChatThinkingBlock | null {
  if (part.origin === 'messages') {
    if (part.redacted !== undefined) return { type: 'redacted_thinking', data: part.redacted };
    return { type: 'thinking', thinking: part.text, signature: part.signature ?? '' };
  }
  const token = carrierOf(part);
  return token === undefined ? null : { type: 'thinking', thinking: part.text, signature: token };
}

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
      const block = thinkingBlockOf(part);
      if (block === null) continue;
      thinkingBlocks.push(block);
      if (block.type === 'thinking') signature = block.signature;
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

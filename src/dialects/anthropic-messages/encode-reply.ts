// The hub's reply → an Anthropic Message for a /v1/messages caller. Reasoning without an Anthropic
// signature becomes a thinking block with an empty one; tool input that is not a JSON object is kept
// under RAW_ARGUMENTS_KEY rather than dropped.
import type { ClientReplyContext } from '../../spec/codec.ts';
import type { HubReply } from '../../spec/form.ts';
import { isObject, tryParseJson } from '../../core/json.ts';
import { newMessageId, toAnthropicToolId } from './ids.ts';
import { HUB_TO_STOP_REASON } from './stop-reasons.ts';
import { usageToAnthropic } from './usage.ts';
import type { ContentBlock, Message, ToolUseBlock } from './wire.ts';

/** Tool arguments that are not a JSON object are kept, not dropped, under this key. */
export const RAW_ARGUMENTS_KEY = '_raw_arguments';

/** Tool-call arguments as an Anthropic input object. */
export function toolInputOf(args: string): Record<string, unknown> {
  if (args.trim().length === 0) return {};
  const parsed = tryParseJson(args);
  return isObject(parsed) ? parsed : { [RAW_ARGUMENTS_KEY]: args };
}

export function toolUseBlock(opts: {
  id: string | undefined;
  name: string;
  input: Record<string, unknown>;
}): ToolUseBlock {
  return {
    type: 'tool_use',
    id: toAnthropicToolId(opts.id),
    name: opts.name,
    input: opts.input,
    caller: { type: 'direct' },
  };
}

export function encodeMessagesReply(reply: HubReply, ctx: ClientReplyContext): string {
  const content: ContentBlock[] = [];
  for (const part of reply.content) {
    if (part.type === 'reasoning') {
      if (part.redacted !== undefined) content.push({ type: 'redacted_thinking', data: part.redacted });
      else
        content.push({
          type: 'thinking',
          thinking: part.text,
          signature: part.origin === 'messages' ? (part.signature ?? '') : '',
        });
    } else if (part.type === 'text') content.push({ type: 'text', text: part.text, citations: null });
    else if (part.type === 'tool-call')
      content.push(toolUseBlock({ id: part.id, name: part.name, input: toolInputOf(part.input) }));
  }
  const stopReason = HUB_TO_STOP_REASON[reply.finish];
  const msg: Message = {
    id: newMessageId(),
    type: 'message',
    role: 'assistant',
    model: ctx.model,
    content,
    stop_reason: stopReason,
    stop_sequence: stopReason === 'stop_sequence' ? (reply.stopSequence ?? null) : null,
    stop_details: null,
    container: null,
    usage: usageToAnthropic(reply.usage) as Message['usage'],
  };
  return JSON.stringify(msg);
}

// The hub's reply → an Anthropic Message for a /v1/messages caller. Reasoning another provider signed or
// encrypted becomes a thinking block signed with the gateway's token (reasoning-carrier.ts), reasoning
// nobody signed one with an empty signature; tool input that is not a JSON object is kept
// under RAW_ARGUMENTS_KEY rather than dropped.
import type { ClientReplyContext } from '../../spec/codec.ts';
import type { HubReply, ReasoningPart } from '../../spec/form.ts';
import { carrierOf } from '../../spec/reasoning-carrier.ts';
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

/** Anthropic's own signature as it came; another provider's opaque reasoning as the gateway's token, else ''. */
export function signatureOf(part: ReasoningPart): string {
  if (part.origin === 'messages') return part.signature ?? '';
  return carrierOf(part) ?? '';
}

export function encodeMessagesReply(reply: HubReply, ctx: ClientReplyContext): string {
  const content: ContentBlock[] = [];
  for (const part of reply.content) {
    if (part.type === 'reasoning') {
      if (part.origin === 'messages' && part.redacted !== undefined)
        content.push({ type: 'redacted_thinking', data: part.redacted });
      else content.push({ type: 'thinking', thinking: part.text, signature: signatureOf(part) });
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

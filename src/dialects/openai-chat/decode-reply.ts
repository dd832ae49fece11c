// A chat.completion from an OpenAI-compatible upstream → the hub's reply. Reasoning text
// (reasoning_content, or OpenRouter's reasoning) comes first; a refusal is text that ends the reply
// as content-filtered.
import type { AssistantPart, HubReply } from '../../spec/form.ts';
import { emptyUsage, noteServedTier } from '../../core/usage.ts';
import { isObject, str } from '../../core/json.ts';
import type { ChatReplyState } from './encode-request.ts';
import { hubFinishOf } from './finish-reasons.ts';
import { usageFromOpenAi } from './usage.ts';

export function decodeChatReply(resp: Record<string, unknown>, state: unknown): HubReply {
  const choice = Array.isArray(resp.choices) && isObject(resp.choices[0]) ? resp.choices[0] : undefined;
  const msg = choice !== undefined && isObject(choice.message) ? choice.message : undefined;
  const content: AssistantPart[] = [];
  const reasoning = str(msg?.reasoning_content) ?? str(msg?.reasoning) ?? '';
  if (reasoning.length > 0) content.push({ type: 'reasoning', text: reasoning, origin: 'chat' });
  const text = str(msg?.content) ?? '';
  const refusal = str(msg?.refusal) ?? '';
  if (text.length > 0) content.push({ type: 'text', text });
  if (refusal.length > 0) content.push({ type: 'text', text: refusal });
  let calls = 0;
  for (const call of Array.isArray(msg?.tool_calls) ? msg.tool_calls : []) {
    if (!isObject(call) || !isObject(call.function)) continue;
    calls++;
    content.push({
      type: 'tool-call',
      id: str(call.id) ?? '',
      name: str(call.function.name) ?? '',
      input: str(call.function.arguments) ?? '',
    });
  }
  const finish = hubFinishOf({
    finish: refusal.length > 0 ? 'content_filter' : choice?.finish_reason,
    text,
    stopSequences: (state as ChatReplyState | undefined)?.stopSequences,
    matched: choice?.stop_reason,
    toolCalls: calls > 0,
  });
  const usage = usageFromOpenAi(resp.usage);
  if (usage !== undefined) noteServedTier(usage, resp.service_tier);
  const reply: HubReply = { content, finish: finish.reason, usage: usage ?? emptyUsage() };
  if (finish.stopSequence !== undefined) reply.stopSequence = finish.stopSequence;
  if (usage === undefined) reply.usageMissing = true;
  const id = str(resp.id);
  if (id !== undefined) reply.id = id;
  return reply;
}

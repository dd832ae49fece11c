// A Responses API response object from an upstream → the hub's reply (upstream side).
import { isObject, type JsonObject } from '../../core/json.ts';
import { emptyUsage, noteServedTier } from '../../core/usage.ts';
import type { AssistantPart, FinishReason, HubReply } from '../../spec/form.ts';
import { readResponsesToolCalls, usageFromResponses } from './usage.ts';

export function finishOf(response: JsonObject, sawToolCall: boolean): FinishReason {
  if (response.status === 'failed') return 'error';
  if (response.status === 'incomplete') {
    const reason = isObject(response.incomplete_details) ? response.incomplete_details.reason : undefined;
    return reason === 'content_filter' ? 'content-filter' : 'length';
  }
  return sawToolCall ? 'tool-calls' : 'stop';
}

export function reasoningPartOf(item: JsonObject): AssistantPart {
  const texts: string[] = [];
  if (Array.isArray(item.summary))
    for (const s of item.summary) if (isObject(s) && typeof s.text === 'string') texts.push(s.text);
  const part: AssistantPart = { type: 'reasoning', text: texts.join('\n\n'), origin: 'responses' };
  if (typeof item.encrypted_content === 'string') part.encrypted = item.encrypted_content;
  if (typeof item.id === 'string') part.id = item.id;
  return part;
}

export function decodeResponsesReply(body: Record<string, unknown>): HubReply {
  const content: AssistantPart[] = [];
  let sawToolCall = false;
  for (const item of Array.isArray(body.output) ? body.output : []) {
    if (!isObject(item)) continue;
    if (item.type === 'message' && Array.isArray(item.content)) {
      for (const c of item.content) {
        if (!isObject(c)) continue;
        if (c.type === 'output_text' && typeof c.text === 'string') content.push({ type: 'text', text: c.text });
        else if (c.type === 'refusal' && typeof c.refusal === 'string') content.push({ type: 'text', text: c.refusal });
      }
    } else if (item.type === 'reasoning') content.push(reasoningPartOf(item));
    else if (item.type === 'function_call' || item.type === 'custom_tool_call') {
      sawToolCall = true;
      const custom = item.type === 'custom_tool_call';
      const input = custom ? item.input : item.arguments;
      content.push({
        type: 'tool-call',
        id: String(item.call_id),
        name: String(item.name),
        input: typeof input === 'string' ? input : '',
        kind: custom ? 'custom' : 'function',
      });
    }
  }
  const usage = usageFromResponses(body.usage);
  if (usage !== undefined) {
    readResponsesToolCalls(body, usage);
    noteServedTier(usage, body.service_tier);
  }
  const reply: HubReply = { content, finish: finishOf(body, sawToolCall), usage: usage ?? emptyUsage() };
  if (typeof body.id === 'string') reply.id = body.id;
  if (usage === undefined) reply.usageMissing = true;
  return reply;
}

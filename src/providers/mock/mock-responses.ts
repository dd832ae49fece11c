// The mock model's answers in the Responses API wire format: the same plan as chat and messages,
// written as a response object or its numbered event stream.
import { isObject, type JsonObject } from '../../core/json.ts';
import { ResponsesEventWriter } from '../../dialects/openai-responses/event-writer.ts';
import {
  echoedFields,
  functionCallItem,
  messageItem,
  responseObject,
  responsesId,
  usageObject,
} from '../../dialects/openai-responses/response-object.ts';
import type { MockPlan } from './mock-reply.ts';

/** A Responses request as the mock's planner reads chat and messages requests. */
export function responsesPlanView(body: JsonObject): JsonObject {
  const messages: JsonObject[] = [];
  if (typeof body.input === 'string') messages.push({ role: 'user', content: body.input });
  else if (Array.isArray(body.input)) {
    for (const item of body.input) {
      if (!isObject(item)) continue;
      if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output')
        messages.push({ role: 'tool', content: typeof item.output === 'string' ? item.output : '' });
      else if (item.type === undefined || item.type === 'message')
        messages.push({ role: item.role, content: item.content });
    }
  }
  return { system: body.instructions, messages, tools: body.tools, max_tokens: body.max_output_tokens };
}

function build(
  plan: MockPlan,
  ids: { id: string; model: string; created: number; request: JsonObject },
): {
  response: (status: 'in_progress' | 'completed' | 'incomplete', output: JsonObject[]) => JsonObject;
  item: JsonObject;
} {
  const output = plan.tool ? plan.tool.arguments.length : plan.words.length;
  const usage = usageObject({
    inputTokens: plan.inputTokens,
    cachedTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: plan.tool ? 1 : output,
    reasoningTokens: 0,
  });
  const item = plan.tool
    ? functionCallItem({
        id: responsesId('fc'),
        callId: plan.tool.id,
        name: plan.tool.name,
        arguments: plan.tool.arguments,
        status: 'completed',
      })
    : messageItem(responsesId('msg'), plan.words.join(''), plan.truncated ? 'incomplete' : 'completed');
  const echo = echoedFields(ids.request);
  return {
    item,
    response: (status, out) =>
      responseObject({
        id: ids.id,
        model: ids.model,
        createdAt: ids.created,
        status,
        output: out,
        usage: status === 'in_progress' ? null : usage,
        echo,
        incompleteReason: status === 'incomplete' ? 'max_output_tokens' : null,
      }),
  };
}

export function responsesMockJson(
  plan: MockPlan,
  ids: { id: string; model: string; created: number; request: JsonObject },
): string {
  const { response, item } = build(plan, ids);
  return JSON.stringify(response(plan.truncated ? 'incomplete' : 'completed', [item]));
}

export function responsesMockEvents(
  plan: MockPlan,
  ids: { id: string; model: string; created: number; request: JsonObject },
): string[] {
  const { response, item } = build(plan, ids);
  const w = new ResponsesEventWriter();
  const id = item.id as string;
  const out = [w.created(response('in_progress', []))];
  if (plan.tool) {
    out.push(w.itemAdded(0, { ...item, status: 'in_progress', arguments: '' }));
    out.push(w.argumentsDelta(id, 0, plan.tool.arguments));
    out.push(w.argumentsDone(id, 0, plan.tool.name, plan.tool.arguments));
  } else {
    out.push(w.itemAdded(0, messageItem(id, '', 'in_progress')) + w.textPartAdded(id, 0));
    for (const word of plan.words) out.push(w.textDelta(id, 0, word));
    out.push(w.textDone(id, 0, plan.words.join('')));
  }
  out.push(w.itemDone(0, item));
  out.push(w.terminal(response(plan.truncated ? 'incomplete' : 'completed', [item])));
  return out;
}

// The mock model's answers in the OpenAI chat-completions wire format (STREAMING.md §1).
import type { MockPlan } from './mock-reply.ts';

export function openaiMockJson(plan: MockPlan, ids: { id: string; model: string; created: number }): string {
  const message = plan.tool
    ? {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: plan.tool.id, type: 'function', function: { name: plan.tool.name, arguments: plan.tool.arguments } },
        ],
        refusal: null,
      }
    : { role: 'assistant', content: plan.words.join(''), refusal: null };
  const completion = plan.tool ? 1 : plan.words.length;
  return JSON.stringify({
    id: ids.id,
    object: 'chat.completion',
    created: ids.created,
    model: ids.model,
    choices: [
      {
        index: 0,
        message,
        logprobs: null,
        finish_reason: plan.tool ? 'tool_calls' : plan.truncated ? 'length' : 'stop',
      },
    ],
    usage: {
      prompt_tokens: plan.inputTokens,
      completion_tokens: completion,
      total_tokens: plan.inputTokens + completion,
    },
  });
}

export function openaiMockEvents(
  plan: MockPlan,
  ids: { id: string; model: string; created: number; includeUsage: boolean },
): string[] {
  const head = `{"id":${JSON.stringify(ids.id)},"object":"chat.completion.chunk","created":${ids.created},"model":${JSON.stringify(ids.model)},"choices":[`;
  const tail = ids.includeUsage ? '],"usage":null}' : ']}';
  const chunk = (delta: string, finish: string | null): string =>
    `data: ${head}{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${finish === null ? 'null' : `"${finish}"`}}${tail}\n\n`;
  const out: string[] = [];
  if (plan.tool) {
    out.push(
      chunk(
        `{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":${JSON.stringify(plan.tool.id)},"type":"function","function":{"name":${JSON.stringify(plan.tool.name)},"arguments":""}}]}`,
        null,
      ),
    );
    out.push(
      chunk(`{"tool_calls":[{"index":0,"function":{"arguments":${JSON.stringify(plan.tool.arguments)}}}]}`, null),
    );
    out.push(chunk('{}', 'tool_calls'));
  } else {
    out.push(chunk('{"role":"assistant","content":"","refusal":null}', null));
    for (const w of plan.words) out.push(chunk(`{"content":${JSON.stringify(w)}}`, null));
    out.push(chunk('{}', plan.truncated ? 'length' : 'stop'));
  }
  if (ids.includeUsage) {
    const completion = plan.tool ? 1 : plan.words.length;
    out.push(
      `data: ${head}],"usage":{"prompt_tokens":${plan.inputTokens},"completion_tokens":${completion},"total_tokens":${plan.inputTokens + completion}}}\n\n`,
    );
  }
  out.push('data: [DONE]\n\n');
  return out;
}

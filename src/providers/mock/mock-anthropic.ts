// The mock model's answers in the Anthropic messages wire format (STREAMING.md §2).
import type { MockPlan } from './mock-reply.ts';

function stopReason(plan: MockPlan): string {
  return plan.tool ? 'tool_use' : plan.truncated ? 'max_tokens' : 'end_turn';
}

function outputTokens(plan: MockPlan): number {
  return plan.tool ? 1 : plan.words.length;
}

export function anthropicMockJson(plan: MockPlan, ids: { id: string; model: string }): string {
  const content = plan.tool
    ? [{ type: 'tool_use', id: plan.tool.id, name: plan.tool.name, input: JSON.parse(plan.tool.arguments) as unknown }]
    : [{ type: 'text', text: plan.words.join('') }];
  return JSON.stringify({
    id: ids.id,
    type: 'message',
    role: 'assistant',
    model: ids.model,
    content,
    stop_reason: stopReason(plan),
    stop_sequence: null,
    usage: {
      input_tokens: plan.inputTokens,
      output_tokens: outputTokens(plan),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    },
  });
}

function ev(type: string, data: string): string {
  return `event: ${type}\ndata: ${data}\n\n`;
}

export function anthropicMockEvents(plan: MockPlan, ids: { id: string; model: string }): string[] {
  const out: string[] = [];
  out.push(
    ev(
      'message_start',
      JSON.stringify({
        type: 'message_start',
        message: {
          id: ids.id,
          type: 'message',
          role: 'assistant',
          model: ids.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: {
            input_tokens: plan.inputTokens,
            output_tokens: 1,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 0,
          },
        },
      }),
    ),
  );
  if (plan.tool) {
    out.push(
      ev(
        'content_block_start',
        `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":${JSON.stringify(plan.tool.id)},"name":${JSON.stringify(plan.tool.name)},"input":{}}}`,
      ),
    );
    out.push(
      ev(
        'content_block_delta',
        `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":""}}`,
      ),
    );
    out.push(
      ev(
        'content_block_delta',
        `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":${JSON.stringify(plan.tool.arguments)}}}`,
      ),
    );
  } else {
    out.push(
      ev('content_block_start', '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}'),
    );
    out.push(ev('ping', '{"type":"ping"}'));
    for (const w of plan.words)
      out.push(
        ev(
          'content_block_delta',
          `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":${JSON.stringify(w)}}}`,
        ),
      );
  }
  out.push(ev('content_block_stop', '{"type":"content_block_stop","index":0}'));
  out.push(
    ev(
      'message_delta',
      `{"type":"message_delta","delta":{"stop_reason":"${stopReason(plan)}","stop_sequence":null},"usage":{"input_tokens":${plan.inputTokens},"output_tokens":${outputTokens(plan)}}}`,
    ),
  );
  out.push(ev('message_stop', '{"type":"message_stop"}'));
  return out;
}

// Renders a ReplyPlan as an Anthropic Message or as its SSE events, per STREAMING.md §2: message_start with
// the real input_tokens, one start/delta/stop group per block (ping after the first start), message_delta
// with cumulative usage, message_stop; every `event:` line equals the JSON `type`.

import { encodeSse } from '../../src/core/sse.ts';
import { splitIntoChunks } from './mock-reply.ts';
import type { MockFinish, ReplyPlan } from './mock-reply.ts';

const STOP_REASON: Record<MockFinish, string> = {
  end: 'end_turn',
  stop_sequence: 'stop_sequence',
  length: 'max_tokens',
  tool: 'tool_use',
};

function usageOf(plan: ReplyPlan, outputTokens: number): Record<string, unknown> {
  return {
    input_tokens: plan.usage.inputTokens,
    cache_creation_input_tokens: plan.usage.cacheWriteTokens,
    cache_read_input_tokens: plan.usage.cacheReadTokens,
    output_tokens: outputTokens,
    service_tier: 'standard',
  };
}

function contentOf(plan: ReplyPlan): Record<string, unknown>[] {
  const blocks: Record<string, unknown>[] = [];
  if (plan.text !== '' || plan.toolCall === undefined) blocks.push({ type: 'text', text: plan.text });
  if (plan.toolCall !== undefined) {
    const { id, name, arguments: args } = plan.toolCall;
    blocks.push({ type: 'tool_use', id, name, input: JSON.parse(args) as unknown });
  }
  return blocks;
}

export function anthropicMessage(plan: ReplyPlan): Record<string, unknown> {
  return {
    id: plan.id,
    type: 'message',
    role: 'assistant',
    model: plan.model,
    content: contentOf(plan),
    stop_reason: STOP_REASON[plan.finish],
    stop_sequence: plan.stopSequence,
    usage: usageOf(plan, plan.usage.outputTokens),
  };
}

/** Every SSE frame of the streamed reply, each `event: <type>` + `data:` + blank line. */
export function anthropicFrames(plan: ReplyPlan): string[] {
  const frames: string[] = [];
  const emit = (data: Record<string, unknown> & { type: string }): void => {
    frames.push(encodeSse(data.type, JSON.stringify(data)));
  };
  emit({
    type: 'message_start',
    message: {
      id: plan.id,
      type: 'message',
      role: 'assistant',
      model: plan.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: usageOf(plan, 1),
    },
  });
  let index = 0;
  if (plan.text !== '' || plan.toolCall === undefined) {
    emit({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
    emit({ type: 'ping' });
    for (const text of splitIntoChunks(plan.text, plan.chunkCount)) {
      emit({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
    }
    emit({ type: 'content_block_stop', index });
    index++;
  }
  if (plan.toolCall !== undefined) {
    const { id, name, arguments: args } = plan.toolCall;
    emit({ type: 'content_block_start', index, content_block: { type: 'tool_use', id, name, input: {} } });
    if (index === 0) emit({ type: 'ping' });
    // The real API opens with an empty fragment; clients must cope with it.
    for (const partial_json of ['', ...splitIntoChunks(args, plan.chunkCount)]) {
      emit({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } });
    }
    emit({ type: 'content_block_stop', index });
  }
  emit({
    type: 'message_delta',
    delta: { stop_reason: STOP_REASON[plan.finish], stop_sequence: plan.stopSequence },
    // Cumulative totals (MessageDeltaUsage), as newer servers send them.
    usage: {
      input_tokens: plan.usage.inputTokens,
      cache_creation_input_tokens: plan.usage.cacheWriteTokens,
      cache_read_input_tokens: plan.usage.cacheReadTokens,
      output_tokens: plan.usage.outputTokens,
    },
  });
  emit({ type: 'message_stop' });
  return frames;
}

/** `POST /v1/messages/count_tokens` answer. */
export function anthropicTokenCount(inputTokens: number): Record<string, unknown> {
  return { input_tokens: inputTokens };
}

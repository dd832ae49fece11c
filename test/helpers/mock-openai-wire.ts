// Renders a ReplyPlan as OpenAI Chat Completions JSON or SSE frames, exactly as STREAMING.md §1 describes:
// role chunk, content chunks, tool_calls fragments, finish chunk, optional usage chunk, `data: [DONE]`.

import { encodeSse } from '../../src/core/sse.ts';
import { MOCK_CREATED, splitIntoChunks } from './mock-reply.ts';
import type { MockFinish, ReplyPlan } from './mock-reply.ts';

const FINISH: Record<MockFinish, string> = { end: 'stop', stop_sequence: 'stop', length: 'length', tool: 'tool_calls' };

function usageOf(plan: ReplyPlan): Record<string, unknown> {
  const u = plan.usage;
  const prompt = u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens;
  const details: Record<string, number> = { cached_tokens: u.cacheReadTokens, audio_tokens: 0 };
  if (u.cacheWriteTokens > 0) details.cache_write_tokens = u.cacheWriteTokens;
  return {
    prompt_tokens: prompt,
    completion_tokens: u.outputTokens,
    total_tokens: prompt + u.outputTokens,
    prompt_tokens_details: details,
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

export function openaiCompletion(plan: ReplyPlan): Record<string, unknown> {
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: plan.toolCall !== undefined && plan.text === '' ? null : plan.text,
    refusal: null,
    annotations: [],
  };
  if (plan.toolCall !== undefined) {
    const { id, name, arguments: args } = plan.toolCall;
    message.tool_calls = [{ id, type: 'function', function: { name, arguments: args } }];
  }
  return {
    id: plan.id,
    object: 'chat.completion',
    created: MOCK_CREATED,
    model: plan.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: FINISH[plan.finish] }],
    usage: usageOf(plan),
    service_tier: plan.serviceTier ?? 'default',
    system_fingerprint: 'fp_mock',
  };
}

/** Every SSE frame of the streamed reply, `[DONE]` included, each ending in a blank line. */
export function openaiFrames(plan: ReplyPlan): string[] {
  const chunk = (delta: Record<string, unknown>, finish: string | null): string => {
    const body: Record<string, unknown> = {
      id: plan.id,
      object: 'chat.completion.chunk',
      created: MOCK_CREATED,
      model: plan.model,
      system_fingerprint: 'fp_mock',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    };
    if (plan.includeUsage) body.usage = null;
    return encodeSse(undefined, JSON.stringify(body));
  };
  const frames: string[] = [];
  const call = plan.toolCall;
  const goesStraightToTool = call !== undefined && plan.text === '';
  frames.push(chunk({ role: 'assistant', content: goesStraightToTool ? null : '', refusal: null }, null));
  for (const piece of splitIntoChunks(plan.text, plan.chunkCount)) frames.push(chunk({ content: piece }, null));
  if (call !== undefined) {
    const opening = { index: 0, id: call.id, type: 'function', function: { name: call.name, arguments: '' } };
    frames.push(chunk({ tool_calls: [opening] }, null));
    for (const piece of splitIntoChunks(call.arguments, plan.chunkCount)) {
      frames.push(chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }, null));
    }
  }
  frames.push(chunk({}, FINISH[plan.finish]));
  if (plan.includeUsage) {
    const body = {
      id: plan.id,
      object: 'chat.completion.chunk',
      created: MOCK_CREATED,
      model: plan.model,
      system_fingerprint: 'fp_mock',
      choices: [],
      usage: usageOf(plan),
      service_tier: plan.serviceTier ?? 'default',
    };
    frames.push(encodeSse(undefined, JSON.stringify(body)));
  }
  frames.push(encodeSse(undefined, '[DONE]'));
  return frames;
}

export function openaiModelList(models: string[]): Record<string, unknown> {
  return {
    object: 'list',
    data: models.map((id) => ({ id, object: 'model', created: MOCK_CREATED, owned_by: 'mock-upstream' })),
  };
}

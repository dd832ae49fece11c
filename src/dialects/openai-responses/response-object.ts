// The Responses API's response object and output items, as OpenAI writes them (the OpenAPI `Response`,
// `OutputMessage`, `FunctionToolCall`, `CustomToolCall`, `ReasoningItem`, `ResponseUsage`): one builder
// for the gateway's replies and stream events, and for the built-in mock model.
import { randomBytes } from 'node:crypto';
import { isObject, type JsonObject } from '../../core/json.ts';

/** `resp_…`, `msg_…`, `fc_…`: a prefix and 48 hex digits, as OpenAI's ids look. */
export function responsesId(prefix: 'resp' | 'msg' | 'fc' | 'ctc' | 'rs' | 'cmp'): string {
  return `${prefix}_${randomBytes(24).toString('hex')}`;
}

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

export interface ResponseUsageNumbers {
  /** All prompt tokens, cached ones included. */
  inputTokens: number;
  cachedTokens: number;
  cacheWriteTokens: number;
  /** All output tokens, reasoning ones included. */
  outputTokens: number;
  reasoningTokens: number;
}

export function usageObject(u: ResponseUsageNumbers): JsonObject {
  return {
    input_tokens: u.inputTokens,
    input_tokens_details: { cached_tokens: u.cachedTokens, cache_write_tokens: u.cacheWriteTokens },
    output_tokens: u.outputTokens,
    output_tokens_details: { reasoning_tokens: u.reasoningTokens },
    total_tokens: u.inputTokens + u.outputTokens,
  };
}

/** The request fields a response object echoes, with the defaults OpenAI shows when they were not sent. */
export function echoedFields(request: JsonObject): JsonObject {
  const pick = (k: string, fallback: unknown): unknown => (request[k] === undefined ? fallback : request[k]);
  return {
    instructions: pick('instructions', null),
    max_output_tokens: pick('max_output_tokens', null),
    parallel_tool_calls: pick('parallel_tool_calls', true),
    previous_response_id: pick('previous_response_id', null),
    reasoning: isObject(request.reasoning)
      ? { effort: request.reasoning.effort ?? null, summary: request.reasoning.summary ?? null }
      : { effort: null, summary: null },
    store: pick('store', true),
    temperature: pick('temperature', 1),
    text: isObject(request.text) ? request.text : { format: { type: 'text' } },
    tool_choice: pick('tool_choice', 'auto'),
    tools: Array.isArray(request.tools) ? request.tools.map(echoedTool) : [],
    top_p: pick('top_p', 1),
    truncation: pick('truncation', 'disabled'),
    frequency_penalty: pick('frequency_penalty', 0),
    presence_penalty: pick('presence_penalty', 0),
    top_logprobs: pick('top_logprobs', 0),
    max_tool_calls: pick('max_tool_calls', null),
    safety_identifier: pick('safety_identifier', null),
    prompt_cache_key: pick('prompt_cache_key', null),
    ...(typeof request.user === 'string' ? { user: request.user } : {}),
    metadata: isObject(request.metadata) ? request.metadata : {},
  };
}

/**
 * A tool as the response object lists it: a function tool always says whether its schema is enforced
 * (`strict` is a required field; null when the caller did not say, since a translated route passes the
 * schema on without enforcing it itself).
 */
function echoedTool(tool: unknown): unknown {
  if (!isObject(tool) || tool.type !== 'function' || tool.strict !== undefined) return tool;
  return { ...tool, strict: null };
}

/** Usage before it is known: zeros (the schema's ResponseUsage is an object, never null). */
function zeroUsage(): JsonObject {
  return usageObject({ inputTokens: 0, cachedTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0 });
}

export function responseObject(o: {
  id: string;
  model: string;
  createdAt: number;
  status: ResponseStatus;
  output: JsonObject[];
  usage: JsonObject | null;
  echo: JsonObject;
  error?: { code: string; message: string } | null;
  incompleteReason?: 'max_output_tokens' | 'content_filter' | null;
}): JsonObject {
  return {
    id: o.id,
    object: 'response',
    created_at: o.createdAt,
    status: o.status,
    // Required (OpenResponses), null until the response completes.
    completed_at: o.status === 'completed' ? Math.floor(Date.now() / 1000) : null,
    background: false,
    error: o.error ?? null,
    incomplete_details: o.incompleteReason ? { reason: o.incompleteReason } : null,
    model: o.model,
    output: o.output,
    ...o.echo,
    service_tier: 'default',
    // Not known while in progress: zeros until the last event says.
    usage: o.usage ?? zeroUsage(),
  };
}

export function messageItem(id: string, text: string, status: 'in_progress' | 'completed' | 'incomplete'): JsonObject {
  return {
    id,
    type: 'message',
    status,
    role: 'assistant',
    content: status === 'in_progress' && text === '' ? [] : [outputText(text)],
  };
}

export function outputText(text: string): JsonObject {
  return { type: 'output_text', annotations: [], logprobs: [], text };
}

export function functionCallItem(o: {
  id: string;
  callId: string;
  name: string;
  arguments: string;
  status: 'in_progress' | 'completed';
}): JsonObject {
  return { id: o.id, type: 'function_call', status: o.status, arguments: o.arguments, call_id: o.callId, name: o.name };
}

export function customToolCallItem(o: { id: string; callId: string; name: string; input: string }): JsonObject {
  return { id: o.id, type: 'custom_tool_call', call_id: o.callId, name: o.name, input: o.input };
}

export function reasoningItem(o: { id: string; summary: string[]; encrypted?: string }): JsonObject {
  const item: JsonObject = {
    id: o.id,
    type: 'reasoning',
    summary: o.summary.map((text) => ({ type: 'summary_text', text })),
  };
  if (o.encrypted !== undefined) item.encrypted_content = o.encrypted;
  return item;
}

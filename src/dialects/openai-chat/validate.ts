// Validation of POST /v1/chat/completions bodies (SPEC §2.1): only what the gateway must rely on or
// what every upstream rejects anyway; unknown fields pass through untouched.
import { GatewayError } from '../../core/errors.ts';
import { isObject } from '../../core/json.ts';
import type { RequestFacts } from '../request-facts.ts';

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function']);

function bad(message: string, param: string): GatewayError {
  return new GatewayError('invalid_request', { message, param });
}

export function validateChatRequest(body: unknown): RequestFacts {
  if (!isObject(body)) throw bad('The request body must be a JSON object.', '');
  const { model, messages, stream, stream_options: streamOptions } = body;
  if (typeof model !== 'string' || model.length === 0)
    throw bad('`model` is required and must be a non-empty string.', 'model');
  if (!Array.isArray(messages) || messages.length === 0)
    throw bad('`messages` is required and must be a non-empty array.', 'messages');
  for (let i = 0; i < messages.length; i++) {
    const m: unknown = messages[i];
    if (!isObject(m)) throw bad(`messages[${i}] must be an object.`, `messages[${i}]`);
    if (typeof m.role !== 'string' || !ROLES.has(m.role)) {
      throw bad(`messages[${i}].role must be one of system, developer, user, assistant, tool.`, `messages[${i}].role`);
    }
    const c = m.content;
    if (c !== undefined && c !== null && typeof c !== 'string' && !Array.isArray(c)) {
      throw bad(`messages[${i}].content must be a string or an array of content parts.`, `messages[${i}].content`);
    }
    if ((c === undefined || c === null) && m.role !== 'assistant') {
      throw bad(`messages[${i}].content is required for role ${m.role}.`, `messages[${i}].content`);
    }
  }
  if (stream !== undefined && stream !== null && typeof stream !== 'boolean')
    throw bad('`stream` must be a boolean.', 'stream');
  if (streamOptions !== undefined && streamOptions !== null && !isObject(streamOptions))
    throw bad('`stream_options` must be an object.', 'stream_options');
  const maxTokens = optionalPositiveInt(body, 'max_completion_tokens') ?? optionalPositiveInt(body, 'max_tokens');
  optionalNumber(body, 'temperature', 0, 2);
  optionalNumber(body, 'top_p', 0, 1);
  if (body.tools !== undefined && body.tools !== null && !Array.isArray(body.tools))
    throw bad('`tools` must be an array.', 'tools');
  const tc = body.tool_choice;
  if (tc !== undefined && tc !== null && typeof tc !== 'string' && !isObject(tc))
    throw bad('`tool_choice` must be a string or an object.', 'tool_choice');
  const rf = body.response_format;
  if (rf !== undefined && rf !== null && (!isObject(rf) || typeof rf.type !== 'string')) {
    throw bad('`response_format` must be an object with a `type`.', 'response_format');
  }
  return {
    model,
    stream: stream === true,
    maxTokens,
    includeUsage: stream === true && isObject(streamOptions) && streamOptions.include_usage === true,
  };
}

export function optionalPositiveInt(body: Record<string, unknown>, field: string): number | null {
  const v = body[field];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1)
    throw bad(`\`${field}\` must be a positive integer.`, field);
  return v;
}

export function optionalNumber(body: Record<string, unknown>, field: string, min: number, max: number): void {
  const v = body[field];
  if (v === undefined || v === null) return;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max)
    throw bad(`\`${field}\` must be a number from ${min} to ${max}.`, field);
}

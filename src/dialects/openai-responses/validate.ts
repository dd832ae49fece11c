// Validation of POST /v1/responses bodies: what the gateway relies on (model, stream, store, the
// conversation it continues) and shapes every upstream refuses anyway, each a 400 naming its field;
// unknown fields pass through untouched on the native route.
import { GatewayError } from '../../core/errors.ts';
import { isObject } from '../../core/json.ts';
import type { RequestFacts } from '../request-facts.ts';
import { optionalNumber, optionalPositiveInt } from '../openai-chat/validate.ts';

export interface ResponsesFacts extends RequestFacts {
  /** False only when the caller sent `store: false`: then nothing is kept. */
  store: boolean;
  previousResponseId: string | null;
}

const ITEM_TYPES = new Set([
  'message',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'reasoning',
  'item_reference',
  'local_shell_call',
  'local_shell_call_output',
  'shell_call',
  'shell_call_output',
  'apply_patch_call',
  'apply_patch_call_output',
  'web_search_call',
  'file_search_call',
  'computer_call',
  'computer_call_output',
  'image_generation_call',
  'code_interpreter_call',
  'mcp_call',
  'mcp_list_tools',
  'mcp_approval_request',
  'mcp_approval_response',
  'compaction',
]);
const ROLES = new Set(['user', 'assistant', 'system', 'developer']);

function bad(message: string, param: string): GatewayError {
  return new GatewayError('invalid_request', { message, param });
}

export function validateResponsesRequest(body: unknown): ResponsesFacts {
  if (!isObject(body)) throw bad('The request body must be a JSON object.', '');
  const { model, input, stream, store } = body;
  if (typeof model !== 'string' || model.length === 0)
    throw bad('`model` is required and must be a non-empty string.', 'model');
  const previous = body.previous_response_id;
  if (previous !== undefined && previous !== null && (typeof previous !== 'string' || previous.length === 0)) {
    throw bad('`previous_response_id` must be a non-empty string.', 'previous_response_id');
  }
  if (input === undefined || input === null) {
    if (typeof previous !== 'string') throw bad('`input` is required: a string or an array of input items.', 'input');
  } else if (typeof input !== 'string') {
    if (!Array.isArray(input)) throw bad('`input` must be a string or an array of input items.', 'input');
    for (let i = 0; i < input.length; i++) checkItem(input[i], `input[${i}]`);
  }
  const instructions = body.instructions;
  if (instructions !== undefined && instructions !== null && typeof instructions !== 'string')
    throw bad('`instructions` must be a string.', 'instructions');
  if (stream !== undefined && stream !== null && typeof stream !== 'boolean')
    throw bad('`stream` must be a boolean.', 'stream');
  if (store !== undefined && store !== null && typeof store !== 'boolean')
    throw bad('`store` must be a boolean.', 'store');
  const maxTokens = optionalPositiveInt(body, 'max_output_tokens');
  optionalNumber(body, 'temperature', 0, 2);
  optionalNumber(body, 'top_p', 0, 1);
  optionalKind(body, 'parallel_tool_calls', 'boolean');
  if (body.tools !== undefined && body.tools !== null) {
    if (!Array.isArray(body.tools)) throw bad('`tools` must be an array.', 'tools');
    body.tools.forEach((t: unknown, i) => {
      if (!isObject(t) || typeof t.type !== 'string')
        throw bad(`tools[${i}] must be an object with a \`type\`.`, `tools[${i}]`);
      if ((t.type === 'function' || t.type === 'custom') && (typeof t.name !== 'string' || t.name === ''))
        throw bad(`tools[${i}].name is required.`, `tools[${i}].name`);
    });
  }
  const tc = body.tool_choice;
  if (tc !== undefined && tc !== null && typeof tc !== 'string' && !isObject(tc))
    throw bad('`tool_choice` must be a string or an object.', 'tool_choice');
  const text = body.text;
  if (text !== undefined && text !== null) {
    if (!isObject(text)) throw bad('`text` must be an object.', 'text');
    if (text.format !== undefined && (!isObject(text.format) || typeof text.format.type !== 'string'))
      throw bad('`text.format` must be an object with a `type`.', 'text.format');
    if (isObject(text.format) && text.format.type === 'json_schema' && !isObject(text.format.schema))
      throw bad('`text.format.schema` is required for json_schema.', 'text.format.schema');
  }
  optionalKind(body, 'reasoning', 'object');
  const metadata = body.metadata;
  if (metadata !== undefined && metadata !== null) {
    if (!isObject(metadata)) throw bad('`metadata` must be an object of strings.', 'metadata');
    for (const [k, v] of Object.entries(metadata))
      if (typeof v !== 'string') throw bad(`metadata.${k} must be a string.`, `metadata.${k}`);
  }
  const include = body.include;
  if (
    include !== undefined &&
    include !== null &&
    (!Array.isArray(include) || include.some((v) => typeof v !== 'string'))
  )
    throw bad('`include` must be an array of strings.', 'include');
  return {
    model,
    stream: stream === true,
    maxTokens,
    includeUsage: false,
    store: store !== false,
    previousResponseId: typeof previous === 'string' ? previous : null,
  };
}

export function checkItem(item: unknown, where: string): void {
  if (!isObject(item)) throw bad(`${where} must be an object.`, where);
  const type = item.type ?? 'message';
  if (typeof type !== 'string' || !ITEM_TYPES.has(type))
    throw bad(`${where}.type \`${String(type)}\` is not an input item type.`, `${where}.type`);
  if (type === 'message') {
    if (typeof item.role !== 'string' || !ROLES.has(item.role))
      throw bad(`${where}.role must be one of user, assistant, system, developer.`, `${where}.role`);
    if (typeof item.content !== 'string' && !Array.isArray(item.content))
      throw bad(`${where}.content must be a string or an array of content parts.`, `${where}.content`);
    if (Array.isArray(item.content)) {
      item.content.forEach((p: unknown, j) => {
        if (!isObject(p) || typeof p.type !== 'string')
          throw bad(`${where}.content[${j}] must be an object with a \`type\`.`, `${where}.content[${j}]`);
      });
    }
  } else if (type === 'function_call' || type === 'custom_tool_call') {
    if (typeof item.call_id !== 'string') throw bad(`${where}.call_id is required.`, `${where}.call_id`);
    if (typeof item.name !== 'string') throw bad(`${where}.name is required.`, `${where}.name`);
  } else if (type === 'function_call_output' || type === 'custom_tool_call_output') {
    if (typeof item.call_id !== 'string') throw bad(`${where}.call_id is required.`, `${where}.call_id`);
    if (typeof item.output !== 'string' && !Array.isArray(item.output))
      throw bad(`${where}.output must be a string or an array of content parts.`, `${where}.output`);
  }
}

function optionalKind(body: Record<string, unknown>, field: string, kind: 'boolean' | 'object'): void {
  const v = body[field];
  if (v === undefined || v === null) return;
  if (kind === 'object' ? !isObject(v) : typeof v !== kind)
    throw bad(`\`${field}\` must be ${kind === 'object' ? 'an object' : 'a boolean'}.`, field);
}

/** POST /v1/responses/input_tokens: a model, and `input` (when sent) as a string or a list of items. */
export function validateResponsesCount(body: unknown): Record<string, unknown> & { model: string } {
  if (!isObject(body) || typeof body.model !== 'string')
    throw new GatewayError('invalid_request', { message: 'model: Field required.', param: 'model' });
  if (body.input !== undefined && typeof body.input !== 'string' && !Array.isArray(body.input)) {
    throw new GatewayError('invalid_request', {
      message: '`input` must be a string or an array of input items.',
      param: 'input',
    });
  }
  return body as Record<string, unknown> & { model: string };
}

// How OpenAI response_format reaches an Anthropic-style upstream, and how the reply is recognised again.
//
// anthropic-openapi.json has a native `output_config.format` ({type:"json_schema", schema}), but only newer
// Claude models and the first-party API accept it; Bedrock/Vertex-style proxies and older models reject the
// field. A forced tool whose input_schema is the wanted schema works on every Claude model, so it is the
// default; `native` is chosen by option, and always when thinking is on (Anthropic refuses forced tool use
// together with extended thinking).
import type { AnthropicTool } from './wire-anthropic.ts';
import type { ChatRequest } from './wire-openai.ts';
import { isObject, str } from './narrow.ts';
import { TranslationError } from './translation-error.ts';

export type StructuredOutputMode = 'tool' | 'native';

/** Passed back to messagesResponseToChat / MessagesStreamToChatStream: this tool's input is the JSON reply. */
export interface JsonMode {
  toolName: string;
  /** Set when the client's schema is not an object: the tool input wraps the value under this key. */
  wrapKey: string | null;
}

/** The JSON text the client sees for the forced tool's input. */
export function jsonTextOfToolInput(input: Record<string, unknown>, mode: JsonMode): string {
  return JSON.stringify(mode.wrapKey === null ? input : input[mode.wrapKey]);
}

export const JSON_TOOL_BASE_NAME = 'json_response';

export interface JsonFormat {
  /** Always an object schema (tool input_schema must be one); see wrapKey. */
  schema: Record<string, unknown>;
  description: string;
  wrapKey: string | null;
}

function objectFormat(schema: Record<string, unknown>, description: string): JsonFormat {
  if (schema.type === 'object' || schema.type === undefined) return { schema, description, wrapKey: null };
  return { schema: { type: 'object', properties: { value: schema }, required: ['value'] }, description, wrapKey: 'value' };
}

/** The schema the client asked for, or null for text / no response_format. */
export function jsonFormatOf(body: ChatRequest): JsonFormat | null {
  const rf: unknown = body.response_format;
  if (rf === undefined || rf === null) return null;
  if (!isObject(rf)) throw new TranslationError('response_format', 'response_format must be an object');
  if (rf.type === 'text') return null;
  if (rf.type === 'json_object') {
    return { schema: { type: 'object', additionalProperties: true }, description: 'Reply with a JSON object.', wrapKey: null };
  }
  if (rf.type === 'json_schema') {
    const js = rf.json_schema;
    if (!isObject(js)) throw new TranslationError('response_format.json_schema', 'response_format.json_schema is required');
    const schema = isObject(js.schema) ? js.schema : { type: 'object', additionalProperties: true };
    const name = str(js.name) ?? 'response';
    return objectFormat(schema, str(js.description) ?? `Reply with JSON matching the ${name} schema.`);
  }
  throw new TranslationError('response_format.type', `response_format.type ${String(rf.type)} cannot be sent to this model`);
}

/** A tool name that does not collide with one of the client's own tools. */
export function jsonToolName(tools: readonly AnthropicTool[]): string {
  let name = JSON_TOOL_BASE_NAME;
  for (let i = 2; tools.some((t) => t.name === name); i++) name = `${JSON_TOOL_BASE_NAME}_${i}`;
  return name;
}

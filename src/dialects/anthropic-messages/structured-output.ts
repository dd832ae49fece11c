// How a JSON reply format reaches an Anthropic-style upstream, and how the reply is recognised again.
//
// anthropic-openapi.json has a native `output_config.format` ({type:"json_schema", schema}), but only newer
// Claude models and the first-party API accept it; Bedrock/Vertex-style proxies and older models reject the
// field. A forced tool whose input_schema is the wanted schema works on every Claude model, so it is the
// default; `native` is chosen by option, and always when thinking is on (Anthropic refuses forced tool use
// together with extended thinking).
import type { HubResponseFormat } from '../../spec/form.ts';
import type { AnthropicTool } from './wire.ts';
import { isObject } from '../../core/json.ts';

export type StructuredOutputMode = 'tool' | 'native';

/** Kept for the reply decoder: this tool's input is the JSON reply. */
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

/** The forced tool's schema and description for a JSON reply format; a schema without one is any object. */
export function jsonFormatOf(format: Extract<HubResponseFormat, { type: 'json' }>): JsonFormat {
  const description =
    format.description ??
    (format.name !== undefined ? `Reply with JSON matching the ${format.name} schema.` : 'Reply with a JSON object.');
  const schema = format.schema ?? { type: 'object', additionalProperties: true };
  if (schema.type === 'object' || schema.type === undefined) return { schema, description, wrapKey: null };
  return {
    schema: { type: 'object', properties: { value: schema }, required: ['value'], additionalProperties: false },
    description,
    wrapKey: 'value',
  };
}

/** A tool name that does not collide with one of the client's own tools. */
export function jsonToolName(tools: readonly AnthropicTool[]): string {
  let name = JSON_TOOL_BASE_NAME;
  for (let i = 2; tools.some((t) => t.name === name); i++) name = `${JSON_TOOL_BASE_NAME}_${i}`;
  return name;
}

/**
 * The forced tool's streamed input with the wrapper taken off as it streams: `{"value": [1, 2]}` arrives
 * in fragments and `[1, 2]` leaves, so streamed and whole replies carry the same JSON. The opening
 * `{"value":` is held until it is whole; trailing whitespace and braces are held until more text shows
 * they belong to the value, and at the end the wrapper's closing brace is dropped. Input that does not
 * start like the wrapper is kept whole and unwrapped (or passed as is) at the end.
 */
export class StreamedJsonUnwrap {
  readonly #key: string;
  readonly #opening: RegExp;
  readonly #compactOpening: string;
  #head = '';
  #state: 'opening' | 'value' | 'whole' = 'opening';
  #tail = '';

  constructor(key: string) {
    this.#key = key;
    this.#opening = new RegExp(`^\\s*\\{\\s*${JSON.stringify(key).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*:\\s*`);
    this.#compactOpening = `{${JSON.stringify(key)}:`;
  }

  /** A fragment of the tool input in; the part of the value that is certain so far out. */
  push(part: string): string {
    if (this.#state === 'value') return this.#value(part);
    this.#head += part;
    if (this.#state === 'whole') return '';
    const m = this.#opening.exec(this.#head);
    if (m !== null) {
      if (m[0].length === this.#head.length) return '';
      this.#state = 'value';
      const rest = this.#head.slice(m[0].length);
      this.#head = '';
      return this.#value(rest);
    }
    // Not (yet) the opening: keep waiting while it could still become it.
    if (!this.#compactOpening.startsWith(this.#head.replace(/\s+/g, ''))) this.#state = 'whole';
    return '';
  }

  /** The block ended: what is left of the value. */
  end(): string {
    if (this.#state === 'value') {
      const tail = this.#tail;
      this.#tail = '';
      const close = tail.lastIndexOf('}');
      return (close === -1 ? tail : tail.slice(0, close)).trimEnd();
    }
    const text = this.#head;
    this.#head = '';
    if (text.trim() === '') return '';
    try {
      const parsed: unknown = JSON.parse(text);
      if (isObject(parsed) && Object.hasOwn(parsed, this.#key)) return JSON.stringify(parsed[this.#key]);
    } catch {
      // Not JSON: the client gets the model's text as it was.
    }
    return text;
  }

  #value(part: string): string {
    const text = this.#tail + part;
    let cut = text.length;
    for (
      let c = text.charCodeAt(cut - 1);
      cut > 0 && (c === 125 /* } */ || c === 32 || c === 10 || c === 13 || c === 9);
      c = text.charCodeAt(--cut - 1)
    );
    this.#tail = text.slice(cut);
    return text.slice(0, cut);
  }
}

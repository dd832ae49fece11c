// The common chat body told by hand: schema.ts costs about 5 % of a non-streamed request's instructions
// (zod copies every object it checks), past what a check may cost on the hot path. A body this function
// accepts is one the schema accepts too (a test holds the two together over every field's edge cases);
// anything it does not accept goes to the schema, which refuses it with the parameter's name or accepts
// the rarer shapes this leaves out.
import { ROLES } from './schema.ts';

const ROLE_SET: ReadonlySet<string> = new Set(ROLES);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Absent, null, or a whole number ≥ 1. */
function countOrNothing(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === 'number' && Number.isInteger(v) && v >= 1);
}

/** Absent, null, or a finite number in [min, max]. */
function numberOrNothing(v: unknown, min: number, max: number): boolean {
  return v === undefined || v === null || (typeof v === 'number' && v >= min && v <= max);
}

function plainMessage(m: unknown): boolean {
  if (!isObject(m)) return false;
  const role = m.role;
  if (typeof role !== 'string' || !ROLE_SET.has(role)) return false;
  const content = m.content;
  return typeof content === 'string' || Array.isArray(content) || (role === 'assistant' && content == null);
}

/** True when `body` is certainly a valid chat request (schema.ts); false says only "ask the schema". */
export function plainChatBody(body: unknown): boolean {
  if (!isObject(body)) return false;
  const { model, messages, stream, stream_options, tools, tool_choice, response_format } = body;
  if (typeof model !== 'string' || model === '' || !Array.isArray(messages) || messages.length === 0) return false;
  for (const m of messages) if (!plainMessage(m)) return false;
  return (
    (stream == null || typeof stream === 'boolean') &&
    (stream_options == null || isObject(stream_options)) &&
    countOrNothing(body.max_completion_tokens) &&
    countOrNothing(body.max_tokens) &&
    numberOrNothing(body.temperature, 0, 2) &&
    numberOrNothing(body.top_p, 0, 1) &&
    (tools == null || Array.isArray(tools)) &&
    (tool_choice == null || typeof tool_choice === 'string' || isObject(tool_choice)) &&
    (response_format == null || (isObject(response_format) && typeof response_format.type === 'string'))
  );
}

// The deterministic content of a mock reply: same request, same words, same usage — in either dialect.
import { isObject, type JsonObject } from '../../core/json.ts';
import { schemaInstance } from './schema-instance.ts';

const WORDS = [
  'This',
  'is',
  'a',
  'deterministic',
  'reply',
  'from',
  'the',
  'modelgate',
  'mock',
  'model',
  'for',
  'testing',
];

export interface MockPlan {
  /** The words of the text reply, one token each (the first has no leading space). */
  words: string[];
  /** A tool call instead of text, when the request offered tools and did not just answer one. */
  tool: { id: string; name: string; arguments: string } | null;
  inputTokens: number;
  /** The reply was cut by max_tokens. */
  truncated: boolean;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let out = '';
  for (const part of content) if (isObject(part) && typeof part.text === 'string') out += part.text + ' ';
  return out;
}

/** Deterministic prompt count: ~4 characters a token over all message and system text, at least 1. */
function countInput(body: JsonObject): number {
  let chars = textOf(body.system).length;
  if (Array.isArray(body.messages))
    for (const m of body.messages) if (isObject(m)) chars += textOf(m.content).length + 4;
  if (Array.isArray(body.tools)) chars += JSON.stringify(body.tools).length;
  return Math.max(1, Math.ceil(chars / 4));
}

function lastIsToolResult(body: JsonObject): boolean {
  const msgs = Array.isArray(body.messages) ? body.messages : [];
  const last: unknown = msgs[msgs.length - 1];
  if (!isObject(last)) return false;
  if (last.role === 'tool') return true;
  return Array.isArray(last.content) && last.content.some((b) => isObject(b) && b.type === 'tool_result');
}

/** A tool's name and its arguments' schema, in any dialect: chat's `function`, Anthropic's `input_schema`, Responses' and Gemini's `parameters`. */
function toolOf(t: unknown): { name: string; schema: unknown } | null {
  if (!isObject(t)) return null;
  if (isObject(t.function) && typeof t.function.name === 'string')
    return { name: t.function.name, schema: t.function.parameters };
  if (typeof t.name !== 'string') return null;
  const schema = t.input_schema ?? t.parameters ?? t.parametersJsonSchema;
  // A tool the model calls with JSON arguments: not a hosted tool or a free-form (grammar) one.
  if (schema === undefined && t.type !== undefined && t.type !== 'function') return null;
  return { name: t.name, schema };
}

/** Agents' shell tools: the mock calls one when offered (`echo mock` runs harmlessly and ends the turn). */
const SHELL_TOOL = /^(bash|shell|run_shell_command|exec_command|shell_command)$/i;

/**
 * The tool the mock calls: a shell tool if offered, else the first that takes JSON arguments, else the
 * first tool with a name. A shell tool goes first because an agent's first tool may start a sub-agent,
 * whose own first turn would call it again without end.
 */
function chosenTool(body: JsonObject): { name: string; arguments: string } | null {
  if (!Array.isArray(body.tools) || body.tools.length === 0) return null;
  for (const t of body.tools) {
    const tool = toolOf(t);
    if (tool !== null && SHELL_TOOL.test(tool.name))
      return { name: tool.name, arguments: JSON.stringify(schemaInstance(tool.schema ?? {})) };
  }
  for (const t of body.tools) {
    const tool = toolOf(t);
    if (tool !== null) return { name: tool.name, arguments: JSON.stringify(schemaInstance(tool.schema ?? {})) };
  }
  for (const t of body.tools)
    if (isObject(t) && typeof t.name === 'string') return { name: t.name, arguments: '{"input":"mock"}' };
  return null;
}

export function planMockReply(body: JsonObject, replyWords: number, seed: string): MockPlan {
  const inputTokens = countInput(body);
  const tool = lastIsToolResult(body) ? null : chosenTool(body);
  const max =
    typeof body.max_tokens === 'number'
      ? body.max_tokens
      : typeof body.max_completion_tokens === 'number'
        ? body.max_completion_tokens
        : Infinity;
  if (tool !== null) {
    return {
      words: [],
      tool: { id: seed, name: tool.name, arguments: tool.arguments },
      inputTokens,
      truncated: false,
    };
  }
  const words: string[] = [];
  for (let i = 0; i < replyWords; i++) words.push((i === 0 ? '' : ' ') + WORDS[i % WORDS.length]);
  const truncated = words.length > max;
  return { words: truncated ? words.slice(0, max) : words, tool: null, inputTokens, truncated };
}

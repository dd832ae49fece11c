// The deterministic content of a mock reply: same request, same words, same usage — in either dialect.
import { isObject, type JsonObject } from '../../core/json.ts';

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

function firstToolName(body: JsonObject): string | null {
  if (!Array.isArray(body.tools) || body.tools.length === 0) return null;
  const t: unknown = body.tools[0];
  if (!isObject(t)) return null;
  if (typeof t.name === 'string') return t.name;
  if (isObject(t.function) && typeof t.function.name === 'string') return t.function.name;
  return null;
}

export function planMockReply(body: JsonObject, replyWords: number, seed: string): MockPlan {
  const inputTokens = countInput(body);
  const toolName = lastIsToolResult(body) ? null : firstToolName(body);
  const max =
    typeof body.max_tokens === 'number'
      ? body.max_tokens
      : typeof body.max_completion_tokens === 'number'
        ? body.max_completion_tokens
        : Infinity;
  if (toolName) {
    return {
      words: [],
      tool: { id: seed, name: toolName, arguments: '{"input":"mock"}' },
      inputTokens,
      truncated: false,
    };
  }
  const words: string[] = [];
  for (let i = 0; i < replyWords; i++) words.push((i === 0 ? '' : ' ') + WORDS[i % WORDS.length]);
  const truncated = words.length > max;
  return { words: truncated ? words.slice(0, max) : words, tool: null, inputTokens, truncated };
}

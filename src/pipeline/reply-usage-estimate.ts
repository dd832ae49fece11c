// The bill of a whole answer that came without usage (some local and compatible servers omit it): the
// prompt estimate, and the reply's output at about four characters a token — as a stream without usage
// is billed — rather than nothing.
import type { Dialect } from '../core/dialect.ts';
import { isObject } from '../core/json.ts';
import { outputTokensForChars, type Usage } from '../core/usage.ts';

export function estimatedReplyUsage(reply: unknown, dialect: Dialect, promptEstimate: () => number): Usage {
  const chars = dialect === 'openai' ? openAiOutputChars(reply) : dialect === 'responses' ? responsesOutputChars(reply) : anthropicOutputChars(reply);
  return { inputTokens: promptEstimate(), outputTokens: outputTokensForChars(chars), cacheReadTokens: 0, cacheWriteTokens: 0 };
}

function openAiOutputChars(reply: unknown): number {
  if (!isObject(reply) || !Array.isArray(reply.choices)) return 0;
  let chars = 0;
  for (const choice of reply.choices) {
    const m: unknown = isObject(choice) ? choice.message : undefined;
    if (!isObject(m)) continue;
    chars += textLength(m.content) + textLength(m.reasoning_content ?? m.reasoning) + textLength(m.refusal);
    if (!Array.isArray(m.tool_calls)) continue;
    for (const call of m.tool_calls) {
      const fn: unknown = isObject(call) ? call.function : undefined;
      if (isObject(fn)) chars += textLength(fn.name) + textLength(fn.arguments);
    }
  }
  return chars;
}

function anthropicOutputChars(reply: unknown): number {
  if (!isObject(reply) || !Array.isArray(reply.content)) return 0;
  let chars = 0;
  for (const block of reply.content) {
    if (!isObject(block)) continue;
    chars += textLength(block.text) + textLength(block.thinking);
    if (block.type === 'tool_use') chars += textLength(block.name) + JSON.stringify(block.input ?? {}).length;
  }
  return chars;
}

function responsesOutputChars(reply: unknown): number {
  if (!isObject(reply) || !Array.isArray(reply.output)) return 0;
  let chars = 0;
  for (const item of reply.output) {
    if (!isObject(item)) continue;
    chars += textLength(item.content) + textLength(item.summary) + textLength(item.arguments) + textLength(item.input) + textLength(item.name);
  }
  return chars;
}

/** A string's length, or the text parts of a content array. */
function textLength(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (!Array.isArray(value)) return 0;
  let n = 0;
  for (const part of value) if (isObject(part) && typeof part.text === 'string') n += part.text.length;
  return n;
}

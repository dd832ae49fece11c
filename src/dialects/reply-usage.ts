// The usage of a whole reply body: read where the upstream wrote it (each dialect's reader in its
// folder), or, for a reply that came without it, estimated from the reply's content.
import type { Dialect } from '../core/dialect.ts';
import { emptyUsage, estimatedUsage, type Usage } from '../core/usage.ts';
import { isObject } from '../core/json.ts';
import type { HubReply } from '../translate/hub/form.ts';
import { readAnthropicUsage } from './anthropic-messages/usage.ts';
import { decodeMessagesReply } from './anthropic-messages/decode-reply.ts';
import { decodeGeminiReply } from './gemini/decode-reply.ts';
import { readOpenAIUsage } from './openai-chat/usage.ts';
import { decodeChatReply } from './openai-chat/decode-reply.ts';
import { readResponsesUsage } from './openai-responses/usage.ts';
import { decodeResponsesReply } from './openai-responses/decode-reply.ts';

/**
 * The top-level `usage` of a response body. The official APIs write it last or nearly last, so the
 * last `"usage"` key is tried first, and only the text after its object is scanned to prove it sits at
 * the top level. A body that puts usage before its content, where a tool's input may hold a `usage`
 * key of its own (the model's words, not the bill), is parsed whole instead.
 */
export function extractUsage(text: string, dialect: Dialect): Usage | null {
  const at = text.lastIndexOf('"usage"');
  if (at === -1) return null;
  const span = objectAfter(text, at);
  if (span !== null && closesTopLevel(text, span[1] + 1)) return read(text.slice(span[0], span[1] + 1), dialect);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  return isObject(parsed) && isObject(parsed.usage) ? readValue(parsed.usage, dialect) : null;
}

/** [open, close] of the object value after the key at `at`, or null when it is not an object. */
function objectAfter(text: string, at: number): [number, number] | null {
  let open = at + 7;
  while (isSpace(text.charCodeAt(open))) open++;
  if (text.charCodeAt(open) !== 58 /* : */) return null;
  open++;
  while (isSpace(text.charCodeAt(open))) open++;
  if (text.charCodeAt(open) !== 123 /* { */) return null;
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) i = stringEnd(text, i);
    else if (c === 123) depth++;
    else if (c === 125 && --depth === 0) return [open, i];
  }
  return null;
}

/** True when the text from `from` closes exactly one object (the body's) and nothing follows it. */
function closesTopLevel(text: string, from: number): boolean {
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) i = stringEnd(text, i);
    else if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) {
      if (--depth === -1) {
        for (let j = i + 1; j < text.length; j++) if (!isSpace(text.charCodeAt(j))) return false;
        return c === 125;
      }
    }
  }
  return false;
}

/** Index of the quote that closes the string opening at `i`. */
function stringEnd(text: string, i: number): number {
  for (i++; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 92) i++;
    else if (c === 34) return i;
  }
  return i;
}

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

function read(objectText: string, dialect: Dialect): Usage | null {
  try {
    return readValue(JSON.parse(objectText), dialect);
  } catch {
    return null;
  }
}

function readValue(obj: unknown, dialect: Dialect): Usage | null {
  const u = emptyUsage();
  const ok = dialect === 'openai' ? readOpenAIUsage(obj, u) : dialect === 'responses' ? readResponsesUsage(obj, u) : readAnthropicUsage(obj, u);
  return ok ? u : null;
}

/**
 * The bill of a whole reply that came without usage (some local and compatible servers omit it): the
 * prompt estimate, and the reply's output at about four characters a token, as a stream without usage
 * is billed, rather than nothing. The reply is read by its dialect's decoder, as translation reads it.
 */
export function estimatedReplyUsage(reply: unknown, dialect: Dialect, promptEstimate: () => number): Usage {
  const body = isObject(reply) ? reply : {};
  return estimatedHubUsage(decodedReply(body, dialect), promptEstimate);
}

function decodedReply(body: Record<string, unknown>, dialect: Dialect): HubReply {
  if (dialect === 'openai') return decodeChatReply(body, undefined);
  if (dialect === 'responses') return decodeResponsesReply(body);
  if (dialect === 'gemini') return decodeGeminiReply(body);
  return decodeMessagesReply(body, undefined);
}

/** The same bill for a reply already decoded into the hub's form. */
export function estimatedHubUsage(reply: HubReply, promptEstimate: () => number): Usage {
  let chars = 0;
  for (const part of reply.content) {
    if (part.type === 'text' || part.type === 'reasoning') chars += part.text.length;
    else if (part.type === 'tool-call') chars += part.name.length + part.input.length;
  }
  return estimatedUsage(promptEstimate(), chars);
}

// A pass-through body read as JSON text, not parsed: the client's bytes are kept and only the value of the
// top-level "model" key is replaced (unknown fields and formatting survive), and the usage object of an
// upstream's reply is found without parsing its (possibly large) content.
import type { Dialect } from '../core/dialect.ts';
import { emptyUsage, type Usage } from '../core/usage.ts';
import { isObject } from '../core/json.ts';
import { readAnthropicUsage } from './anthropic-messages/usage.ts';
import { readOpenAIUsage } from './openai-chat/usage.ts';
import { readResponsesToolCalls, readResponsesUsage } from './openai-responses/usage.ts';

/**
 * Span [start, end) of the top-level `"model"` string value including its quotes, or null when there is
 * not exactly one top-level model key (spelled plainly or with escapes, `"mod\u0065l"`). JSON.parse keeps
 * the last of repeated keys, so routing and billing read a model a patch of the first would leave beside
 * it for the upstream (whose parser may keep either): such a body is re-serialised, not patched.
 */
export function findTopLevelModel(text: string): [number, number] | null {
  let depth = 0;
  let found: [number, number] | null = null;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    // Past the first model key only a second one matters, and it needs the text `"model"` or an escaped
    // letter of it: without either (native searches), the rest need not be walked.
    if (found !== null && i === found[1] && !mayHoldModelKey(text, i)) return found;
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      const end = skipString(text, i);
      if (depth === 1) {
        let j = end;
        while (j < n && isWs(text.charCodeAt(j))) j++;
        if (text.charCodeAt(j) === 58 /* : */ && isModelKey(text, i, end)) {
          if (found !== null) return null;
          j++;
          while (j < n && isWs(text.charCodeAt(j))) j++;
          if (text.charCodeAt(j) !== 34) return null;
          found = [j, skipString(text, j)];
          i = found[1] - 1;
          continue;
        }
      }
      i = end - 1;
    } else if (c === 123 /* { */ || c === 91 /* [ */) depth++;
    else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return found;
}

/** Whether text from `from` on holds `"model"` or a \\u escape of one of its letters (m o l: 006x, d: 0064, e: 0065). */
function mayHoldModelKey(text: string, from: number): boolean {
  return (
    text.indexOf('"model"', from) !== -1 ||
    text.indexOf('\\u006', from) !== -1 ||
    text.indexOf('\\u0064', from) !== -1 ||
    text.indexOf('\\u0065', from) !== -1
  );
}

/** Whether the key string text[start, end) (quotes included) names `model`, escaped or not. */
function isModelKey(text: string, start: number, end: number): boolean {
  if (end - start === 7) return text.startsWith('"model"', start);
  // An escaped `model` is longer than the plain one and holds a backslash.
  if (end - start < 8) return false;
  const slash = text.indexOf('\\', start);
  if (slash === -1 || slash >= end) return false;
  try {
    return JSON.parse(text.slice(start, end)) === 'model';
  } catch {
    return false;
  }
}

/** Index just past the closing quote of the string starting at `start`. */
function skipString(text: string, start: number): number {
  // Jump from quote to quote natively; a quote preceded by an odd run of backslashes is escaped.
  let q = text.indexOf('"', start + 1);
  while (q !== -1) {
    let bs = 0;
    for (let i = q - 1; text.charCodeAt(i) === 92; i--) bs++;
    if ((bs & 1) === 0) return q + 1;
    q = text.indexOf('"', q + 1);
  }
  return text.length;
}

function isWs(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

/**
 * The body with its top-level model replaced (unchanged when it already names `model`); null when the
 * model is not one plain key (findTopLevelModel): the caller serialises the parsed body instead.
 */
export function patchModel(text: string, model: string): string | null {
  const span = findTopLevelModel(text);
  if (!span) return null;
  const encoded = JSON.stringify(model);
  if (text.slice(span[0], span[1]) === encoded) return text;
  return text.slice(0, span[0]) + encoded + text.slice(span[1]);
}

/**
 * `patchModel` on the client's raw bytes: the bytes around the model value are the client's own, so a
 * large body is not encoded to UTF-8 a second time on its way upstream. `text` is `raw` decoded. Falls
 * back to encoding the patched text when the value is not where the text says (invalid UTF-8 before it).
 * Null, as patchModel, when the model is not one plain key.
 */
export function patchModelBytes(raw: Buffer, text: string, model: string): Buffer | null {
  const span = findTopLevelModel(text);
  if (!span) return null;
  const encoded = JSON.stringify(model);
  const old = text.slice(span[0], span[1]);
  if (old === encoded) return raw;
  // Every byte decodes to at most one UTF-16 unit, so equal lengths mean one unit per byte (ASCII, or
  // a lone invalid byte as U+FFFD): offsets line up and the bytes around the value are copied as they are.
  if (raw.length === text.length) return splice(raw, span[0], span[1], encoded);
  const start = Buffer.byteLength(text.slice(0, span[0]));
  const oldBytes = Buffer.from(old);
  if (start + oldBytes.length > raw.length || !raw.subarray(start, start + oldBytes.length).equals(oldBytes)) {
    return Buffer.from(text.slice(0, span[0]) + encoded + text.slice(span[1]));
  }
  return Buffer.concat([raw.subarray(0, start), Buffer.from(encoded), raw.subarray(start + oldBytes.length)]);
}

/** `raw` with bytes [start, end) replaced by `value` encoded as UTF-8, in one allocation. */
function splice(raw: Buffer, start: number, end: number, value: string): Buffer {
  const size = Buffer.byteLength(value);
  const out = Buffer.allocUnsafe(start + size + raw.length - end);
  raw.copy(out, 0, 0, start);
  out.write(value, start);
  raw.copy(out, start + size, end);
  return out;
}

/**
 * Replaces the first `"model":"…"` value in one SSE data payload or response body. A literal
 * `"model":"` can only be a key there: inside JSON string values the quotes would be escaped.
 */
export function patchFirstModel(text: string, replacement: string): string {
  let at = text.indexOf('"model"');
  while (at !== -1) {
    let j = at + 7;
    while (isWs(text.charCodeAt(j))) j++;
    if (text.charCodeAt(j) === 58) {
      j++;
      while (isWs(text.charCodeAt(j))) j++;
      if (text.charCodeAt(j) !== 34) return text;
      const end = skipString(text, j);
      return text.slice(0, j) + replacement + text.slice(end);
    }
    at = text.indexOf('"model"', at + 7);
  }
  return text;
}

/**
 * The top-level `usage` of a response body. The official APIs write it last or nearly last, so the
 * last `"usage"` key is tried first, and only the text after its object is scanned to prove it sits at
 * the top level. A body that puts usage before its content, where a tool's input may hold a `usage`
 * key of its own (the model's words, not the bill), is parsed whole instead.
 */
export function extractUsage(text: string, dialect: Dialect): Usage | null {
  const at = text.lastIndexOf('"usage"');
  if (at === -1) return null;
  // A Responses body whose output may hold server-side tool calls (charged per call) is parsed whole to
  // count them; the model's own words naming the type cost a parse, never a call.
  if (dialect === 'responses' && text.includes('"web_search_call"', 0)) return responsesWithCalls(text);
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

function responsesWithCalls(text: string): Usage | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObject(parsed) || !isObject(parsed.usage)) return null;
  const u = readValue(parsed.usage, 'responses');
  if (u !== null) readResponsesToolCalls(parsed, u);
  return u;
}

/** [open, close] of the object value after the key at `at`, or null when it is not an object. */
function objectAfter(text: string, at: number): [number, number] | null {
  let open = at + 7;
  while (isWs(text.charCodeAt(open))) open++;
  if (text.charCodeAt(open) !== 58 /* : */) return null;
  open++;
  while (isWs(text.charCodeAt(open))) open++;
  if (text.charCodeAt(open) !== 123 /* { */) return null;
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) i = skipString(text, i) - 1;
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
    if (c === 34) i = skipString(text, i) - 1;
    else if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) {
      if (--depth === -1) {
        for (let j = i + 1; j < text.length; j++) if (!isWs(text.charCodeAt(j))) return false;
        return c === 125;
      }
    }
  }
  return false;
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
  const ok =
    dialect === 'openai'
      ? readOpenAIUsage(obj, u)
      : dialect === 'responses'
        ? readResponsesUsage(obj, u)
        : readAnthropicUsage(obj, u);
  return ok ? u : null;
}

/**
 * The value of the first `"key": "…"` string member in a JSON text, or undefined. For a field the
 * reply carries once at its top level (OpenAI's `service_tier`): a key inside a string is escaped and
 * never matches.
 */
export function stringField(text: string, key: string): string | undefined {
  const at = text.indexOf(`"${key}"`);
  if (at === -1) return undefined;
  let i = at + key.length + 2;
  while (isWs(text.charCodeAt(i))) i++;
  if (text.charCodeAt(i) !== 58 /* : */) return undefined;
  i++;
  while (isWs(text.charCodeAt(i))) i++;
  if (text.charCodeAt(i) !== 34) return undefined;
  const end = skipString(text, i);
  try {
    const v: unknown = JSON.parse(text.slice(i, end));
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

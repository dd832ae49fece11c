// Narrowing helpers for JSON read off the wire, so no stage needs `any`, and the depth bound on callers' JSON.

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Deeper than this a request is refused with a 400 before any other work (http/body.ts): the gateway
 * re-serialises and walks callers' JSON, and tool schemas, the deepest part of a real request, stay far
 * below it.
 */
export const MAX_REQUEST_DEPTH = 128;

/**
 * True when `value` nests objects and arrays more than `max` levels deep. JSON.parse takes any depth,
 * but JSON.stringify and every recursive walk overflow the stack a few thousand levels down (a 200 KB
 * body of brackets is enough), so code that walks or re-serialises a caller's JSON checks this first.
 * The walk itself stops at `max`, so it cannot overflow.
 */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (max === 0) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (nestedDeeperThan(item, max - 1)) return true;
    return false;
  }
  for (const key in value) if (nestedDeeperThan((value as JsonObject)[key], max - 1)) return true;
  return false;
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/**
 * True when text[from, to) has no backslash, quote or control character: a JSON string of it is the
 * same characters between quotes, so it can be copied out of one JSON text into another as it is.
 */
export function isVerbatimJsonText(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 92 || c === 34 || c < 32) return false;
  }
  return true;
}

/** JSON.parse that reports failure as undefined instead of throwing. */
export function tryParseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

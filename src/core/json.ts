// The one narrowing every stage needs for JSON read off the wire: a plain object, not null or an array.

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Deeper than this a request is refused with a 400 before any other work (http/body.ts): the gateway
 * re-serialises and walks callers' JSON, and tool schemas, the deepest part of a real request, stay far
 * below it (issue 39).
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

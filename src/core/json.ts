// The one narrowing every stage needs for JSON read off the wire: a plain object, not null or an array.

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

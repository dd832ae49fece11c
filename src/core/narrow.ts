// Narrowing helpers for JSON read off the wire, so translators never need `any`.

export { isObject, type JsonObject } from './json.ts';

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

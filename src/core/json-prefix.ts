// Reading one top-level field from the start of a JSON document that has not fully arrived: a large
// request body names its model in its first bytes, and the key's right to that model can be checked before
// the rest is read.

/**
 * The string value of top-level `key` in `head`, the first part of a JSON object; null when the field is
 * not (yet) there, is not a string, or the text is not an object. Nested objects and arrays are skipped
 * whole, strings with their escapes, so a `"model"` inside a message never counts.
 */
export function topLevelString(head: string, key: string): string | null {
  let i = skipSpace(head, 0);
  if (head.charCodeAt(i) !== 123 /* { */) return null;
  i++;
  let depth = 1;
  let expectKey = true;
  while (i < head.length) {
    const c = head.charCodeAt(i);
    if (c === 34 /* " */) {
      const end = stringEnd(head, i);
      if (end === -1) return null;
      if (depth === 1 && expectKey) {
        const name = head.slice(i, end + 1);
        let j = skipSpace(head, end + 1);
        if (head.charCodeAt(j) !== 58 /* : */) return null;
        j = skipSpace(head, j + 1);
        if (decoded(name) === key) {
          if (head.charCodeAt(j) !== 34) return null;
          const valueEnd = stringEnd(head, j);
          return valueEnd === -1 ? null : decoded(head.slice(j, valueEnd + 1));
        }
        expectKey = false;
        i = j;
        continue;
      }
      i = end + 1;
      continue;
    }
    if (c === 123 /* { */ || c === 91 /* [ */) depth++;
    else if (c === 125 /* } */ || c === 93 /* ] */) {
      depth--;
      if (depth === 0) return null;
    } else if (c === 44 /* , */ && depth === 1) expectKey = true;
    i++;
  }
  return null;
}

function skipSpace(s: string, i: number): number {
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) break;
    i++;
  }
  return i;
}

/** The index of the quote that closes the string opened at `start`, or -1 when it has not arrived. */
function stringEnd(s: string, start: number): number {
  for (let i = start + 1; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 92 /* \ */) i++;
    else if (c === 34) return i;
  }
  return -1;
}

function decoded(quoted: string): string | null {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return null;
  }
}

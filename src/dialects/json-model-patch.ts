// Pass-through keeps the client's bytes: only the value of the top-level "model" key is replaced,
// found by a scan of the (already validated) JSON text, so unknown fields and formatting survive.

/** Span [start, end) of the top-level `"model"` string value including its quotes, or null. */
export function findTopLevelModel(text: string): [number, number] | null {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      const end = skipString(text, i);
      if (depth === 1) {
        let j = end;
        while (j < n && isWs(text.charCodeAt(j))) j++;
        if (text.charCodeAt(j) === 58 /* : */ && end - i === 7 && text.startsWith('"model"', i)) {
          j++;
          while (j < n && isWs(text.charCodeAt(j))) j++;
          if (text.charCodeAt(j) === 34) return [j, skipString(text, j)];
          return null;
        }
      }
      i = end - 1;
    } else if (c === 123 /* { */ || c === 91 /* [ */) depth++;
    else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return null;
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

/** The body with its top-level model replaced (unchanged when it already names `model`). */
export function patchModel(text: string, model: string): string {
  const span = findTopLevelModel(text);
  if (!span) return text;
  const encoded = JSON.stringify(model);
  if (text.slice(span[0], span[1]) === encoded) return text;
  return text.slice(0, span[0]) + encoded + text.slice(span[1]);
}

/**
 * `patchModel` on the client's raw bytes: the bytes around the model value are the client's own, so a
 * large body is not encoded to UTF-8 a second time on its way upstream. `text` is `raw` decoded. Falls
 * back to encoding the patched text when the value is not where the text says (invalid UTF-8 before it).
 */
export function patchModelBytes(raw: Buffer, text: string, model: string): Buffer {
  const span = findTopLevelModel(text);
  if (!span) return raw;
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

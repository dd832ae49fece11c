// Gemini's `parameters` schemas are OpenAPI's subset with upper-case type names (`OBJECT`, `STRING`, as
// the SDKs' Type enum writes them); other dialects take JSON Schema, whose type names are lower-case.
import { isObject } from '../../core/json.ts';

/** A copy of the schema with every upper-case `type` name lower-cased; JSON Schema passes unchanged. */
export function jsonSchemaOf(schema: Record<string, unknown>, depth = 0): Record<string, unknown> {
  if (depth > 64) return schema;
  const out: Record<string, unknown> = {};
  for (const key in schema) {
    const v = schema[key];
    if (key === 'type' && typeof v === 'string') out.type = v.toLowerCase();
    else if (key === 'type' && Array.isArray(v)) out.type = v.map((t) => (typeof t === 'string' ? t.toLowerCase() : t));
    else if (Array.isArray(v)) out[key] = v.map((item) => (isObject(item) ? jsonSchemaOf(item, depth + 1) : item));
    else if (isObject(v)) out[key] = jsonSchemaOf(v, depth + 1);
    else out[key] = v;
  }
  return out;
}

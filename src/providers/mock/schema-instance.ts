// A small instance valid against a tool's JSON schema, for the mock's tool calls: required properties
// only, the first enum value or `anyOf` branch, the least a bound allows. Callers run the tools they
// offered with these arguments, so a value that a tool would run harmlessly is preferred where the
// schema leaves the choice open (`command` is `echo mock`).
import { isObject, type JsonObject } from '../../core/json.ts';

/** Deeper than any real tool schema: a self-referring `$ref` stops here instead of recursing forever. */
const MAX_DEPTH = 12;

export function schemaInstance(schema: unknown): unknown {
  return instance(schema, isObject(schema) ? schema : {}, '', 0);
}

function typeOf(s: JsonObject): string | undefined {
  const t = s.type;
  // Gemini writes OpenAPI's upper-case names (`OBJECT`, `STRING`).
  if (typeof t === 'string') return t.toLowerCase();
  if (Array.isArray(t)) {
    const first = t.find((x) => typeof x === 'string' && x !== 'null') ?? t[0];
    return typeof first === 'string' ? first.toLowerCase() : undefined;
  }
  if (isObject(s.properties) || Array.isArray(s.required)) return 'object';
  if (s.items !== undefined) return 'array';
  return undefined;
}

function resolveRef(root: JsonObject, ref: string): unknown {
  if (!ref.startsWith('#/')) return {};
  let at: unknown = root;
  for (const part of ref.slice(2).split('/')) {
    if (!isObject(at)) return {};
    at = at[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return at ?? {};
}

function instance(schema: unknown, root: JsonObject, name: string, depth: number): unknown {
  if (schema === true || !isObject(schema) || depth > MAX_DEPTH) return {};
  const s = schema;
  if (typeof s.$ref === 'string') return instance(resolveRef(root, s.$ref), root, name, depth + 1);
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  if (s.default !== undefined) return s.default;
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  for (const k of ['anyOf', 'oneOf'] as const) {
    const branches = s[k];
    if (Array.isArray(branches) && branches.length > 0) {
      const nonNull = branches.find((b) => !(isObject(b) && b.type === 'null')) ?? branches[0];
      return instance(nonNull, root, name, depth + 1);
    }
  }
  if (Array.isArray(s.allOf) && s.allOf.length > 0) {
    const merged: JsonObject = {};
    for (const part of s.allOf) {
      const v = instance(part, root, name, depth + 1);
      if (isObject(v)) Object.assign(merged, v);
      else return v;
    }
    const own = { ...s };
    delete own.allOf;
    const rest = instance(own, root, name, depth + 1);
    return isObject(rest) ? Object.assign(merged, rest) : merged;
  }
  switch (typeOf(s)) {
    case 'object':
      return objectOf(s, root, depth);
    case 'array':
      return arrayOf(s, root, name, depth);
    case 'string':
      return stringOf(s, name);
    case 'integer':
      return numberOf(s, true);
    case 'number':
      return numberOf(s, false);
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      return {};
  }
}

function objectOf(s: JsonObject, root: JsonObject, depth: number): JsonObject {
  const out: JsonObject = {};
  const props = isObject(s.properties) ? s.properties : {};
  const required = Array.isArray(s.required) ? s.required.filter((r) => typeof r === 'string') : [];
  for (const key of required) out[key] = instance(props[key] ?? {}, root, key, depth + 1);
  // A lower bound on the property count is met with the first optional properties.
  const min = typeof s.minProperties === 'number' ? s.minProperties : 0;
  for (const key of Object.keys(props)) {
    if (Object.keys(out).length >= min) break;
    if (!(key in out)) out[key] = instance(props[key], root, key, depth + 1);
  }
  return out;
}

function arrayOf(s: JsonObject, root: JsonObject, name: string, depth: number): unknown[] {
  const max = typeof s.maxItems === 'number' ? s.maxItems : Infinity;
  const min = typeof s.minItems === 'number' ? s.minItems : 0;
  if (Array.isArray(s.prefixItems))
    return s.prefixItems.slice(0, Math.max(min, 0)).map((p) => instance(p, root, name, depth + 1));
  const items = s.items === undefined ? {} : s.items;
  // A command given as argv reads better as a harmless command than as an empty list.
  if (isCommand(name) && isObject(items) && typeOf(items) === 'string' && max >= 2 && min <= 2) return ['echo', 'mock'];
  const count = Math.min(Math.max(min, 1), max);
  const out: unknown[] = [];
  for (let i = 0; i < count; i++) {
    const v = instance(items, root, name, depth + 1);
    // uniqueItems: numbers and strings vary with the index; anything else stays at one item.
    if (s.uniqueItems === true && i > 0) {
      if (typeof v === 'number') out.push(v + i);
      else if (typeof v === 'string') out.push(`${v}${i}`);
      else break;
    } else out.push(v);
  }
  return out;
}

function isCommand(name: string): boolean {
  return name === 'command' || name === 'cmd';
}

const FORMATS: Record<string, string> = {
  'date-time': '2026-01-01T00:00:00Z',
  date: '2026-01-01',
  time: '00:00:00Z',
  email: 'mock@example.com',
  uri: 'https://example.com/mock',
  url: 'https://example.com/mock',
  'uri-reference': '/mock',
  uuid: '00000000-0000-4000-8000-000000000000',
  hostname: 'example.com',
  ipv4: '127.0.0.1',
  ipv6: '::1',
};

function stringOf(s: JsonObject, name: string): string {
  const format = typeof s.format === 'string' ? FORMATS[s.format] : undefined;
  let v = format ?? (isCommand(name) ? 'echo mock' : 'mock');
  const min = typeof s.minLength === 'number' ? s.minLength : 0;
  const max = typeof s.maxLength === 'number' ? s.maxLength : Infinity;
  while (v.length < min) v += 'x';
  if (v.length > max) v = v.slice(0, max);
  return v;
}

function numberOf(s: JsonObject, integer: boolean): number {
  let v = 0;
  if (typeof s.minimum === 'number') v = s.minimum;
  if (typeof s.exclusiveMinimum === 'number') v = integer ? Math.floor(s.exclusiveMinimum) + 1 : s.exclusiveMinimum + 1;
  if (typeof s.maximum === 'number' && v > s.maximum) v = s.maximum;
  if (typeof s.exclusiveMaximum === 'number' && v >= s.exclusiveMaximum)
    v = integer ? Math.ceil(s.exclusiveMaximum) - 1 : s.exclusiveMaximum - 1;
  if (integer) v = Math.ceil(v);
  if (typeof s.multipleOf === 'number' && s.multipleOf > 0) v = Math.ceil(v / s.multipleOf) * s.multipleOf;
  return v;
}

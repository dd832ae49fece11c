// Rewrites an OpenAPI 3.1 components tree into plain JSON Schema 2020-12 that ajv validates the way the
// wire actually behaves (shared/specs/STREAMING.md §5): `nullable: true` becomes a null-admitting type,
// discriminated unions become if/then chains (precise errors), other `oneOf`s become `anyOf`, and, in
// lenient mode, a required property that may be null may also be missing (the Stainless strict-required
// problem: the spec lists always-present nullable fields as required, real servers and the SDKs do not).
// The same goes for a required property whose default is a whole object (tool_use `caller` defaults to
// {"type":"direct"}; the docs' stream examples leave it out).

export type JsonObject = { [key: string]: unknown };

export interface RewriteOptions {
  /** When false (lenient), required properties that admit null or default to an object become optional. */
  requireNullable: boolean;
}

const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SCHEMA_SINGLES = [
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
];
const REF_PREFIX = '#/components/schemas/';

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Returns rewritten copies of `schemas` (the document's components.schemas); the input is not changed. */
export function rewriteComponentSchemas(schemas: JsonObject, options: RewriteOptions): JsonObject {
  const out: JsonObject = {};
  for (const [name, schema] of Object.entries(schemas)) out[name] = rewriteSchema(schema, schemas);
  if (!options.requireNullable) {
    for (const schema of Object.values(out)) relaxNullableRequired(schema, out);
  }
  return out;
}

function rewriteSchema(node: unknown, originals: JsonObject): unknown {
  if (!isObject(node)) return node;
  const copy: JsonObject = { ...node };
  for (const key of SCHEMA_MAPS) {
    const map = copy[key];
    if (!isObject(map)) continue;
    const next: JsonObject = {};
    for (const [name, sub] of Object.entries(map)) next[name] = rewriteSchema(sub, originals);
    copy[key] = next;
  }
  for (const key of SCHEMA_LISTS) {
    const list = copy[key];
    if (Array.isArray(list)) copy[key] = list.map((sub) => rewriteSchema(sub, originals));
  }
  for (const key of SCHEMA_SINGLES) {
    if (key in copy) copy[key] = rewriteSchema(copy[key], originals);
  }
  return applyNullable(applyOneOf(copy, originals));
}

function applyOneOf(schema: JsonObject, originals: JsonObject): JsonObject {
  const branches = schema.oneOf;
  const discriminator = schema.discriminator;
  delete schema.discriminator;
  if (!Array.isArray(branches)) return schema;
  delete schema.oneOf;
  const chain = isObject(discriminator) ? discriminatedChain(branches, discriminator, originals) : undefined;
  if (chain === undefined) {
    // Overlapping object branches make a real `oneOf` reject valid data; `anyOf` is what clients do.
    schema.anyOf = branches;
    return schema;
  }
  const allOf = Array.isArray(schema.allOf) ? schema.allOf : [];
  schema.allOf = [...allOf, chain];
  return schema;
}

/** `{oneOf, discriminator}` → tag must be known, then the branch for that tag must match. */
function discriminatedChain(
  branches: unknown[],
  discriminator: JsonObject,
  originals: JsonObject,
): JsonObject | undefined {
  const prop = discriminator.propertyName;
  if (typeof prop !== 'string') return undefined;
  const tags = new Map<string, unknown>();
  const mapping = discriminator.mapping;
  if (isObject(mapping)) {
    for (const [tag, ref] of Object.entries(mapping)) tags.set(tag, { $ref: ref });
    const mapped = new Set(Object.values(mapping));
    // A branch the mapping leaves out would be silently unreachable; fall back to anyOf instead.
    if (!branches.every((b) => isObject(b) && mapped.has(b.$ref))) return undefined;
  } else {
    for (const branch of branches) {
      const tag = tagOf(branch, prop, originals);
      if (tag === undefined || tags.has(tag)) return undefined;
      tags.set(tag, branch);
    }
  }
  return {
    type: 'object',
    required: [prop],
    properties: { [prop]: { enum: [...tags.keys()] } },
    allOf: [...tags].map(([tag, then]) => ({
      if: { properties: { [prop]: { const: tag } }, required: [prop] },
      then,
    })),
  };
}

function tagOf(branch: unknown, prop: string, originals: JsonObject): string | undefined {
  const schema = resolveRef(branch, originals);
  if (!isObject(schema) || !isObject(schema.properties)) return undefined;
  const tagSchema = schema.properties[prop];
  if (!isObject(tagSchema)) return undefined;
  if (typeof tagSchema.const === 'string') return tagSchema.const;
  const values = tagSchema.enum;
  if (Array.isArray(values) && values.length === 1 && typeof values[0] === 'string') return values[0];
  return undefined;
}

function resolveRef(node: unknown, schemas: JsonObject): unknown {
  if (!isObject(node) || typeof node.$ref !== 'string' || !node.$ref.startsWith(REF_PREFIX)) return node;
  return schemas[node.$ref.slice(REF_PREFIX.length)];
}

function applyNullable(schema: JsonObject): JsonObject {
  if (!('nullable' in schema)) return schema;
  const nullable = schema.nullable === true;
  delete schema.nullable;
  if (!nullable) return schema;
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...schema.enum, null];
  if (typeof schema.type === 'string') {
    schema.type = [schema.type, 'null'];
    return schema;
  }
  if (Array.isArray(schema.type)) {
    if (!schema.type.includes('null')) schema.type = [...schema.type, 'null'];
    return schema;
  }
  // No `type` to widen (a bare $ref or a combinator): null becomes an alternative to the whole schema.
  return { anyOf: [schema, { type: 'null' }] };
}

function relaxNullableRequired(node: unknown, schemas: JsonObject): void {
  if (!isObject(node)) return;
  const props = node.properties;
  if (Array.isArray(node.required) && isObject(props)) {
    node.required = node.required.filter((name) => !mayBeMissing(props[name], schemas));
  }
  for (const key of SCHEMA_MAPS) {
    const map = node[key];
    if (isObject(map)) for (const sub of Object.values(map)) relaxNullableRequired(sub, schemas);
  }
  for (const key of SCHEMA_LISTS) {
    const list = node[key];
    if (Array.isArray(list)) for (const sub of list) relaxNullableRequired(sub, schemas);
  }
  for (const key of SCHEMA_SINGLES) relaxNullableRequired(node[key], schemas);
}

function mayBeMissing(prop: unknown, schemas: JsonObject): boolean {
  return admitsNull(prop, schemas, new Set()) || (isObject(prop) && isObject(prop.default));
}

function admitsNull(node: unknown, schemas: JsonObject, seen: Set<unknown>): boolean {
  if (!isObject(node) || seen.has(node)) return false;
  seen.add(node);
  if (node.type === 'null' || (Array.isArray(node.type) && node.type.includes('null'))) return true;
  if (node.const === null || (Array.isArray(node.enum) && node.enum.includes(null))) return true;
  for (const key of ['anyOf', 'oneOf']) {
    const list = node[key];
    if (Array.isArray(list) && list.some((sub) => admitsNull(sub, schemas, seen))) return true;
  }
  const target = resolveRef(node, schemas);
  return target !== node && admitsNull(target, schemas, seen);
}

// docs/configuration.md stays true to the config schema: every setting of src/config/schema.ts is in
// its table once, with the type the schema checks, a default and a meaning; no row names a setting the
// schema does not have.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { z } from 'zod';
import { configSchema } from '../../src/config/schema.ts';
import { tableRows } from '../helpers/markdown-table.ts';

function unwrap(s: z.ZodType): z.ZodType {
  for (;;) {
    if (s instanceof z.ZodOptional || s instanceof z.ZodDefault || s instanceof z.ZodNullable)
      s = s.unwrap() as z.ZodType;
    else if (s instanceof z.ZodPipe) s = s.out as z.ZodType;
    else return s;
  }
}

function typeName(t: z.ZodType): string {
  if (t instanceof z.ZodEnum) return t.options.join(' | ');
  if (t instanceof z.ZodLiteral) return [...t.values].join(' | ');
  if (t instanceof z.ZodRecord) return 'map';
  if (t instanceof z.ZodNumber) return t.isInt ? 'integer' : 'number';
  // z.url() and other string formats are strings too.
  if (t.type === 'string' || t.type === 'boolean') return t.type;
  throw new Error(`config-reference test: no type name for a ${t.type}; teach typeName() about it`);
}

/** Each setting's path (`x[]` for the items of list `x`) and type: leaves, and lists (of objects too). */
function settings(s: z.ZodType, path: string, out: Map<string, string>): Map<string, string> {
  const t = unwrap(s);
  if (t instanceof z.ZodDiscriminatedUnion) {
    // One object per provider kind: the settings of all of them, the discriminator's values joined.
    const kinds = new Map<string, string>();
    for (const option of t.options) {
      for (const [k, v] of settings(option as z.ZodType, path, new Map())) {
        const before = kinds.get(k);
        kinds.set(k, before === undefined || before === v ? v : `${before} | ${v}`);
      }
    }
    for (const [k, v] of kinds) out.set(k, v);
  } else if (t instanceof z.ZodObject) {
    for (const [k, v] of Object.entries(t.shape)) settings(v as z.ZodType, path === '' ? k : `${path}.${k}`, out);
  } else if (t instanceof z.ZodArray) {
    const item = unwrap(t.element as z.ZodType);
    const objects = item instanceof z.ZodObject || item instanceof z.ZodDiscriminatedUnion;
    out.set(path, objects ? 'list' : `list of ${typeName(item)}`);
    if (objects) settings(item, `${path}[]`, out);
  } else {
    out.set(path, typeName(t));
  }
  return out;
}

const schema = settings(configSchema, '', new Map());
const rows = tableRows(join(import.meta.dirname, '../../docs/configuration.md'));

test('docs/configuration.md lists every setting of the schema once, and no other', () => {
  const documented = rows.map((r) => r[0]);
  assert.equal(new Set(documented).size, documented.length, 'each setting once');
  const missing = [...schema.keys()].filter((k) => !documented.includes(k));
  const extra = documented.filter((k) => !schema.has(k));
  assert.deepEqual({ missing, extra }, { missing: [], extra: [] });
});

test('each row gives the type the schema checks, a default and a meaning', () => {
  for (const [name, type, defaultValue, meaning] of rows) {
    assert.equal(type, schema.get(name), `${name}: type`);
    assert.ok(defaultValue !== '' && meaning.length > 10, `${name}: default and meaning`);
  }
});

// Validators compiled from the official OpenAPI documents in /work/shared/specs, for asserting that bodies
// and stream events are what real clients expect. Each document is read once per process, lazily, and only
// the schemas a test asks for are compiled.
//
// Default mode is LENIENT about the Stainless strict-required problem (STREAMING.md §5 caveat 2): a property
// the spec lists as required but whose schema admits null may be missing. Both SDKs accept that and real
// servers do it. Pass `{ requireNullable: true }` to `createValidator` to demand every such field.
// Also: `nullable: true` is honoured, and a `oneOf` without a usable discriminator is checked as `anyOf`.

import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { parse as parseYaml } from 'yaml';
import { SseDecoder } from '../../src/core/sse.ts';
import type { SseEvent } from '../../src/core/sse.ts';
import { rewriteComponentSchemas } from './schema-rewrite.ts';
import type { JsonObject } from './schema-rewrite.ts';

export type SpecName = 'openai' | 'anthropic';

export interface ValidatorOptions {
  /** Demand nullable-but-required fields (strict Stainless reading). Default false. */
  requireNullable?: boolean;
}

export type Validator = (value: unknown) => void;

const SPEC_DIR = '/work/shared/specs';
const SPEC_FILES: Record<SpecName, string> = {
  openai: `${SPEC_DIR}/openai-openapi.yaml`,
  anthropic: `${SPEC_DIR}/anthropic-openapi.json`,
};
const MAX_LISTED_ERRORS = 15;
const MAX_VALUE_CHARS = 1500;

const documents = new Map<SpecName, JsonObject>();
const engines = new Map<string, Ajv2020>();
const compiled = new Map<string, ValidateFunction>();

function loadComponentSchemas(spec: SpecName): JsonObject {
  let schemas = documents.get(spec);
  if (schemas === undefined) {
    schemas =
      spec === 'openai'
        ? readCachedYamlSchemas(SPEC_FILES[spec])
        : extractSchemas(SPEC_FILES[spec], JSON.parse(readFileSync(SPEC_FILES[spec], 'utf8')));
    documents.set(spec, schemas);
  }
  return schemas;
}

function extractSchemas(file: string, doc: unknown): JsonObject {
  const components = (doc as { components?: { schemas?: JsonObject } }).components;
  if (components?.schemas === undefined) throw new Error(`${file} has no components.schemas`);
  return components.schemas;
}

/**
 * The OpenAI document is 3 MB of YAML: 1.5 s to parse on an idle machine, several under a parallel test run,
 * and `node --test` starts a process per file. Its schemas are therefore cached as JSON in the temp dir,
 * keyed by the file's size and mtime; the cache is written atomically and is only an optimisation.
 */
function readCachedYamlSchemas(file: string): JsonObject {
  const stat = statSync(file);
  const dir = join(tmpdir(), 'modelgate-spec-cache');
  const cached = join(dir, `openai-schemas-${stat.size}-${Math.trunc(stat.mtimeMs)}.json`);
  try {
    return JSON.parse(readFileSync(cached, 'utf8')) as JsonObject;
  } catch {
    // Missing or half-written by an older run: rebuild it.
  }
  const schemas = extractSchemas(file, parseYaml(readFileSync(file, 'utf8')));
  try {
    mkdirSync(dir, { recursive: true });
    const partial = `${cached}.${process.pid}.tmp`;
    writeFileSync(partial, JSON.stringify(schemas));
    renameSync(partial, cached);
  } catch {
    // A read-only temp dir only costs the parse time.
  }
  return schemas;
}

function engineFor(spec: SpecName, requireNullable: boolean): Ajv2020 {
  const key = `${spec}:${requireNullable}`;
  let ajv = engines.get(key);
  if (ajv === undefined) {
    // strict:false — the documents carry OpenAPI keywords (example, x-*, discriminator) ajv does not know.
    ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    const schemas = rewriteComponentSchemas(loadComponentSchemas(spec), { requireNullable });
    ajv.addSchema({ $id: rootId(spec, requireNullable), components: { schemas } });
    engines.set(key, ajv);
  }
  return ajv;
}

function rootId(spec: SpecName, requireNullable: boolean): string {
  return `https://modelgate.invalid/${spec}/${requireNullable ? 'strict' : 'lenient'}`;
}

function compile(spec: SpecName, schemaName: string, requireNullable: boolean): ValidateFunction {
  const key = `${spec}:${requireNullable}:${schemaName}`;
  let fn = compiled.get(key);
  if (fn === undefined) {
    const ajv = engineFor(spec, requireNullable);
    if (loadComponentSchemas(spec)[schemaName] === undefined) {
      throw new Error(`no schema ${schemaName} in the ${spec} document`);
    }
    fn = ajv.compile({ $ref: `${rootId(spec, requireNullable)}#/components/schemas/${schemaName}` });
    compiled.set(key, fn);
  }
  return fn;
}

function describe(errors: ErrorObject[] | null | undefined): string {
  const list = errors ?? [];
  const lines = list.slice(0, MAX_LISTED_ERRORS).map((e) => {
    const where = e.instancePath === '' ? '(root)' : e.instancePath;
    return `  ${where} ${e.message ?? e.keyword} ${JSON.stringify(e.params)} [${e.schemaPath}]`;
  });
  if (list.length > MAX_LISTED_ERRORS) lines.push(`  … and ${list.length - MAX_LISTED_ERRORS} more`);
  return lines.join('\n');
}

function preview(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS)}… (${text.length} chars)` : text;
}

/**
 * A validator for any schema in `components.schemas` of either document. Compiles on first call, so
 * creating validators at module load costs nothing.
 */
export function createValidator(spec: SpecName, schemaName: string, options: ValidatorOptions = {}): Validator {
  const requireNullable = options.requireNullable ?? false;
  return function validate(value: unknown): void {
    const fn = compile(spec, schemaName, requireNullable);
    if (fn(value)) return;
    throw new Error(
      `${spec} ${schemaName}: value does not match the schema\n${describe(fn.errors)}\nvalue: ${preview(value)}`,
    );
  };
}

export const validateChatCompletion = createValidator('openai', 'CreateChatCompletionResponse');
export const validateChatCompletionChunk = createValidator('openai', 'CreateChatCompletionStreamResponse');
export const validateOpenAIError = createValidator('openai', 'ErrorResponse');
export const validateModelList = createValidator('openai', 'ListModelsResponse');
export const validateEmbeddingResponse = createValidator('openai', 'CreateEmbeddingResponse');
export const validateResponse = createValidator('openai', 'Response');
export const validateMessage = createValidator('anthropic', 'Message');
export const validateMessageStreamEvent = createValidator('anthropic', 'MessageStreamEvent');
export const validateAnthropicError = createValidator('anthropic', 'ErrorResponse');

/** Decodes a complete SSE body (as the SDKs frame it) into its events; a trailing unterminated event is dropped. */
export function parseSseText(text: string): SseEvent[] {
  const decoder = new SseDecoder();
  return [...decoder.push(text), ...decoder.end()];
}

export type { SseEvent };

/**
 * A Responses API stream event, checked against the one member of the `ResponseStreamEvent` union its
 * `type` names (the union itself lists every member's errors, which hides the one that matters).
 */
export function validateResponseStreamEvent(value: unknown): void {
  const type = (value as { type?: unknown } | null)?.type;
  const schemas = loadComponentSchemas('openai');
  const union = schemas.ResponseStreamEvent as { anyOf?: { $ref: string }[]; oneOf?: { $ref: string }[] };
  for (const member of union.anyOf ?? union.oneOf ?? []) {
    const name = member.$ref.split('/').at(-1)!;
    const props = (schemas[name] as { properties?: { type?: { enum?: unknown[] } } }).properties;
    if (props?.type?.enum?.includes(type)) return createValidator('openai', name)(value);
  }
  throw new Error(`no Responses stream event has the type ${JSON.stringify(type)}`);
}

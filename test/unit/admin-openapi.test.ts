// The admin OpenAPI document is generated from the schemas the API validates with: every schema in it
// compiles as JSON Schema 2020-12, every $ref resolves, and a body the API accepts (or refuses) is accepted
// (or refused) by the document's schema for it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { openApiDocument, OPERATIONS } from '../../src/admin/api/openapi.ts';
import { createKeyBody } from '../../src/admin/api/key-bodies.ts';
import { requestDetail } from '../../src/admin/operations/usage-operations.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';

type Json = Record<string, any>;
const doc = openApiDocument(OPERATIONS) as Json;

function resolve(ref: string): unknown {
  assert.match(ref, /^#\//, ref);
  let at: any = doc;
  for (const part of ref.slice(2).split('/')) at = at?.[part];
  assert.ok(at !== undefined, `${ref} resolves`);
  return at;
}

function* schemasOf(node: unknown): Generator<Json> {
  if (typeof node !== 'object' || node === null) return;
  const n = node as Json;
  if (typeof n.$ref === 'string') resolve(n.$ref);
  if (n.schema !== undefined && typeof n.schema === 'object') yield n.schema;
  for (const v of Object.values(n)) yield* schemasOf(v);
}

function ajv(): Ajv2020 {
  const a = new Ajv2020({ strict: false, allErrors: true });
  a.addSchema({ $id: 'doc', components: doc.components }, 'doc');
  return a;
}

/** A schema of the document with its component refs pointed at the document. */
function compile(schema: Json) {
  const text = JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/');
  return ajv().compile(JSON.parse(text));
}

test('the admin OpenAPI document: every route, every schema compiles, every $ref resolves', () => {
  assert.equal(doc.openapi, '3.1.0');
  for (const path of [
    '/admin/keys',
    '/admin/keys/{id}',
    '/admin/usage',
    '/admin/requests',
    '/admin/requests/{id}',
    '/admin/providers/{name}',
  ])
    assert.ok(doc.paths[path] !== undefined, path);
  let count = 0;
  for (const schema of schemasOf(doc.paths)) {
    compile(schema);
    count++;
  }
  assert.ok(count > 20, `${count} schemas`);
});

test('the document’s body for POST /admin/keys agrees with the schema the API validates with', () => {
  const body = doc.paths['/admin/keys'].post.requestBody.content['application/json'].schema as Json;
  const check = compile(body);
  const cases: unknown[] = [
    { name: 'ci', models: ['gpt-*'], budget_usd: 5, budget_period: 'monthly' },
    { name: 'x', expires_at: '2027-01-01' },
    { models: ['a'] },
    { name: 'x', rpm: -1 },
    { name: 'x', surprise: true },
    { name: 'x', budget_period: 'yearly' },
  ];
  for (const c of cases) assert.equal(check(c), createKeyBody.safeParse(c).success, JSON.stringify(c));
});

test('the provider and model bodies are the config file’s own schemas', () => {
  const provider = doc.paths['/admin/providers'].post.requestBody.content['application/json'].schema as Json;
  const check = compile(provider);
  assert.equal(check({ name: 'up', kind: 'openai', base_url: 'https://api.openai.com/v1', api_key: 'k' }), true);
  assert.equal(check({ name: 'up', kind: 'no-such-kind' }), false);
});

test('a request detail as the API builds it from a stored row fits the document’s schema for it', async () => {
  const store = new SqliteStore(':memory:');
  try {
    await store.writeUsage([
      {
        ts: Date.UTC(2026, 10, 1),
        requestId: 'req_detail',
        keyId: 'key_gone',
        endpoint: '/v1/messages',
        model: 'claude',
        deployment: 'claude#1',
        status: 502,
        inputTokens: 0,
        outputTokens: 0,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        costNanos: 0,
        latencyMs: 40,
        ttfbMs: null,
        streamed: false,
        attempts: 2,
        periodStart: 0,
        errorCode: 'upstream_error',
        routing: null,
        errorMessage: 'Upstream said: overloaded',
        attemptLog: JSON.stringify([
          { deployment: 'claude#0', status: null, outcome: 'timeout', duration_ms: 30 },
          { deployment: 'claude#1', status: 529, outcome: 'status_529', duration_ms: 10 },
        ]),
      },
    ]);
    const detail = await requestDetail(store, 'req_detail');
    const op = doc.paths['/admin/requests/{id}'].get as Json;
    assert.deepEqual(
      op.parameters.map((p: Json) => [p.name, p.in]),
      [['id', 'path']],
    );
    const check = compile(op.responses['200'].content['application/json'].schema as Json);
    assert.equal(check(detail), true, JSON.stringify(check.errors));
    assert.equal((detail.attempt_log as unknown[]).length, 2);
    assert.equal(check({ ...detail, attempt_log: [{ deployment: 'x' }] }), false, 'an attempt without its fields');
    await assert.rejects(requestDetail(store, 'req_other'), /no request "req_other"/);
    await assert.rejects(requestDetail(store, 'req_detail', { team: 'payments' }), /no request/, 'another team’s');
  } finally {
    await store.close();
  }
});

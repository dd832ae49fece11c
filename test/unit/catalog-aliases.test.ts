// Model aliases: a caller's name reaches a configured model by its own name, then an exact alias, then the
// first alias pattern in config order; key rights apply to the model reached; the listing shows exact aliases.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseConfigText } from '../../src/config/load.ts';
import { Catalog, resolveModel } from '../../src/catalog/catalog.ts';
import { listModelsBody, modelBody } from '../../src/catalog/list-models.ts';
import type { KeyRecord } from '../../src/core/key-record.ts';

const yaml = `providers:
  - { name: p, kind: mock }
models:
  - { name: opus, family: anthropic, aliases: [claude-opus-*, claude-best], deployments: [ { provider: p, model: o } ] }
  - { name: haiku, family: anthropic, aliases: ["claude-*-haiku-*", "claude-haiku-*"], deployments: [ { provider: p, model: h } ] }
  - { name: any-claude, family: anthropic, aliases: ["claude-*"], deployments: [ { provider: p, model: a } ] }
  - { name: claude-opus-exact, deployments: [ { provider: p, model: e } ] }
  - { name: gpt, aliases: [gpt-latest], deployments: [ { provider: p, model: g } ] }
`;

function catalog(extra = ''): Catalog {
  return new Catalog(parseConfigText(yaml + extra, { source: 'x.yaml', env: {} }));
}
const key = (models: string[] | null) => ({ models }) as unknown as KeyRecord;

test('resolution: exact names first, then exact aliases, then patterns in config order', () => {
  const c = catalog();
  assert.equal(c.resolve('claude-opus-exact')?.name, 'claude-opus-exact', 'a model name beats a pattern');
  assert.equal(c.resolve('claude-best')?.name, 'opus');
  assert.equal(c.resolve('claude-opus-5-5')?.name, 'opus');
  assert.equal(c.resolve('claude-3-5-haiku-20241022')?.name, 'haiku');
  assert.equal(c.resolve('claude-haiku-4-5')?.name, 'haiku');
  assert.equal(c.resolve('claude-sonnet-4-5')?.name, 'any-claude', 'the first matching pattern in config order');
  assert.equal(c.resolve('gpt-latest')?.name, 'gpt');
  assert.equal(c.resolve('mistral'), undefined);
  assert.equal(c.get('claude-best'), undefined, 'get() knows model names only');
});

test('key rights apply to the model an alias reaches; the messages family rule too', () => {
  const c = catalog();
  assert.equal(resolveModel(c, key(['opus']), 'claude-opus-5-5', 'anthropic').name, 'opus');
  assert.throws(
    () => resolveModel(c, key(['haiku']), 'claude-opus-5-5', 'anthropic'),
    (e: { code?: string }) => e.code === 'model_not_allowed',
  );
  assert.throws(
    () => resolveModel(c, key(null), 'gpt-latest', 'anthropic'),
    (e: { code?: string }) => e.code === 'wrong_endpoint_for_model',
  );
  const any = catalog('messages_any_model: true\n');
  assert.equal(resolveModel(any, key(null), 'gpt-latest', 'anthropic').name, 'gpt', 'messages_any_model opens it');
});

test('GET /v1/models lists exact aliases of the models a key may use; retrieve takes any alias', () => {
  const c = catalog();
  const ids = (JSON.parse(listModelsBody(c, key(['opus', 'gpt']))) as { data: { id: string }[] }).data.map((m) => m.id);
  assert.deepEqual(ids, ['opus', 'gpt', 'claude-best', 'gpt-latest']);
  assert.equal((JSON.parse(modelBody(c, key(['opus']), 'claude-opus-4-1')) as { id: string }).id, 'claude-opus-4-1');
  assert.throws(
    () => modelBody(c, key(['gpt']), 'claude-opus-4-1'),
    (e: { code?: string }) => e.code === 'model_not_found',
  );
});

test('an exact alias may not repeat a model name or another alias', () => {
  assert.throws(
    () => catalog('  - { name: x, aliases: [gpt], deployments: [ { provider: p, model: x } ] }\n'),
    /models\[5\]\.aliases\[0\]: "gpt" is already a model's name/,
  );
  assert.throws(
    () => catalog('  - { name: x, aliases: [gpt-latest], deployments: [ { provider: p, model: x } ] }\n'),
    /"gpt-latest" is already an alias of model "gpt"/,
  );
});

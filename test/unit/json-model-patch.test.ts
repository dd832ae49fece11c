// The pass-through model rewrite touches only the top-level "model" value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { patchModel, patchFirstModel, findTopLevelModel } from '../../src/dialects/json-model-patch.ts';

test('patches only the top-level model, keeping formatting and nested "model" keys', () => {
  const cases: [string, string][] = [
    ['{"model":"a","x":1}', '{"model":"B","x":1}'],
    ['{ "metadata": {"model": "a"}, "model" : "a" }', '{ "metadata": {"model": "a"}, "model" : "B" }'],
    ['{"messages":[{"content":"\\"model\\":\\"a\\""}],"model":"a"}', '{"messages":[{"content":"\\"model\\":\\"a\\""}],"model":"B"}'],
    ['{"modelx":"a","model":"a"}', '{"modelx":"a","model":"B"}'],
  ];
  for (const [input, want] of cases) assert.equal(patchModel(input, 'B'), want);
  assert.equal(findTopLevelModel('{"a":{"model":"x"}}'), null);
  assert.equal(patchModel('{"model":"ü\\"q"}', 'x'), '{"model":"x"}');
});

test('patchFirstModel rewrites the first key occurrence in a chunk', () => {
  assert.equal(patchFirstModel('{"id":"1","model":"up-1","choices":[]}', '"client"'), '{"id":"1","model":"client","choices":[]}');
  assert.equal(patchFirstModel('{"text":"no model here"}', '"c"'), '{"text":"no model here"}');
});

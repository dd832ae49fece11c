// The pass-through model rewrite touches only the top-level "model" value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { patchModel, patchFirstModel, findTopLevelModel, patchModelBytes } from '../../src/dialects/json-model-patch.ts';

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

test('patchModelBytes keeps every client byte around the model value', () => {
  const cases: Array<[string, string]> = [
    ['{"model":"a","messages":[]}', '{"model":"B","messages":[]}'],
    ['{ "messages": [{"content": "héllo \\"model\\": x"}], "model" : "a" , "z":1}', '{ "messages": [{"content": "héllo \\"model\\": x"}], "model" : "B" , "z":1}'],
    ['{"x":"東京","model":"a"}', '{"x":"東京","model":"B"}'],
    ['{"model":"B"}', '{"model":"B"}'],
    ['{"messages":[]}', '{"messages":[]}'],
  ];
  for (const [input, want] of cases) {
    const raw = Buffer.from(input);
    const out = patchModelBytes(raw, raw.toString('utf8'), 'B');
    assert.equal(out.toString('utf8'), want);
  }
  const unchanged = Buffer.from('{"model":"B"}');
  assert.equal(patchModelBytes(unchanged, unchanged.toString(), 'B'), unchanged, 'no copy when nothing changes');
});

test('patchModelBytes forwards invalid UTF-8 elsewhere untouched, and falls back when it precedes the model', () => {
  const after = Buffer.concat([Buffer.from('{"model":"a","x":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
  const patched = patchModelBytes(after, after.toString('utf8'), 'B');
  assert.deepEqual(patched.subarray(-4), Buffer.from([0xff, 0xfe, 0x22, 0x7d]), 'the client bytes after the model are the client’s');
  assert.equal(patched.subarray(0, 13).toString(), '{"model":"B",');
  const before = Buffer.concat([Buffer.from('{"x":"'), Buffer.from([0xe2, 0x82]), Buffer.from('","model":"a"}')]);
  const out = patchModelBytes(before, before.toString('utf8'), 'B');
  assert.match(out.toString('utf8'), /"model":"B"\}$/);
  // Lone invalid bytes decode one-for-one, so offsets still line up and the bytes pass untouched.
  const lone = Buffer.concat([Buffer.from('{"x":"'), Buffer.from([0xff]), Buffer.from('","model":"a","y":1}')]);
  const spliced = patchModelBytes(lone, lone.toString('utf8'), 'modèle-東');
  assert.deepEqual(spliced, Buffer.concat([Buffer.from('{"x":"'), Buffer.from([0xff]), Buffer.from('","model":"modèle-東","y":1}')]));
});

// The pass-through model rewrite touches only the top-level "model" value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { patchModel, patchFirstModel, findTopLevelModel, patchModelBytes } from '../../src/dialects/json-text.ts';

test('patches only the top-level model, keeping formatting and nested "model" keys', () => {
  const cases: [string, string][] = [
    ['{"model":"a","x":1}', '{"model":"B","x":1}'],
    ['{ "metadata": {"model": "a"}, "model" : "a" }', '{ "metadata": {"model": "a"}, "model" : "B" }'],
    [
      '{"messages":[{"content":"\\"model\\":\\"a\\""}],"model":"a"}',
      '{"messages":[{"content":"\\"model\\":\\"a\\""}],"model":"B"}',
    ],
    ['{"modelx":"a","model":"a"}', '{"modelx":"a","model":"B"}'],
  ];
  for (const [input, want] of cases) assert.equal(patchModel(input, 'B'), want);
  assert.equal(findTopLevelModel('{"a":{"model":"x"}}'), null);
  assert.equal(patchModel('{"model":"ü\\"q"}', 'x'), '{"model":"x"}');
});

test('patchFirstModel rewrites the first key occurrence in a chunk', () => {
  assert.equal(
    patchFirstModel('{"id":"1","model":"up-1","choices":[]}', '"client"'),
    '{"id":"1","model":"client","choices":[]}',
  );
  assert.equal(patchFirstModel('{"text":"no model here"}', '"c"'), '{"text":"no model here"}');
});

test('patchModelBytes keeps every client byte around the model value', () => {
  const cases: Array<[string, string]> = [
    ['{"model":"a","messages":[]}', '{"model":"B","messages":[]}'],
    [
      '{ "messages": [{"content": "héllo \\"model\\": x"}], "model" : "a" , "z":1}',
      '{ "messages": [{"content": "héllo \\"model\\": x"}], "model" : "B" , "z":1}',
    ],
    ['{"x":"東京","model":"a"}', '{"x":"東京","model":"B"}'],
    ['{"model":"B"}', '{"model":"B"}'],
  ];
  for (const [input, want] of cases) {
    const raw = Buffer.from(input);
    const out = patchModelBytes(raw, raw.toString('utf8'), 'B');
    assert.equal(out?.toString('utf8'), want);
  }
  const unchanged = Buffer.from('{"model":"B"}');
  assert.equal(patchModelBytes(unchanged, unchanged.toString(), 'B'), unchanged, 'no copy when nothing changes');
});

test('patchModelBytes forwards invalid UTF-8 elsewhere untouched, and falls back when it precedes the model', () => {
  const after = Buffer.concat([Buffer.from('{"model":"a","x":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
  const patched = patchModelBytes(after, after.toString('utf8'), 'B');
  assert.ok(patched !== null);
  assert.deepEqual(
    patched.subarray(-4),
    Buffer.from([0xff, 0xfe, 0x22, 0x7d]),
    'the client bytes after the model are the client’s',
  );
  assert.equal(patched.subarray(0, 13).toString(), '{"model":"B",');
  const before = Buffer.concat([Buffer.from('{"x":"'), Buffer.from([0xe2, 0x82]), Buffer.from('","model":"a"}')]);
  const out = patchModelBytes(before, before.toString('utf8'), 'B');
  assert.match(String(out?.toString('utf8')), /"model":"B"\}$/);
  // Lone invalid bytes decode one-for-one, so offsets still line up and the bytes pass untouched.
  const lone = Buffer.concat([Buffer.from('{"x":"'), Buffer.from([0xff]), Buffer.from('","model":"a","y":1}')]);
  const spliced = patchModelBytes(lone, lone.toString('utf8'), 'modèle-東');
  assert.deepEqual(
    spliced,
    Buffer.concat([Buffer.from('{"x":"'), Buffer.from([0xff]), Buffer.from('","model":"modèle-東","y":1}')]),
  );
});

test('a model key that is repeated or missing is not patched in place: the caller re-serialises', () => {
  // JSON.parse reads the last of repeated keys and decodes escapes; a byte patch of the first plain key
  // would leave the upstream a model other than the one routed and billed.
  const ambiguous = [
    '{"model":"a","model":"b","messages":[]}',
    '{"mod\\u0065l":"expensive","model":"a"}',
    '{"model":"a","m\\u006fdel":"a"}',
    '{"messages":[]}',
    '{"model":5}',
  ];
  for (const text of ambiguous) {
    assert.equal(findTopLevelModel(text), null, text);
    assert.equal(patchModel(text, 'B'), null, text);
    assert.equal(patchModelBytes(Buffer.from(text), text, 'B'), null, text);
  }
  // Only top-level keys count: a nested "model", a "model" string value and other escaped keys do not;
  // a sole model key spelled with escapes is the model, and its value is patched where it stands.
  const plain: Array<[string, string]> = [
    ['{"mod\\u0065l":"a","messages":[]}', '{"mod\\u0065l":"B","messages":[]}'],
    [
      '{"tools":[{"model":"x"}],"model":"a","metadata":{"model":"y"}}',
      '{"tools":[{"model":"x"}],"model":"B","metadata":{"model":"y"}}',
    ],
    ['{"model":"a","role":"model","x":["model"]}', '{"model":"B","role":"model","x":["model"]}'],
    ['{"a\\"b":1,"mode\\u006c_x":2,"model":"a"}', '{"a\\"b":1,"mode\\u006c_x":2,"model":"B"}'],
  ];
  for (const [text, want] of plain) {
    assert.equal(JSON.parse(want).model, 'B');
    assert.equal(patchModel(text, 'B'), want, text);
  }
});

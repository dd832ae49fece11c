import { test } from 'node:test';
import assert from 'node:assert/strict';
import { topLevelString } from './json-prefix.ts';

test('topLevelString finds a top-level string field in the first part of a JSON object', () => {
  assert.equal(topLevelString('{"model":"gpt-5","messages":[{"role":"user","content":"a', 'model'), 'gpt-5');
  assert.equal(topLevelString(' {\n "stream": true, "model" : "cl\\u0061ude", "x": 1', 'model'), 'claude');
  assert.equal(
    topLevelString('{"messages":[{"model":"inner"}],"meta":{"model":"nested"},"model":"outer"}', 'model'),
    'outer',
    'a nested "model" never counts',
  );
  assert.equal(topLevelString('{"note":"a \\"model\\": \\"fake\\"","model":"real"', 'model'), 'real');
  assert.equal(topLevelString('{"messages":[{"role":"user","content":"still arriving', 'model'), null);
  assert.equal(topLevelString('{"model":"gpt-', 'model'), null, 'a value not yet whole');
  assert.equal(topLevelString('{"model":42}', 'model'), null);
  assert.equal(topLevelString('["model","x"]', 'model'), null);
  assert.equal(topLevelString('{"a":{"b":[1,2,{"c":"}"}]},"model":"m"}', 'model'), 'm');
});

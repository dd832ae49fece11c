// Credentials never leave the gateway whole: configured secrets wherever they appear, key-shaped text
// wherever it starts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { maskKeyLike, SecretMasker } from '../../src/observability/mask-secrets.ts';

const KEY = 'sk-xWlR6Ukz9od64E85nSfmn8qpjAhu2EAOJWc04kGiXmz7w0Za';

test('an sk- key is masked wherever it starts, glued to a letter, a digit or an underscore too', () => {
  for (const text of [`model ${KEY} x`, `The model \`X${KEY}\` does not exist`, `No route for POST /v1/_${KEY}`, `9${KEY}`]) {
    const out = maskKeyLike(text);
    assert.ok(!out.includes('Ukz9od64E85n'), out);
    assert.match(out, /sk-x…w0Za/);
  }
});

test('configured secrets (provider keys and credential header values) are masked verbatim', () => {
  const azure = '9f8e7d6c5b4a39281706f5e4d3c2b1a0';
  const masker = new SecretMasker([azure]);
  const out = masker.mask(`Access denied for api-key ${azure}.`);
  assert.ok(!out.includes(azure), out);
  assert.match(out, /9f8e…b1a0/);
});

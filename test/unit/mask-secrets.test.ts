// Credentials never leave the gateway whole: configured secrets wherever they appear, key-shaped text
// wherever it starts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { maskKeyLike, SecretMasker } from '../../src/core/mask-secrets.ts';

const KEY = 'sk-xWlR6Ukz9od64E85nSfmn8qpjAhu2EAOJWc04kGiXmz7w0Za';

test('an sk- key is masked wherever it starts, glued to a letter, a digit or an underscore too', () => {
  for (const text of [
    `model ${KEY} x`,
    `The model \`X${KEY}\` does not exist`,
    `No route for POST /v1/_${KEY}`,
    `9${KEY}`,
  ]) {
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

test('a configured secret is masked in any case, cut short, and in base64 at every alignment', () => {
  const secret = 'sk-proj-Q7fzLw2mXc9RtUb4Hn6JkPa1Vy8Ds3Ge5Wq0Zi';
  const masker = new SecretMasker([secret]);
  const b64 = (s: string): string => Buffer.from(s).toString('base64');
  const texts = [
    secret.toUpperCase(),
    `cut: ${secret.slice(0, 20)}`,
    `tail ${secret.slice(-14)}.`,
    b64(`Bearer ${secret}`),
    b64(`u:${secret}`),
    b64(`ab${secret}`).replaceAll('+', '-').replaceAll('/', '_'),
  ];
  for (const text of texts) {
    const out = masker.mask(text).toLowerCase();
    for (let i = 0; i + 12 <= secret.length; i++)
      assert.ok(!out.includes(secret.slice(i, i + 12).toLowerCase()), `${text} → ${out}`);
    assert.ok(!out.includes(b64(secret).slice(4, 16).toLowerCase()), out);
  }
  assert.equal(masker.mask('nothing secret here, sk-proj-Q7'), 'nothing secret here, sk-proj-Q7');
});

test('every string of an error body is masked before anything reads it, escaped ones too', () => {
  const secret = 'sk-proj-Q7fzLw2mXc9RtUb4Hn6JkPa1Vy8Ds3Ge5Wq0Zi';
  const masker = new SecretMasker([secret]);
  const body = `{"error":{"message":"m","param":"${secret}","code":"${secret.replace('Q', '\\u0051')}","nested":[{"${secret}":1}]}}`;
  const out = masker.maskErrorBody(body);
  assert.ok(!out.includes('Q7fzLw2mXc9R'), out);
  assert.deepEqual(Object.keys((JSON.parse(out) as { error: object }).error), ['message', 'param', 'code', 'nested']);
});

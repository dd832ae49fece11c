// The reservation follows the same price classes as the bill: a prompt is reserved at the cache-write
// rate only when the request asks for a cache write (and at the 1 h rate only for `ttl: "1h"`), at the
// long-context tier its size reaches, and from the catalogue's rates when the config names none.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cacheWriteAsked } from '../../src/admission/cache-request.ts';
import { cacheWriteOf, reservationOf } from '../../src/admission/sizing.ts';
import { parseConfigText } from '../../src/config/load.ts';

const config = parseConfigText(
  `providers:
  - { name: an, kind: anthropic, base_url: "https://api.anthropic.com", api_key: k }
  - { name: oa, kind: openai, base_url: "https://api.openai.com/v1", api_key: k }
models:
  - { name: claude-sonnet, deployments: [ { provider: an, model: claude-sonnet-4-5 } ] }
  - { name: gpt-5, deployments: [ { provider: oa, model: gpt-5 } ] }
`,
  { source: 'test', env: {} },
);
const sonnet = config.models[0];
const gpt5 = config.models[1];

const plain = { model: 'claude-sonnet', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] };
const cached5m = {
  model: 'claude-sonnet',
  system: [{ type: 'text', text: 'long context', cache_control: { type: 'ephemeral' } }],
  messages: [{ role: 'user', content: 'hi' }],
};
const cached1h = {
  model: 'claude-sonnet',
  messages: [{ role: 'user', content: [{ type: 'text', text: 'a', cache_control: { type: 'ephemeral', ttl: '1h' } }] }],
};

test('the cache write a request asks for is read from its cache_control markers', () => {
  assert.equal(cacheWriteAsked(plain), 'none');
  assert.equal(cacheWriteAsked(cached5m), '5m');
  assert.equal(cacheWriteAsked(cached1h), '1h');
  assert.equal(cacheWriteAsked({ ...plain, cache_control: { type: 'ephemeral' } }), '5m', 'automatic caching');
  // OpenAI's writes cost plain input: the body is not even looked at.
  assert.equal(cacheWriteOf(gpt5, cached1h), 'none');
  assert.equal(cacheWriteOf(sonnet, cached1h), '1h');
});

test('a prompt without cache_control is reserved at the input rate, with one at the write rate it asks for', () => {
  // claude-sonnet-4-5 from the catalogue: 3 input, 3.75 5 m write, 6 1 h write, 15 output ($/M).
  const at = (w: 'none' | '5m' | '1h') => reservationOf(sonnet, 10_000, 1000, w).nanos;
  assert.equal(at('none'), 10_000 * 3000 + 1000 * 15_000);
  assert.equal(at('5m'), 10_000 * 3750 + 1000 * 15_000);
  assert.equal(at('1h'), 10_000 * 6000 + 1000 * 15_000);
  // Above 200k prompt tokens every token is reserved at the long-context rates (6 input, 22.5 output).
  assert.equal(reservationOf(sonnet, 300_000, 1000, 'none').nanos, 300_000 * 6000 + 1000 * 22_500);
  // gpt-5 from the catalogue: 1.25 input, 10 output.
  assert.equal(reservationOf(gpt5, 10_000, 1000, 'none').nanos, 10_000 * 1250 + 1000 * 10_000);
});

// MODELGATE_BREAKER_* and MODELGATE_REDIS_PREFIX go through the config schema: they override the file's
// settings, and a value the schema refuses stops the start with the variable named.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseConfigText, ConfigError } from '../../src/config/load.ts';
import { applyEnvOverrides } from '../../src/config/env-overrides.ts';

const base = `providers:\n  - { name: p, kind: mock }\nmodels:\n  - { name: m, deployments: [ { provider: p, model: m } ] }\n`;
const parse = (text: string, env: NodeJS.ProcessEnv) => parseConfigText(text, { source: 'x.yaml', env });

test('without the variables the file decides, and unset settings stay unset', () => {
  assert.deepEqual(parse(base, {}).breaker, {
    failures: undefined,
    minCalls: undefined,
    cooldownMs: undefined,
    credentialsRetryMs: undefined,
    credentialsRetryMaxMs: undefined,
  });
  assert.equal(parse(base, {}).redisPrefix, null);
  const file = parse(base + 'circuit_breaker: { failures: 7, cooldown_ms: 9000 }\nredis_prefix: "file:"\n', {});
  assert.deepEqual([file.breaker.failures, file.breaker.cooldownMs, file.redisPrefix], [7, 9000, 'file:']);
});

test('the variables override the file, as numbers', () => {
  const env = {
    MODELGATE_BREAKER_FAILURES: '2',
    MODELGATE_BREAKER_MIN_CALLS: '30',
    MODELGATE_BREAKER_COOLDOWN_MS: '60000',
    MODELGATE_REDIS_PREFIX: 'env:',
  };
  const fromEnv = parse(base, env);
  assert.deepEqual(fromEnv.breaker, {
    failures: 2,
    minCalls: 30,
    cooldownMs: 60_000,
    credentialsRetryMs: undefined,
    credentialsRetryMaxMs: undefined,
  });
  assert.equal(fromEnv.redisPrefix, 'env:');
  const both = parse(base + 'circuit_breaker: { failures: 7, min_calls: 5 }\nredis_prefix: "file:"\n', {
    MODELGATE_BREAKER_FAILURES: '3',
  });
  assert.deepEqual(
    [both.breaker.failures, both.breaker.minCalls, both.redisPrefix],
    [3, 5, 'file:'],
    'only the variable set overrides',
  );
});

test('an empty variable is unset', () => {
  const c = parse(base + 'circuit_breaker: { failures: 7 }\n', {
    MODELGATE_BREAKER_FAILURES: '',
    MODELGATE_REDIS_PREFIX: '',
  });
  assert.equal(c.breaker.failures, 7);
  assert.equal(c.redisPrefix, null);
});

test('a value the schema refuses is a config error naming the setting and the variable', () => {
  for (const [variable, value, path] of [
    ['MODELGATE_BREAKER_FAILURES', 'abc', 'circuit_breaker.failures'],
    ['MODELGATE_BREAKER_MIN_CALLS', '0', 'circuit_breaker.min_calls'],
    ['MODELGATE_BREAKER_COOLDOWN_MS', '1.5', 'circuit_breaker.cooldown_ms'],
  ] as const) {
    assert.throws(
      () => parse(base, { [variable]: value }),
      (err: unknown) => err instanceof ConfigError && err.message.includes(`at ${path} (from ${variable}):`),
      `${variable}=${value}`,
    );
  }
});

test('the file document is not changed in place', () => {
  const doc = { circuit_breaker: { failures: 7 }, models: [] };
  const { doc: out, from } = applyEnvOverrides(doc, { MODELGATE_BREAKER_COOLDOWN_MS: '5' });
  assert.deepEqual(doc, { circuit_breaker: { failures: 7 }, models: [] });
  assert.deepEqual(out, { circuit_breaker: { failures: 7, cooldown_ms: '5' }, models: [] });
  assert.deepEqual([...from], [['circuit_breaker.cooldown_ms', 'MODELGATE_BREAKER_COOLDOWN_MS']]);
});

test('nothing in src/ reads these variables outside config loading', async () => {
  const { readdirSync, readFileSync } = await import('node:fs');
  const root = new URL('../../src/', import.meta.url);
  const readers = readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && f !== 'config/env-overrides.ts' && f !== 'config/load.ts')
    .filter((f) =>
      /(?:process\.env\.|['"`])MODELGATE_(?:BREAKER_|REDIS_PREFIX)/.test(readFileSync(new URL(f, root), 'utf8')),
    );
  assert.deepEqual(readers, []);
});

// Config loading: defaults, ${ENV} substitution, and errors that name the file, key path and problem.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseConfigText, loadConfig, ConfigError } from '../../src/config/load.ts';

const base = `providers:\n  - { name: p, kind: openai, base_url: "http://x/v1", api_key: "\${K}" }\nmodels:\n  - { name: claude-a, deployments: [ { provider: p, model: m } ] }\n  - { name: b, deployments: [ { provider: p, model: m2, priority: 2, weight: 3 } ] }\n`;

test('defaults, family from the name, env substitution', () => {
  const c = parseConfigText(base, { source: 'x.yaml', env: { K: 'secret' } });
  assert.equal(c.listen.port, 8080);
  assert.equal(c.bodyLimitBytes, 10 * 1024 * 1024);
  assert.equal(c.providers[0].apiKeys[0], 'secret');
  assert.equal(c.models[0].family, 'anthropic');
  assert.equal(c.models[1].family, 'openai');
  assert.equal(c.models[1].deployments[0].priority, 2);
  assert.equal(c.models[1].deployments[0].id, 'b#0');
  assert.deepEqual([c.usageFlushMs, c.usageFlushRows], [200, 256]);
  const tuned = parseConfigText(base + 'usage_flush_ms: 50\nusage_flush_rows: 64\n', {
    source: 'x.yaml',
    env: { K: 'k' },
  });
  assert.deepEqual([tuned.usageFlushMs, tuned.usageFlushRows], [50, 64]);
});

test('per-deployment translation options: the max_tokens field and the structured-output form', async () => {
  const text = base.replace(
    'model: m2, priority: 2, weight: 3',
    'model: o3, max_tokens_field: max_completion_tokens, structured_output: native',
  );
  const c = parseConfigText(text, { source: 'x.yaml', env: { K: 'k' } });
  const d = c.models[1].deployments[0];
  assert.equal(d.maxTokensField, 'max_completion_tokens');
  assert.equal(d.structuredOutput, 'native');
  assert.equal(
    c.models[0].deployments[0].maxTokensField,
    undefined,
    'unset: the translator default (max_tokens, forced tool)',
  );
  assert.throws(
    () =>
      parseConfigText(base.replace('weight: 3', 'weight: 3, max_tokens_field: max_output_tokens'), {
        source: 'x.yaml',
        env: { K: 'k' },
      }),
    /deployments\[0\]\.max_tokens_field/,
  );
  // The option reaches the upstream body of a translated request.
  const { exchangeFor } = await import('../../src/translate/exchange-for.ts');
  const parsed = { model: 'claude-x', max_tokens: 300, messages: [{ role: 'user', content: 'Hi' }] };
  const input = {
    dialect: 'anthropic' as const,
    raw: Buffer.from(JSON.stringify(parsed)),
    text: JSON.stringify(parsed),
    parsed,
    facts: { model: 'claude-x', stream: false, includeUsage: false },
    promptEstimate: () => 1,
    defaultMaxTokens: 4096,
  };
  const body = JSON.parse(
    exchangeFor(input as never, d)
      .upstreamBody()
      .toString(),
  ) as Record<string, unknown>;
  assert.equal(body.max_completion_tokens, 300);
  assert.equal(body.max_tokens, undefined);
});

test("refused_params: the parameters a deployment's model refuses are left out of what it is sent", async () => {
  const text = base.replace('model: m2, priority: 2, weight: 3', 'model: o3, refused_params: [temperature, top_p]');
  const d = parseConfigText(text, { source: 'x.yaml', env: { K: 'k' } }).models[1].deployments[0];
  assert.deepEqual(d.refusedParams, ['temperature', 'top_p']);
  assert.throws(
    () =>
      parseConfigText(base.replace('weight: 3', 'weight: 3, refused_params: temperature'), {
        source: 'x.yaml',
        env: { K: 'k' },
      }),
    /deployments\[0\]\.refused_params/,
  );
  const { exchangeFor } = await import('../../src/translate/exchange-for.ts');
  const parsed = { model: 'claude-x', max_tokens: 300, temperature: 0.1, messages: [{ role: 'user', content: 'Hi' }] };
  const input = {
    dialect: 'anthropic' as const,
    raw: Buffer.from(JSON.stringify(parsed)),
    text: JSON.stringify(parsed),
    parsed,
    facts: { model: 'claude-x', stream: false, includeUsage: false },
    promptEstimate: () => 1,
    defaultMaxTokens: 4096,
  };
  const exchange = exchangeFor(input as never, d);
  assert.equal((JSON.parse(exchange.upstreamBody().toString()) as Record<string, unknown>).temperature, undefined);
  assert.match(exchange.responseHeaders['x-modelgate-adjusted'] ?? '', /temperature left out/);
});

test('errors name the file, the key path and the problem', () => {
  const cases: [string, RegExp][] = [
    [base.replace('kind: openai', 'kind: nosuch'), /x\.yaml[\s\S]*providers\[0\]\.kind: unknown provider kind/],
    [
      base.replace('provider: p, model: m2', 'provider: nope, model: m2'),
      /models\[1\]\.deployments\[0\]\.provider: unknown provider "nope"/,
    ],
    [base + 'listen: { port: "eighty" }\n', /listen\.port/],
    [base + 'surprise: 1\n', /surprise/],
    [base + 'usage_flush_rows: 0\n', /usage_flush_rows/],
    ['providers: [', /invalid YAML/],
  ];
  for (const [text, re] of cases) {
    assert.throws(
      () => parseConfigText(text, { source: 'x.yaml', env: { K: 'k' } }),
      (e: unknown) => e instanceof ConfigError && re.test(e.message),
    );
  }
  assert.throws(
    () => parseConfigText(base, { source: 'x.yaml', env: {} }),
    /providers\[0\]\.api_key: environment variable K is not set/,
  );
});

test('the built-in config and the example file load', () => {
  assert.equal(loadConfig(null).models.length, 2);
  const example = readFileSync(new URL('../../modelgate.example.yaml', import.meta.url), 'utf8');
  const c = parseConfigText(example, { source: 'example', env: { OPENAI_API_KEY: 'a', ANTHROPIC_API_KEY: 'b' } });
  assert.equal(c.models.find((m) => m.name === 'claude-sonnet-4-5')!.deployments.length, 2);
});

test('routing and shared-state settings', () => {
  const c = parseConfigText(
    base +
      'redis: redis://127.0.0.1:6379\nredis_prefix: "team-a:"\ncircuit_breaker: { failures: 3, cooldown_ms: 5000, credentials_retry_ms: 1000, credentials_retry_max_ms: 8000 }\n',
    { source: 'x', env: { K: 'k' } },
  );
  assert.equal(c.redisUrl, 'redis://127.0.0.1:6379');
  assert.equal(c.redisPrefix, 'team-a:');
  assert.deepEqual(c.breaker, {
    failures: 3,
    minCalls: undefined,
    cooldownMs: 5000,
    credentialsRetryMs: 1000,
    credentialsRetryMaxMs: 8000,
  });
  assert.throws(
    () => parseConfigText(base + 'redis: localhost\n', { source: 'x', env: { K: 'k' } }),
    /at redis: must be a redis:\/\//,
  );
});

test('metrics_token: set from the environment, or left empty for an open /metrics', () => {
  const env = { K: 'k', METRICS_TOKEN: 'scrape-token-0123456789' };
  assert.equal(parseConfigText(base, { source: 'x', env }).metricsToken, null);
  assert.equal(
    parseConfigText(base + 'metrics_token: "${METRICS_TOKEN}"\n', { source: 'x', env }).metricsToken,
    'scrape-token-0123456789',
  );
  assert.equal(parseConfigText(base + 'metrics_token: "${UNSET_TOKEN:-}"\n', { source: 'x', env }).metricsToken, null);
  assert.throws(() => parseConfigText(base + 'metrics_token: 42\n', { source: 'x', env }), /at metrics_token/);
});

test('admin_token: from the file, else MODELGATE_ADMIN_TOKEN; off when neither; a short token is refused', () => {
  const env = { K: 'k' };
  assert.equal(parseConfigText(base, { source: 'x', env }).adminToken, null);
  assert.equal(
    parseConfigText(base + 'admin_token: "file-token-0123456789"\n', {
      source: 'x',
      env: { ...env, MODELGATE_ADMIN_TOKEN: 'env-token-0123456789' },
    }).adminToken,
    'file-token-0123456789',
  );
  assert.equal(
    parseConfigText(base, { source: 'x', env: { ...env, MODELGATE_ADMIN_TOKEN: 'env-token-0123456789' } }).adminToken,
    'env-token-0123456789',
  );
  assert.equal(
    parseConfigText(base + 'admin_token: ""\n', { source: 'x', env: { ...env, MODELGATE_ADMIN_TOKEN: '' } }).adminToken,
    null,
  );
  assert.throws(() => parseConfigText(base + 'admin_token: "short"\n', { source: 'x', env }), /at least 16 characters/);
});

test('numeric settings filled from the environment are numbers; what is not a number is still an error', () => {
  const env = { K: 'k', PORT: '9090', PRICE: '0.15', FLUSH: '' };
  const c = parseConfigText(
    base.replace(
      'models:\n',
      'models:\n  - { name: priced, price: { input: "${PRICE}", output: 1 }, deployments: [ { provider: p, model: m3 } ] }\n',
    ) + 'listen:\n  port: ${PORT}\nusage_flush_ms: ${FLUSH:-50}\n',
    { source: 'x', env },
  );
  assert.equal(c.listen.port, 9090);
  assert.equal(c.usageFlushMs, 50);
  assert.equal(c.models.find((m) => m.name === 'priced')?.price?.input, 0.15);
  assert.throws(
    () => parseConfigText(base + 'listen:\n  port: ${PORT}\n', { source: 'x', env: { K: 'k', PORT: 'eighty' } }),
    /at listen\.port: .*number/i,
  );
  assert.throws(
    () => parseConfigText(base + 'listen:\n  port: ${PORT}\n', { source: 'x', env: { K: 'k', PORT: '0x50' } }),
    /at listen\.port/,
  );
  // Strings stay strings: an API key of digits is not turned into a number.
  assert.equal(parseConfigText(base, { source: 'x', env: { K: '12345' } }).providers[0].apiKeys[0], '12345');
});

test('apis: which OpenAI endpoints a kind openai upstream serves; stored responses retention', async () => {
  const c = parseConfigText(
    base.replace('api_key: "${K}" }', 'api_key: "${K}", apis: [chat, responses, embeddings] }') +
      'responses_retention_days: 7\n',
    { source: 'x.yaml', env: { K: 'k' } },
  );
  assert.deepEqual((c.providers[0].options as { apis: string[] }).apis, ['chat', 'responses', 'embeddings']);
  assert.equal(c.responsesRetentionMs, 7 * 86_400_000);
  const d = parseConfigText(base, { source: 'x.yaml', env: { K: 'k' } });
  assert.deepEqual(
    (d.providers[0].options as { apis: string[] }).apis,
    ['chat', 'embeddings'],
    'default: chat and embeddings',
  );
  assert.equal(d.responsesRetentionMs, 30 * 86_400_000);
  assert.throws(
    () =>
      parseConfigText(base.replace('apis', 'x').replace('api_key: "${K}" }', 'api_key: "${K}", apis: [images] }'), {
        source: 'x.yaml',
        env: { K: 'k' },
      }),
    /providers\[0\]\.apis/,
  );
  assert.throws(
    () =>
      parseConfigText(
        base
          .replace('kind: openai, base_url: "http://x/v1"', 'kind: anthropic, base_url: "http://x"')
          .replace('api_key: "${K}" }', 'api_key: "${K}", apis: [responses] }'),
        { source: 'x.yaml', env: { K: 'k' } },
      ),
    /providers\[0\][\s\S]*apis: not a setting of kind anthropic/,
  );
});

test('shutdown_grace_s and drain_delay_s: defaults long enough for an agent stream, the environment overrides them', () => {
  const d = parseConfigText(base, { source: 'x.yaml', env: { K: 'k' } });
  assert.equal(d.shutdownGraceMs, 600_000);
  assert.equal(d.drainDelayMs, 5_000);
  assert.equal(d.accessLog, false);
  const c = parseConfigText(`${base}shutdown_grace_s: 90\ndrain_delay_s: 0\naccess_log: true\n`, {
    source: 'x.yaml',
    env: { K: 'k', MODELGATE_SHUTDOWN_GRACE_S: '30.5' },
  });
  assert.equal(c.shutdownGraceMs, 30_500, 'the environment wins');
  assert.equal(c.drainDelayMs, 0);
  assert.equal(c.accessLog, true);
  assert.throws(
    () => parseConfigText(`${base}shutdown_grace_s: 0\n`, { source: 'x.yaml', env: { K: 'k' } }),
    /shutdown_grace_s/,
  );
});

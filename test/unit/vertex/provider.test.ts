// kind vertex without the network: its config keys, the host of a location, the path of each operation for
// Gemini and Claude models, the rawPredict body, the dialect per model and Vertex's beta table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseConfigText } from '../../../src/config/load.ts';
import { providerSpec } from '../../../src/registry.ts';
import { generationQuery, targetQuery } from '../../../src/spec/provider.ts';
import { fitBetas } from '../../../src/spec/betas.ts';

const config = (keys: string) =>
  parseConfigText(
    `providers:\n  - { name: vx, kind: vertex, ${keys} }\nmodels:\n  - { name: g, deployments: [ { provider: vx, model: gemini-2.5-pro } ] }\n  - { name: c, deployments: [ { provider: vx, model: "claude-sonnet-4-5@20250929" } ] }\n`,
    { source: 'x.yaml', env: {} },
  );

test('config: project and location required, location checked, another kind’s key refused', () => {
  assert.throws(() => config('location: us-east5'), /providers\[0\]\.project/);
  assert.throws(() => config('project: p'), /providers\[0\]\.location/);
  assert.throws(() => config('project: p, location: "US East"'), /providers\[0\]\.location/);
  assert.throws(() => config('project: p, location: us-east5, region: x'), /not a setting of kind vertex/);
  assert.equal(
    config('project: p, location: us-east5').providers[0].baseUrl,
    'https://us-east5-aiplatform.googleapis.com',
  );
  assert.equal(config('project: p, location: global').providers[0].baseUrl, 'https://aiplatform.googleapis.com');
});

test('targets: Gemini models to generateContent, Claude models to rawPredict, under project and location', () => {
  const c = config('project: proj-1, location: europe-west4');
  const p = c.providers[0];
  const [gemini, claude] = [c.models[0].deployments[0], c.models[1].deployments[0]];
  const spec = providerSpec(p);
  assert.equal(spec.upstreamDialect('openai', p, gemini), 'gemini');
  assert.equal(spec.upstreamDialect('openai', p, claude), 'anthropic');
  const base = '/v1/projects/proj-1/locations/europe-west4/publishers';
  assert.deepEqual(spec.target(p, gemini, generationQuery('gemini', true)), {
    origin: 'https://europe-west4-aiplatform.googleapis.com',
    path: `${base}/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse`,
  });
  assert.equal(
    spec.target(p, gemini, generationQuery('gemini', false)).path,
    `${base}/google/models/gemini-2.5-pro:generateContent`,
  );
  assert.equal(
    spec.target(p, claude, generationQuery('anthropic', false)).path,
    `${base}/anthropic/models/claude-sonnet-4-5@20250929:rawPredict`,
  );
  assert.equal(
    spec.target(p, claude, generationQuery('anthropic', true)).path,
    `${base}/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict`,
  );
  assert.equal(
    spec.target(p, claude, targetQuery('count-tokens', 'anthropic', false)).path,
    `${base}/anthropic/models/count-tokens:rawPredict`,
  );
  assert.throws(() => spec.target(p, gemini, generationQuery('anthropic', false)), /no endpoint/);
  assert.throws(() => spec.target(p, claude, targetQuery('embeddings', 'openai', false)), /no endpoint/);
  const custom = config('project: p, location: us-east5, base_url: "http://127.0.0.1:9/"');
  assert.equal(
    providerSpec(custom.providers[0]).target(
      custom.providers[0],
      custom.models[0].deployments[0],
      generationQuery('gemini', false),
    ).origin,
    'http://127.0.0.1:9',
  );
});

test('the rawPredict body: the version first, no model (count-tokens keeps it), no anthropic_beta; Gemini bodies untouched', () => {
  const c = config('project: p, location: us-east5');
  const p = c.providers[0];
  const [gemini, claude] = [c.models[0].deployments[0], c.models[1].deployments[0]];
  const spec = providerSpec(p);
  const body = JSON.stringify({ model: 'x', anthropic_beta: ['b'], max_tokens: 5, messages: [], stream: true });
  const wire = (d: typeof claude, q: ReturnType<typeof targetQuery>) =>
    spec.wireBody!({ provider: p, deployment: d, query: q, body, forward: {} });
  assert.deepEqual(JSON.parse(String(wire(claude, generationQuery('anthropic', true)))), {
    anthropic_version: 'vertex-2023-10-16',
    max_tokens: 5,
    messages: [],
    stream: true,
  });
  assert.equal(JSON.parse(String(wire(claude, targetQuery('count-tokens', 'anthropic', false)))).model, 'x');
  assert.equal(wire(gemini, generationQuery('gemini', false)), body);
  const headers = spec.headers(p, { apiKey: null, forward: { 'anthropic-beta': 'context-1m-2025-08-07' } });
  assert.equal(headers['anthropic-beta'], 'context-1m-2025-08-07');
  assert.equal(headers['anthropic-version'], undefined, 'the version is a body field on Vertex');
});

test('betas: Claude models on Vertex keep what Vertex takes, rename tool search, leave out the rest; Gemini has no table', () => {
  const c = config('project: p, location: us-east5');
  const p = c.providers[0];
  const spec = providerSpec(p);
  assert.equal(spec.betas!(p, c.models[0].deployments[0]), null);
  const rules = spec.betas!(p, c.models[1].deployments[0])!;
  const kept = fitBetas(rules, 'claude-code-20250219, context-1m-2025-08-07,interleaved-thinking-2025-05-14');
  assert.deepEqual(kept, {
    value: 'claude-code-20250219,context-1m-2025-08-07,interleaved-thinking-2025-05-14',
    adjustments: [],
  });
  const fitted = fitBetas(rules, 'files-api-2025-04-14,advanced-tool-use-2025-11-20,mcp-client-2025-04-04');
  assert.equal(fitted.value, 'tool-search-tool-2025-10-19');
  assert.deepEqual(fitted.adjustments, [
    "anthropic-beta advanced-tool-use-2025-11-20 sent as tool-search-tool-2025-10-19: the upstream's name for it",
    'anthropic-beta files-api-2025-04-14, mcp-client-2025-04-04 left out: the upstream does not take them',
  ]);
  assert.deepEqual(fitBetas(rules, 'files-api-2025-04-14'), {
    value: undefined,
    adjustments: ['anthropic-beta files-api-2025-04-14 left out: the upstream does not take it'],
  });
});

test('sign: a Google token from the service account, kept while fresh (later requests do not wait), refetched near expiry', async () => {
  const { startMockGoogleToken } = await import('../../helpers/mock-google-token.ts');
  for (const [lifetime, exchanges] of [
    [3600, 1],
    [240, 2],
  ] as const) {
    const google = await startMockGoogleToken(lifetime);
    try {
      const c = config(`project: p, location: us-east5, credentials_file: "${await google.serviceAccountFile()}"`);
      const p = c.providers[0];
      const d = c.models[1].deployments[0];
      const spec = providerSpec(p);
      const sign = (headers: Record<string, string>) =>
        spec.sign!({ provider: p, deployment: d, target: { origin: '', path: '' }, headers, body: '' });
      const first: Record<string, string> = {};
      await sign(first);
      const token = /^Bearer (.+)$/.exec(first.authorization)![1];
      assert.ok(google.isIssued(token));
      const second: Record<string, string> = {};
      const waited = sign(second);
      // A token with an hour left is kept: the header is there at once; one inside its last five minutes is not.
      assert.equal(waited === undefined, lifetime === 3600);
      await waited;
      assert.ok(google.isIssued(/^Bearer (.+)$/.exec(second.authorization)![1]));
      assert.equal(google.exchanges, exchanges);
    } finally {
      await google.close();
    }
  }
});

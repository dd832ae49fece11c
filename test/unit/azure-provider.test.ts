// kind azure without the network: its config keys, the path of each operation in both api_version styles,
// and the Entra ID token's reuse and refresh on a hand-turned clock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AccessToken, TokenCredential } from '@azure/identity';
import { parseConfigText } from '../../src/config/load.ts';
import { checkConfig } from '../../src/config/check.ts';
import { providerSpec } from '../../src/registry.ts';
import { targetQuery } from '../../src/spec/provider.ts';
import { AZURE_OPENAI_SCOPE, EntraToken, REFRESH_BEFORE_MS } from '../../src/providers/azure/entra-token.ts';

const config = (provider: string) =>
  parseConfigText(
    `providers:\n  - { name: az, kind: azure, base_url: "https://res.openai.azure.com/", ${provider} }\nmodels:\n  - { name: m, deployments: [ { provider: az, model: "my dep" } ] }\n`,
    { source: 'x.yaml', env: {} },
  );

test('config: api_version checked, api_key or entra_id but not both, another kind’s key refused', () => {
  assert.throws(() => config('api_version: "latest", api_key: k'), /providers\[0\]\.api_version/);
  assert.throws(
    () => config('api_key: k, entra_id: { tenant_id: t, client_id: c, client_secret: s }'),
    /providers\[0\]\.entra_id: give api_key or entra_id, not both/,
  );
  assert.throws(() => config('api_key: k, anthropic_version: "2023-06-01"'), /not a setting of kind azure/);
  assert.throws(() => config('entra_id: { tenant_id: t, client_id: c }'), /entra_id\.client_secret/);
  const c = config('api_key: k');
  assert.equal(c.providers[0].baseUrl, 'https://res.openai.azure.com');
});

test('targets: v1 paths name the deployment in the body; dated ones in the path, with api-version', () => {
  const paths = (provider: string) => {
    const c = config(provider);
    const p = c.providers[0];
    const d = c.models[0].deployments[0];
    const spec = providerSpec(p);
    return {
      chat: spec.target(p, d, targetQuery('chat', 'openai', true)),
      responses: spec.target(p, d, targetQuery('responses', 'responses', false)).path,
      embeddings: spec.target(p, d, targetQuery('embeddings', 'openai', false)).path,
      headers: spec.headers(p, { apiKey: 'k', forward: {} }),
    };
  };
  const v1 = paths('api_key: k');
  assert.deepEqual(v1.chat, { origin: 'https://res.openai.azure.com', path: '/openai/v1/chat/completions' });
  assert.equal(v1.responses, '/openai/v1/responses');
  assert.equal(v1.embeddings, '/openai/v1/embeddings');
  assert.equal(v1.headers['api-key'], 'k');
  assert.equal(v1.headers.authorization, undefined);
  const dated = paths('api_version: "2024-10-21", api_key: k');
  assert.equal(dated.chat.path, '/openai/deployments/my%20dep/chat/completions?api-version=2024-10-21');
  assert.equal(dated.responses, '/openai/responses?api-version=2024-10-21');
  assert.equal(dated.embeddings, '/openai/deployments/my%20dep/embeddings?api-version=2024-10-21');
});

/** A credential that hands out numbered tokens living `lifetimeMs` from the clock's now, and counts calls. */
function fakeCredential(clock: { now: number }, lifetimeMs: number) {
  const calls: string[] = [];
  let release: (() => void) | null = null;
  let held = false;
  const credential: TokenCredential = {
    async getToken(scopes): Promise<AccessToken> {
      calls.push(String(scopes));
      if (held) await new Promise<void>((r) => (release = r));
      return { token: `t${calls.length}`, expiresOnTimestamp: clock.now + lifetimeMs };
    },
  };
  return {
    credential,
    calls,
    hold: () => {
      held = true;
    },
    release: () => {
      held = false;
      release?.();
    },
  };
}

test('an Entra token is fetched once, reused until five minutes before it expires, then refreshed in the background', async () => {
  const clock = { now: 1_000_000 };
  const fake = fakeCredential(clock, 60 * 60_000);
  const entra = new EntraToken(
    async () => fake.credential,
    () => clock.now,
  );
  assert.equal(await entra.header(), 'Bearer t1', 'the first request waits for the first token');
  assert.deepEqual(fake.calls, [AZURE_OPENAI_SCOPE]);
  clock.now += 60 * 60_000 - REFRESH_BEFORE_MS - 1;
  for (let i = 0; i < 5; i++) assert.equal(entra.header(), 'Bearer t1', 'reused, synchronously');
  assert.equal(fake.calls.length, 1, 'no token request per request');
  // Inside the last five minutes: the old token still serves while one refresh runs.
  clock.now += 2;
  fake.hold();
  assert.equal(entra.header(), 'Bearer t1');
  assert.equal(entra.header(), 'Bearer t1');
  assert.equal(fake.calls.length, 2, 'one refresh, however many requests');
  fake.release();
  await new Promise<void>((r) => setImmediate(r));
  assert.equal(entra.header(), 'Bearer t2', 'the refreshed token once it is in');
  assert.equal(fake.calls.length, 2);
});

test('an expired token is never sent: the request waits for the new one; a refused refresh fails the request', async () => {
  const clock = { now: 0 };
  const fake = fakeCredential(clock, 10 * 60_000);
  let refuse = false;
  const credential: TokenCredential = {
    getToken: (scopes, options) => {
      if (refuse) return Promise.reject(new Error('AADSTS7000215: Invalid client secret.'));
      return fake.credential.getToken(scopes, options);
    },
  };
  const entra = new EntraToken(
    async () => credential,
    () => clock.now,
  );
  assert.equal(await entra.header(), 'Bearer t1');
  clock.now += 10 * 60_000;
  const next = entra.header();
  assert.ok(next instanceof Promise, 'the expired token is not offered');
  assert.equal(await next, 'Bearer t2');
  clock.now += 10 * 60_000;
  refuse = true;
  await assert.rejects(async () => entra.header(), /AADSTS7000215/);
  refuse = false;
  assert.equal(await entra.header(), 'Bearer t3', 'the next request tries again');
});

test('config check: a base_url with a path is an error; apis without chat or responses serve no chat model', () => {
  const pathy = parseConfigText(
    `providers:\n  - { name: az, kind: azure, base_url: "https://res.openai.azure.com/openai/v1", api_key: k }\nmodels:\n  - { name: m, deployments: [ { provider: az, model: d } ] }\n`,
    { source: 'x.yaml', env: {} },
  );
  const found = checkConfig(pathy);
  assert.ok(
    found.some((f) => f.level === 'error' && f.path === 'providers[0].base_url' && /kind azure/.test(f.message)),
  );
  const embedOnly = parseConfigText(
    `providers:\n  - { name: az, kind: azure, base_url: "https://res.openai.azure.com", api_key: k, apis: [embeddings] }\nmodels:\n  - { name: m, mode: chat, deployments: [ { provider: az, model: d } ] }\n`,
    { source: 'x.yaml', env: {} },
  );
  assert.ok(checkConfig(embedOnly).some((f) => f.level === 'error' && /serves chat/.test(f.message)));
  assert.deepEqual(checkConfig(config('api_key: k')), []);
});

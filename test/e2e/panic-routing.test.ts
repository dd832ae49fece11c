// Issue 39 item 2: the last deployment is never ejected. A model whose every deployment is cooling down
// tries the one that recovers first instead of refusing everyone with 503 (and says so); an upstream 429
// is a rate signal, not a health failure.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFixture, call, type Fixture } from './fixture.ts';
import { usageRows } from '../admission/usage-db.ts';
import { waitUntil } from '../helpers/gateway-process.ts';

let fx: Fixture;
before(async () => {
  fx = await startFixture({
    extraModels: `  - { name: gpt-one, max_retries: 0, deployments: [ { provider: up, model: upstream-one } ] }
  - { name: gpt-limited, max_retries: 0, deployments: [ { provider: up, model: upstream-limited } ] }`,
  });
});
after(async () => fx.close());

const chat = (model: string) => ({ model, messages: [{ role: 'user', content: 'hi' }] });

test('five upstream 500s on a one-deployment model, upstream recovers: the next request is served', async () => {
  const { key, id } = await fx.gw.createKey({ name: 'panic', flags: ['--models', 'gpt-one,gpt-limited'] });
  let down = true;
  fx.up.setBehaviour((req) =>
    (req.json as { model?: string } | undefined)?.model === 'upstream-one' && down
      ? { kind: 'status', status: 500 }
      : undefined,
  );
  for (let i = 0; i < 5; i++) {
    const res = await call(fx, { path: '/v1/chat/completions', auth: key, body: chat('gpt-one') });
    assert.equal(res.status, 502, res.text);
  }
  let metrics = await (await fetch(`${fx.gw.url}/metrics`)).text();
  assert.match(metrics, /modelgate_deployment_circuit\{deployment="gpt-one#0",state="open"\} 1/);
  down = false;
  const res = await call(fx, { path: '/v1/chat/completions', auth: key, body: chat('gpt-one') });
  assert.equal(res.status, 200, res.text);
  assert.match(res.headers.get('x-modelgate-routing') ?? '', /^panic: .*gpt-one#0/);
  metrics = await (await fetch(`${fx.gw.url}/metrics`)).text();
  assert.match(metrics, /modelgate_panic_routed_total\{model="gpt-one"\} 1/);
  assert.match(
    metrics,
    /modelgate_deployment_circuit\{deployment="gpt-one#0",state="closed"\} 1/,
    'the success closed the breaker',
  );
  const again = await call(fx, { path: '/v1/chat/completions', auth: key, body: chat('gpt-one') });
  assert.equal(again.status, 200);
  assert.equal(again.headers.get('x-modelgate-routing'), null, 'routed normally again');
  fx.up.setBehaviour(undefined);
  // The row says it too: the five 502s and the normal request after are not panic-routed, the recovery is.
  await waitUntil(() => usageRows(fx.gw.dbPath, id).length >= 7, 'the seven usage rows');
  assert.deepEqual(
    usageRows(fx.gw.dbPath, id).map((r) => [r.status, r.routing]),
    [
      [502, null],
      [502, null],
      [502, null],
      [502, null],
      [502, null],
      [200, 'panic'],
      [200, null],
    ],
  );
});

test('upstream 429s do not take the deployment out; the caller gets the 429 and its retry-after', async () => {
  const { key } = await fx.gw.createKey({ name: 'limited', flags: ['--models', 'gpt-limited'] });
  fx.up.setBehaviour((req) =>
    (req.json as { model?: string } | undefined)?.model === 'upstream-limited'
      ? { kind: 'status', status: 429, headers: { 'retry-after': '2' } }
      : undefined,
  );
  for (let i = 0; i < 6; i++) {
    const res = await call(fx, { path: '/v1/chat/completions', auth: key, body: chat('gpt-limited') });
    assert.equal(res.status, 429, res.text);
    assert.equal(res.headers.get('retry-after'), '2');
  }
  fx.up.setBehaviour(undefined);
  const metrics = await (await fetch(`${fx.gw.url}/metrics`)).text();
  assert.doesNotMatch(metrics, /modelgate_deployment_circuit\{deployment="gpt-limited#0",state="open"\} 1/);
  assert.doesNotMatch(fx.gw.logs(), /gpt-limited#0 taken out/);
});

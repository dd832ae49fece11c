// Issue 5: deployment health across requests — circuit breaker cooldown, refused credentials taken out
// and logged loudly once, 503 when nothing is left, breaker state in /metrics.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startRoutingFixture, ROUTES, SECRET, type RoutingFixture, type Route } from '../routing/e2e-fixture.ts';

let fx: RoutingFixture;
before(async () => {
  fx = await startRoutingFixture({ env: { MODELGATE_BREAKER_FAILURES: '2', MODELGATE_BREAKER_COOLDOWN_MS: '60000' } });
});
after(async () => fx.close());

const oai = ROUTES[0];
const single: Route = { label: 'single', model: 'r-single', path: '/v1/chat/completions', client: 'openai' };

test('a deployment failing twice in a row is skipped for its cooldown; /metrics shows it open', async () => {
  for (let i = 0; i < 2; i++) {
    fx.faults({ A: [{ kind: 'status', status: 503 }] });
    const res = await fx.send(oai);
    assert.equal(res.status, 200);
    await res.text();
    assert.deepEqual(fx.tried(), ['A', 'B']);
  }
  fx.faults({});
  const res = await fx.send(oai);
  assert.equal(res.status, 200);
  await res.text();
  assert.deepEqual(fx.tried(), ['B'], 'the open deployment is not tried');
  const metrics = await (await fetch(`${fx.gw.url}/metrics`)).text();
  assert.match(metrics, /modelgate_deployment_circuit\{deployment="r-oai#0",state="open"\} 1/);
  assert.match(fx.gw.logs(), /"level":"error"[^\n]*r-oai#0 taken out/);
});

test('refused credentials: the deployment is taken out, logged at error level once, key masked', async () => {
  const route = ROUTES[1];
  for (let i = 0; i < 2; i++) {
    fx.faults({ A: [{ kind: 'status', status: 401 }] });
    const res = await fx.send(route);
    assert.equal(res.status, 200, await res.clone().text());
    await res.text();
  }
  // The provider a-ant has one key: after the first refusal its deployments are out until the operator acts.
  fx.faults({});
  const res = await fx.send(route);
  await res.text();
  assert.deepEqual(fx.tried(), ['B']);
  const logs = fx.gw.logs();
  assert.ok(!logs.includes(SECRET), 'the key never reaches the log whole');
  const refusals = logs.split('\n').filter((l) => l.includes('refused the gateway') && l.includes('"level":"error"'));
  assert.equal(refusals.length, 1, refusals.join('\n'));
  assert.match(logs, /claude-r-ant#0 taken out: the upstream refused every key/);
});

test('a model whose only deployment is cooling down is not refused: panic routing tries it (issue 39)', async () => {
  for (let i = 0; i < 2; i++) {
    fx.faults({
      A: [
        { kind: 'status', status: 500 },
        { kind: 'status', status: 500 },
        { kind: 'status', status: 500 },
        { kind: 'status', status: 500 },
      ],
    });
    const res = await fx.send(single);
    await res.text();
    if (fx.tried().length >= 2) break;
  }
  // Still cooling down (60 s here), but the upstream has recovered: the request goes to it and is served.
  fx.faults({});
  const res = await fx.send(single);
  assert.equal(res.status, 200, await res.clone().text());
  await res.text();
  assert.match(res.headers.get('x-modelgate-routing') ?? '', /^panic/);
  assert.deepEqual(fx.tried(), ['A']);
  const row = await fx.usageRow(res.headers.get('x-request-id')!);
  assert.equal(row.attempts, 1);
  assert.equal(row.status, 200);
});

// One upstream 401 no longer takes a provider offline until restart. The refused key is
// tried again on a timer (here 100 ms, doubling) and put back once it works; each change is logged once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startFixture, call, UPSTREAM_SECRET } from './fixture.ts';
import { waitUntil } from '../helpers/gateway-process.ts';

test('a key refused with 401 is re-probed and back in rotation once the upstream accepts it', async () => {
  const fx = await startFixture({
    extraModels: '  - { name: gpt-keyed, max_retries: 0, deployments: [ { provider: up, model: upstream-keyed } ] }',
    extraConfig: 'circuit_breaker: { credentials_retry_ms: 100 }',
  });
  try {
    const { key } = await fx.gw.createKey({ name: 'reprobe', flags: ['--models', 'gpt-keyed'] });
    let refused = true;
    fx.up.setBehaviour(() => (refused ? { kind: 'status', status: 401 } : undefined));
    const body = { model: 'gpt-keyed', messages: [{ role: 'user', content: 'hi' }] };
    const first = await call(fx, { path: '/v1/chat/completions', auth: key, body });
    assert.equal(first.status, 502, first.text);
    // Still refused at its re-probes: the wait doubles, nothing new is logged loudly.
    // Requests keep coming while the key rests; its re-probes reach the upstream on their timer.
    await waitUntil(async () => {
      await call(fx, { path: '/v1/chat/completions', auth: key, body });
      return fx.up.requests.length >= 3;
    }, 'the refused key to be probed again');
    refused = false;
    let status = 0;
    await waitUntil(async () => {
      status = (await call(fx, { path: '/v1/chat/completions', auth: key, body })).status;
      return status === 200;
    }, 'the key to be back in rotation');
    assert.equal(status, 200);
    // The child's log reaches this process through a pipe: wait for the line before counting.
    await waitUntil(
      () => fx.gw.logs().includes("accepts the gateway's key again"),
      'the log line of the key coming back',
    );
    const logs = fx.gw.logs();
    const lines = logs.split('\n');
    assert.equal(
      lines.filter((l) => l.includes('refused the gateway') && l.includes('"level":"error"')).length,
      1,
      'the refusal is logged once',
    );
    assert.equal(
      lines.filter((l) => l.includes('taken out: the upstream refused every key') && l.includes('"level":"error"'))
        .length,
      1,
      'the deployment taken out once',
    );
    assert.equal(
      lines.filter((l) => l.includes("accepts the gateway's key again")).length,
      1,
      'the return is logged once',
    );
    assert.ok(!logs.includes(UPSTREAM_SECRET), 'the key is masked');
  } finally {
    fx.up.setBehaviour(undefined);
    await fx.close();
  }
});

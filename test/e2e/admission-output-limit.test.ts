// A budget bounds spend only if the upstream is held to the output the reservation counted: a chat
// request without a limit is sent with the reserved one, and a messages request cannot shrink its
// reservation with a field its upstream never reads.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFixture, call, type Fixture } from './fixture.ts';

let fx: Fixture;
before(async () => {
  fx = await startFixture();
});
after(async () => fx.close());

const HELLO = [{ role: 'user', content: 'Hello' }];

function lastUpstreamBody(): Record<string, unknown> {
  return fx.up.requests.at(-1)?.json as Record<string, unknown>;
}

test('chat without max_tokens from a key with a budget: the reserved default goes upstream, and the caller is told', async () => {
  const { key } = await fx.gw.createKey({ name: 'capped', flags: ['--budget-usd', '10'] });
  for (const stream of [false, true]) {
    const r = await call(fx, {
      path: '/v1/chat/completions',
      auth: key,
      body: { model: 'gpt-up', messages: HELLO, stream },
    });
    assert.equal(r.status, 200, r.text);
    const sent = lastUpstreamBody();
    assert.equal(sent.max_completion_tokens, 4096, 'default_max_tokens, the amount admission reserved');
    assert.equal(sent.max_tokens, undefined);
    assert.equal(sent.model, 'upstream-gpt');
    assert.deepEqual(sent.messages, HELLO);
    assert.match(r.headers.get('x-modelgate-adjusted') ?? '', /max_completion_tokens set to 4096/);
  }
  // The caller's bytes stay as they came, the added limit in front: a number past 2^53 keeps its digits.
  const raw =
    '{"model":"gpt-up","messages":[{"role":"user","content":"Hello"}],"seed":12345678901234567890,"x_extra":1.50}';
  const kept = await call(fx, { path: '/v1/chat/completions', auth: key, body: raw });
  assert.equal(kept.status, 200, kept.text);
  const sentText = fx.up.requests.at(-1)!.body.toString('utf8');
  assert.equal(
    sentText,
    '{"max_completion_tokens":4096,"model":"upstream-gpt","messages":[{"role":"user","content":"Hello"}],"seed":12345678901234567890,"x_extra":1.50}',
  );
  // A request that names its own limit passes as it is.
  const named = await call(fx, {
    path: '/v1/chat/completions',
    auth: key,
    body: { model: 'gpt-up', messages: HELLO, max_tokens: 7 },
  });
  assert.equal(named.status, 200);
  assert.equal(lastUpstreamBody().max_tokens, 7);
  assert.equal(lastUpstreamBody().max_completion_tokens, undefined);
  assert.equal(named.headers.get('x-modelgate-adjusted'), null);
  // A key without money or token limits leaves the request alone.
  const free = await call(fx, {
    path: '/v1/chat/completions',
    auth: fx.key,
    body: { model: 'gpt-up', messages: HELLO },
  });
  assert.equal(free.status, 200);
  assert.equal(lastUpstreamBody().max_completion_tokens, undefined);
});

test('messages: max_completion_tokens does not shrink the reservation of max_tokens, which is what the upstream reads', async () => {
  // claude-up costs $15 per million output tokens: 50,000 reserve $0.75, far past a $0.02 budget.
  const { key } = await fx.gw.createKey({ name: 'shrink', flags: ['--budget-usd', '0.02'] });
  const r = await call(fx, {
    path: '/v1/messages',
    auth: key,
    headers: { 'anthropic-version': '2023-06-01' },
    body: { model: 'claude-up', max_tokens: 50_000, max_completion_tokens: 1, messages: HELLO },
  });
  assert.equal(r.status, 403, r.text);
  assert.match(r.text, /quota restricted: USD budget/);
});

test('chat naming both limits reserves the larger: a server may read either', async () => {
  const { key } = await fx.gw.createKey({ name: 'both', flags: ['--budget-usd', '0.02'] });
  // gpt-up costs $2 per million output tokens: 50,000 reserve $0.10.
  const r = await call(fx, {
    path: '/v1/chat/completions',
    auth: key,
    body: { model: 'gpt-up', messages: HELLO, max_tokens: 50_000, max_completion_tokens: 1 },
  });
  assert.equal(r.status, 403, r.text);
});

test('a paid model without a price is named in a warning at start: USD budgets cannot limit it', async () => {
  const other = await startFixture({
    extraModels: '  - { name: free-up, deployments: [ { provider: up, model: x } ] }',
  });
  try {
    const line = other.gw
      .logs()
      .split('\n')
      .find((l) => l.includes('models without a price'));
    assert.ok(line, other.gw.logs().slice(-2000));
    assert.deepEqual(
      (JSON.parse(line) as { models: string[] }).models,
      ['free-up'],
      'mock models are free by nature and not named',
    );
  } finally {
    await other.close();
  }
});

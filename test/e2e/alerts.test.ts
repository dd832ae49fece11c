// Alert webhooks against the real gateway and a local receiver: a key's budget passing 80 % sends exactly
// one webhook (not again after a restart), a deployment's circuit opening sends one in each configured
// format, and GET /admin/alerts lists what was raised and how it was delivered.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFixture, call, type Fixture } from './fixture.ts';
import { startWebhookReceiver, type Received, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

const ADMIN = 'adm-alerts-0123456789abcdef';
let fx: Fixture;
let hook: WebhookReceiver;

before(async () => {
  hook = await startWebhookReceiver();
  fx = await startFixture({
    extraModels:
      '  - { name: flaky, price: { input: 1, output: 2 }, deployments: [ { provider: up, model: flaky-upstream } ], max_retries: 0 }',
    extraConfig: `admin_token: "${ADMIN}"
circuit_breaker: { failures: 2, cooldown_ms: 600000 }
alerts:
  webhooks:
    - { url: "${hook.url}/json", events: [budget_threshold, circuit_open] }
    - { url: "${hook.url}/slack", events: [circuit_open], format: slack }`,
  });
});
after(async () => {
  await fx?.close();
  await hook?.close();
});

const admin = (path: string, body?: unknown) => call(fx, { path, auth: ADMIN, body });
const chat = (key: string, model = 'gpt-up') =>
  call(fx, {
    path: '/v1/chat/completions',
    auth: key,
    body: { model, messages: [{ role: 'user', content: 'hello there' }] },
  });

const budgetCalls = (keyId: string): Received[] =>
  hook.received.filter(
    (r) => r.body.event === 'budget_threshold' && (r.body.data as { key_id: string }).key_id === keyId,
  );

test('a budget crossing 80 % sends exactly one webhook, and a restart does not send it again', async () => {
  // A reservation must fit in what is left of a budget, so the spend comes first and the budget after it:
  // one paid request, then a lifetime budget that spend is 85 % of. The next row written (a free model's
  // request) makes the check run.
  const make = async (name: string) => {
    const created = await admin('/admin/keys', { name });
    assert.equal(created.status, 201, created.text);
    const { key, id } = created.json as { key: string; id: string };
    const paid = await chat(key);
    assert.equal(paid.status, 200, paid.text);
    const cost = Number(paid.headers.get('x-modelgate-cost'));
    assert.ok(cost > 0);
    const patched = await call(fx, {
      path: `/admin/keys/${id}`,
      method: 'PATCH',
      auth: ADMIN,
      body: { budget_usd: cost / 0.85 },
    });
    assert.equal(patched.status, 200, patched.text);
    return { key, id };
  };
  const { key, id } = await make('alerted');
  assert.equal((await chat(key, 'gpt-mock')).status, 200);
  const first = await hook.waitFor((r) => budgetCalls(id).includes(r), 'the 80 % alert');
  assert.equal(first.path, '/json');
  const data = first.body.data as Record<string, unknown>;
  assert.equal(data.threshold_pct, 80, 'the highest threshold passed is told; 50 % passed with it is not sent');
  assert.equal(data.key_name, 'alerted');
  assert.ok(!JSON.stringify(first.body).includes(key), 'the key itself is never in an alert');
  assert.match(String(first.body.summary), /"alerted".*85% of its lifetime budget/);

  // A restart forgets what this process sent; the alert log in the database does not. The key is checked
  // again at 85 %; a second key crossing afterwards marks that the first one's check has run.
  await fx.gw.stop();
  await fx.gw.restart();
  assert.equal((await chat(key, 'gpt-mock')).status, 200);
  const other = await make('alerted-later');
  assert.equal((await chat(other.key, 'gpt-mock')).status, 200);
  await hook.waitFor((r) => budgetCalls(other.id).includes(r), 'the second key’s 80 % alert');
  assert.equal(budgetCalls(id).length, 1, 'the 80 % alert is sent once, across the restart');
  assert.equal(budgetCalls(other.id).length, 1);

  const listed = (await admin('/admin/alerts')).json as { data: Record<string, unknown>[] };
  const mine = listed.data.filter((a) => String(a.id).startsWith(`budget_threshold:key:${id}:`));
  assert.deepEqual(mine.map((a) => [String(a.id).split(':').pop(), a.status, a.attempts]).sort(), [
    ['50', 'superseded', 0],
    ['80', 'delivered', 1],
  ]);
});

test('a team budget crossing 80 % sends exactly one webhook, naming the team', async () => {
  const team = await admin('/admin/teams', { name: 'alerted-team' });
  assert.equal(team.status, 201, team.text);
  const teamId = (team.json as { id: string }).id;
  const created = await admin('/admin/keys', { name: 'team-member', team: 'alerted-team' });
  const { key } = created.json as { key: string };
  const paid = await chat(key);
  assert.equal(paid.status, 200, paid.text);
  const cost = Number(paid.headers.get('x-modelgate-cost'));
  const patched = await call(fx, {
    path: `/admin/teams/${teamId}`,
    method: 'PATCH',
    auth: ADMIN,
    body: { budget_usd: cost / 0.85 },
  });
  assert.equal(patched.status, 200, patched.text);
  const teamCalls = (): Received[] =>
    hook.received.filter(
      (r) => r.body.event === 'budget_threshold' && (r.body.data as { team_id?: string }).team_id === teamId,
    );
  assert.equal((await chat(key, 'gpt-mock')).status, 200);
  const told = await hook.waitFor((r) => teamCalls().includes(r), 'the team’s 80 % alert');
  const data = told.body.data as Record<string, unknown>;
  assert.deepEqual([data.scope, data.team_name, data.threshold_pct], ['team', 'alerted-team', 80]);
  assert.match(String(told.body.summary), /Team "alerted-team" has used 85% of its lifetime budget/);
  const listed = (await admin('/admin/alerts')).json as { data: Record<string, unknown>[] };
  const mine = listed.data.filter((a) => String(a.id).startsWith(`budget_threshold:team:${teamId}:`));
  assert.deepEqual(mine.map((a) => [String(a.id).split(':').pop(), a.status]).sort(), [
    ['50', 'superseded'],
    ['80', 'delivered'],
  ]);
  assert.equal(teamCalls().length, 1, 'sent once');
});

test('a circuit opening sends one webhook to each receiver, in its format', async () => {
  const { key } = (await admin('/admin/keys', { name: 'any-model' })).json as { key: string };
  // Two failures in a row open the circuit (circuit_breaker.failures: 2); the model has no retries.
  fx.up.enqueue({ kind: 'status', status: 500 }, { kind: 'status', status: 500 });
  for (let i = 0; i < 2; i++) assert.equal((await chat(key, 'flaky')).status, 502);
  const json = await hook.waitFor((r) => r.path === '/json' && r.body.event === 'circuit_open', 'circuit_open (json)');
  assert.deepEqual((json.body.data as { deployment: string }).deployment, 'flaky#0');
  const slack = await hook.waitFor((r) => r.path === '/slack', 'circuit_open (slack)');
  assert.match(String(slack.body.text), /Deployment flaky#0 is taken out of rotation/);
  assert.ok(Array.isArray(slack.body.blocks), 'a Slack incoming-webhook body');
  assert.equal(hook.received.filter((r) => r.path === '/json' && r.body.event === 'circuit_open').length, 1);
  assert.equal(hook.received.filter((r) => r.path === '/slack').length, 1);
  const listed = (await admin('/admin/alerts')).json as { data: { event: string; status: string }[] };
  const opened = listed.data.filter((a) => a.event === 'circuit_open');
  assert.equal(opened.length, 1);
  assert.equal(opened[0].status, 'delivered');
});

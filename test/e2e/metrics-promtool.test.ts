// Metrics, traces and logs that fit the tools: `promtool check metrics` (Prometheus's own linter) passes on
// a scrape after mixed traffic; spend and remaining budget per key are exposed; logs carry level names and
// ISO times; `access_log: true` writes one line per request with the key masked.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { startFixture, call, type Fixture } from './fixture.ts';

/** promtool: required in CI (.ci/run installs Debian's prometheus package), a skip elsewhere without it. */
const promtool = spawnSync('promtool', ['--version']).status === 0;

let fx: Fixture;
let budgeted: { key: string; id: string };
let scrape: string;

before(async () => {
  fx = await startFixture({ extraConfig: 'access_log: true' });
  budgeted = await fx.gw.createKey({ name: 'team-a', flags: ['--budget-usd', '10', '--budget-period', 'monthly'] });
  await fx.gw.createKey({ name: 'no-budget' });
  const chat = (auth: string, extra: Record<string, unknown> = {}) =>
    call(fx, {
      path: '/v1/chat/completions',
      auth,
      body: { model: 'gpt-up', messages: [{ role: 'user', content: 'hi' }], ...extra },
    });
  // Mixed traffic: plain, streamed, an upstream failure failed over, an invalid body, an unknown path, Anthropic's dialect.
  assert.equal((await chat(budgeted.key)).status, 200);
  assert.equal((await chat(budgeted.key, { stream: true })).status, 200);
  fx.up.enqueue({ kind: 'status', status: 500 });
  assert.equal((await chat(fx.key)).status, 200);
  assert.equal((await chat(fx.key, { messages: 'not a list' })).status, 400);
  assert.equal((await call(fx, { path: '/v1/nope' })).status, 404);
  assert.equal(
    (
      await call(fx, {
        path: '/v1/messages',
        headers: { 'anthropic-version': '2023-06-01' },
        body: { model: 'claude-up', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] },
      })
    ).status,
    200,
  );
  assert.equal((await chat('sk-wrong-key-000000000000')).status, 401);
  scrape = await (await fetch(`${fx.gw.url}/metrics`)).text();
});

after(async () => {
  await fx?.close();
});

test('promtool check metrics passes on a scrape after mixed traffic', {
  skip: !promtool && process.env.CI !== 'true' ? 'promtool is not installed (CI installs it)' : false,
}, async () => {
  const child = spawn('promtool', ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  child.stdin.end(scrape);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  assert.equal(code, 0, `promtool check metrics:\n${out}`);
  assert.equal(out.trim(), '', out);
});

test('spend and remaining budget per key with a USD budget, labelled by key id, name and team', () => {
  const line = (name: string): number => {
    const m = new RegExp(`^${name}\\{key_id="${budgeted.id}",key_name="team-a",team=""\\} (\\S+)$`, 'm').exec(scrape);
    assert.ok(
      m !== null,
      `${name} for team-a in:\n${scrape
        .split('\n')
        .filter((l) => l.includes('key_'))
        .join('\n')}`,
    );
    return Number(m[1]);
  };
  const spent = line('modelgate_key_spend_usd_total');
  const left = line('modelgate_key_budget_remaining_usd');
  assert.ok(spent > 0, `spent ${spent}`);
  assert.ok(Math.abs(spent + left - 10) < 1e-9, `spent ${spent} + left ${left} = the budget`);
  assert.match(scrape, /^# TYPE modelgate_key_spend_usd_total counter$/m);
  assert.match(scrape, /^# TYPE modelgate_key_budget_remaining_usd gauge$/m);
  // Keys without a USD budget are not series (the bound on cardinality).
  assert.doesNotMatch(scrape, /key_name="no-budget"/);
  assert.doesNotMatch(scrape, /key_name="e2e"/);
});

test('log lines carry level names and ISO times; access_log writes one line per request, key masked', () => {
  const lines = fx.gw
    .logs()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.ok(lines.length > 0);
  for (const l of lines) {
    assert.match(String(l.level), /^(trace|debug|info|warn|error|fatal)$/);
    assert.match(String(l.time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  }
  const access = lines.filter((l) => l.msg === 'request');
  assert.equal(access.length, 6, JSON.stringify(access.map((l) => [l.status, l.keyName])));
  const streamed = access.find((l) => l.stream === true && l.keyName === 'team-a')!;
  assert.equal(streamed.level, 'info');
  assert.equal(streamed.model, 'gpt-up');
  assert.equal(streamed.status, 200);
  // The key's first 4 and last 4 characters, as everywhere it is shown.
  assert.equal(streamed.maskedKey, `${budgeted.key.slice(0, 4)}…${budgeted.key.slice(-4)}`);
  assert.ok(!fx.gw.logs().includes(budgeted.key), 'the key itself is never logged');
  assert.ok(Number(streamed.outputTokens) > 0 && Number(streamed.costUsd) > 0 && Number(streamed.latencyMs) >= 0);
  assert.ok(access.some((l) => l.status === 401 && l.maskedKey === null));
});

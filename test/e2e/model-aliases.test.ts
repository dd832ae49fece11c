// Model aliases end to end: Claude Code with no --model against a gateway whose only Claude entry is an
// alias pattern (every name it sends by itself reaches the model), and the listing and the usage rows.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';
import { startGateway, configYaml, type GatewayProcess } from '../helpers/gateway-process.ts';
import { claudeOrSkip, runClaude } from '../helpers/claude-code.ts';

let up: MockUpstream;
let gw: GatewayProcess;
let key: string;
before(async () => {
  up = await startMockUpstream();
  gw = await startGateway({
    configYaml: configYaml({
      providers: `  - { name: upa, kind: anthropic, base_url: "${up.url}", api_key: "sk-upstream-secret-0123456789abcdefXYZ" }`,
      models: `  - { name: house-model, family: anthropic, aliases: ["claude-*", house-default], deployments: [ { provider: upa, model: claude-upstream-house } ] }
  - { name: gpt-mock, deployments: [ { provider: mock, model: gpt-mock } ] }`,
    }),
  });
  ({ key } = await gw.createKey({ name: 'aliases', flags: ['--models', 'house-model'] }));
});
after(async () => {
  await gw.cleanup();
  await up.close();
});

test('GET /v1/models: the key sees its model and its exact alias, not models it may not use', async () => {
  const res = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
  const ids = ((await res.json()) as { data: { id: string }[] }).data.map((m) => m.id);
  assert.deepEqual(ids, ['house-model', 'house-default']);
});

test('an alias pattern on /v1/messages: the reply names what the caller sent, the upstream the deployment', async () => {
  up.reset();
  const res = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: 'claude-opus-9-9', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] }),
  });
  assert.equal(res.status, 200, await res.clone().text());
  assert.equal(((await res.json()) as { model: string }).model, 'claude-opus-9-9');
  assert.equal((up.requests.at(-1)?.json as { model: string }).model, 'claude-upstream-house');
});

test('Claude Code with no --model: its default names reach the alias pattern', { timeout: 240_000 }, async (t) => {
  if (!(await claudeOrSkip(t))) return;
  const token = randomBytes(6).toString('hex');
  up.reset();
  up.configure({
    toolName: 'Bash',
    toolArguments: { command: `echo mg-$((6*7))-${token}`, description: 'Print the test token' },
    replyText: `All done ${token}.`,
  });
  const run = await runClaude({
    gateway: { url: gw.url, key },
    prompt: 'Run the shell command that prints the token, then tell me what it printed.',
    allowedTools: 'Bash',
  });
  const diagnosis = `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr.slice(0, 2000)}`;
  assert.equal(run.code, 0, diagnosis);
  assert.match(run.stdout, new RegExp(`All done ${token}`), diagnosis);
  const generations = up.requests.filter((r) => r.path === '/v1/messages');
  assert.ok(generations.length >= 2, diagnosis);
  assert.ok(generations.every((r) => (r.json as { model: string }).model === 'claude-upstream-house'));
});

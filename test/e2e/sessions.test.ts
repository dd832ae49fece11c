// Agent sessions through the real gateway: the session id on usage rows (Claude Code's header, Codex's
// header, or prompt_cache_key), GET /admin/usage?group_by=session (JSON and CSV), and session affinity —
// every request of one session reaches the same deployment of a model with several.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';
import { startGateway, configYaml, type GatewayProcess } from '../helpers/gateway-process.ts';

const ADMIN = 'adm-0123456789abcdef-sessions';
let up: MockUpstream;
let gw: GatewayProcess;
let key: string;
before(async () => {
  up = await startMockUpstream();
  const deployments = [1, 2, 3, 4].map((i) => `{ provider: up, model: gpt-up-${i} }`).join(', ');
  gw = await startGateway({
    configYaml: configYaml({
      providers: `  - { name: up, kind: openai, base_url: "${up.url}/v1", api_key: "sk-upstream-secret-0123456789abcdefXYZ" }`,
      models: `  - { name: gpt-pool, deployments: [ ${deployments} ] }
  - { name: claude-on-chat, deployments: [ { provider: up, model: chat-claude } ] }
  - { name: gpt-no-cache-key, deployments: [ { provider: up, model: plain, refused_params: [prompt_cache_key] } ] }`,
      extra: `admin_token: "${ADMIN}"`,
    }),
  });
  ({ key } = await gw.createKey({ name: 'sessions' }));
});
after(async () => {
  await gw.cleanup();
  await up.close();
});

async function chat(headers: Record<string, string>, extra: object = {}): Promise<string> {
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: 'gpt-pool', messages: [{ role: 'user', content: 'hi' }], ...extra }),
  });
  assert.equal(res.status, 200, await res.text());
  await res.arrayBuffer().catch(() => undefined);
  return (up.requests.at(-1)?.json as { model: string }).model;
}

test('one session, one deployment; sessions spread over the deployments', async () => {
  up.reset();
  for (const session of ['cc-a', 'cc-b', 'cc-c']) {
    const seen = new Set<string>();
    for (let i = 0; i < 6; i++) seen.add(await chat({ 'x-claude-code-session-id': session }));
    assert.equal(seen.size, 1, `${session} went to ${[...seen].join(', ')}`);
  }
  const spread = new Set<string>();
  for (let i = 0; i < 24; i++) spread.add(await chat({ session_id: `codex-${i}` }));
  assert.ok(spread.size >= 3, `24 sessions reached ${spread.size} deployments`);
});

test('GET /admin/usage?group_by=session: groups keyed session_id, from each kind of session name; CSV too', async () => {
  await chat({ 'x-claude-code-session-id': 'report-cc' });
  await chat({ 'x-claude-code-session-id': 'report-cc' });
  await chat({ session_id: 'report-codex' });
  await chat({}, { prompt_cache_key: 'report-pck' });
  const res = await fetch(`${gw.url}/admin/usage?group_by=session`, { headers: { authorization: `Bearer ${ADMIN}` } });
  assert.equal(res.status, 200);
  const body = (await res.json()) as { group_by: string[]; groups: { session_id: string | null; requests: number }[] };
  assert.deepEqual(body.group_by, ['session']);
  const by = new Map(body.groups.map((g) => [g.session_id, g.requests]));
  assert.equal(by.get('report-cc'), 2);
  assert.equal(by.get('report-codex'), 1);
  assert.equal(by.get('report-pck'), 1);
  const csv = await fetch(`${gw.url}/admin/usage?group_by=session&format=csv`, {
    headers: { authorization: `Bearer ${ADMIN}` },
  });
  const text = await csv.text();
  assert.equal(text.split('\r\n')[0].split(',')[0], 'session_id');
  assert.match(text, /\r\nreport-cc,2,0,/);
  const latest = await fetch(`${gw.url}/admin/requests?limit=1`, { headers: { authorization: `Bearer ${ADMIN}` } });
  const page = (await latest.json()) as { data: { session_id: string | null }[] };
  assert.equal(page.data[0].session_id, 'report-pck', 'the latest request names its session');
});

test("translated to an OpenAI-style upstream: the session becomes prompt_cache_key; a caller's own is kept", async () => {
  up.reset();
  const messages = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'anthropic-version': '2023-06-01',
      'x-claude-code-session-id': 'cc-cache-1',
    },
    body: JSON.stringify({ model: 'claude-on-chat', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] }),
  });
  assert.equal(messages.status, 200, await messages.clone().text());
  assert.equal((up.requests.at(-1)?.json as { prompt_cache_key?: string }).prompt_cache_key, 'cc-cache-1');

  const responses = await fetch(`${gw.url}/v1/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', session_id: 'codex-s' },
    body: JSON.stringify({ model: 'gpt-pool', input: 'hi', prompt_cache_key: 'caller-key' }),
  });
  assert.equal(responses.status, 200);
  assert.equal((up.requests.at(-1)?.json as { prompt_cache_key?: string }).prompt_cache_key, 'caller-key');
  assert.doesNotMatch(responses.headers.get('x-modelgate-adjusted') ?? '', /prompt_cache_key/);

  const refused = await fetch(`${gw.url}/v1/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', session_id: 'codex-s' },
    body: JSON.stringify({ model: 'gpt-no-cache-key', input: 'hi' }),
  });
  assert.equal(refused.status, 200);
  assert.equal((up.requests.at(-1)?.json as { prompt_cache_key?: string }).prompt_cache_key, undefined);
});

test('pass-through bytes are not changed: a chat caller without prompt_cache_key sends none', async () => {
  up.reset();
  await chat({ session_id: 'codex-pass' });
  assert.equal((up.requests.at(-1)?.json as { prompt_cache_key?: string }).prompt_cache_key, undefined);
});

// The admin API (/admin/) against the real gateway: only the admin token opens it, a key it makes works at
// once, the reports show what a request cost, and without admin_token every /admin/ path is 404.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFixture, call, UPSTREAM_SECRET, type Fixture } from './fixture.ts';
import { waitUntil } from '../helpers/gateway-process.ts';
import { startGateway, configYaml } from '../helpers/gateway-process.ts';
import { validateOpenAIError } from '../helpers/schemas.ts';
import { request as httpRequest } from 'node:http';

const ADMIN = 'adm-0123456789abcdef-token';
let fx: Fixture;

before(async () => {
  fx = await startFixture({ extraConfig: 'admin_token: "${ADMIN_TOKEN}"', env: { ADMIN_TOKEN: ADMIN } });
});
after(async () => {
  await fx?.close();
});

const admin = (path: string, opts: { method?: string; body?: unknown } = {}) =>
  call(fx, { path, auth: ADMIN, ...opts });

interface KeyView {
  id: string;
  name: string;
  key?: string;
  masked: string;
  status: string;
  models: string[] | null;
  rpm: number | null;
  budget_usd: number | null;
  spent_usd: number;
  budget_left_usd: number | null;
  tokens_used: number;
}

function chat(key: string, model = 'gpt-up') {
  return call(fx, {
    path: '/v1/chat/completions',
    auth: key,
    body: { model, messages: [{ role: 'user', content: 'hello there' }] },
  });
}

test('a wrong or missing admin token, or an API key, is 401 in the OpenAI shape; the admin token is no API key', async () => {
  for (const auth of [null, 'wrong-token-0123456789', fx.key, `${ADMIN}x`]) {
    for (const path of ['/admin/keys', '/admin/usage', '/admin/openapi.json', '/admin/nothing-here']) {
      const r = await call(fx, { path, auth });
      assert.equal(r.status, 401, `${path} with ${auth === null ? 'nothing' : 'a wrong credential'}`);
      assert.equal(r.headers.get('www-authenticate'), 'Bearer');
      validateOpenAIError(r.json);
      assert.match((r.json as { error: { message: string } }).error.message, /admin_token/);
      if (auth !== null) assert.ok(!r.text.includes(auth), 'the refusal does not echo the credential');
    }
  }
  assert.equal(
    (await call(fx, { path: '/v1/models', auth: ADMIN })).status,
    401,
    'the admin token does not open the model API',
  );
  assert.equal((await admin('/admin/nothing-here')).status, 404);
  const wrongMethod = await admin('/admin/usage', { method: 'DELETE' });
  assert.equal(wrongMethod.status, 405);
  assert.equal(wrongMethod.headers.get('allow'), 'GET');
});

test('POST /admin/keys returns a key a request made at once accepts; the key is shown this once', async () => {
  const created = await admin('/admin/keys', {
    body: { name: 'api-made', models: ['gpt-up'], rpm: 100, budget_usd: 5, budget_period: 'monthly' },
  });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.headers.get('cache-control'), 'no-store');
  const k = created.json as KeyView;
  assert.match(k.key ?? '', /^sk-[0-9A-Za-z]{48}$/);
  assert.equal(k.masked, `${k.key!.slice(0, 4)}…${k.key!.slice(-4)}`);
  assert.deepEqual(
    [k.name, k.status, k.models, k.rpm, k.budget_usd, k.spent_usd],
    ['api-made', 'active', ['gpt-up'], 100, 5, 0],
  );
  // No wait: the very next request to this replica.
  const r = await chat(k.key!);
  assert.equal(r.status, 200, r.text);
  assert.equal((await chat(k.key!, 'claude-up')).status, 403, 'its model list holds');
  const listed = await admin('/admin/keys');
  assert.equal(listed.status, 200);
  const views = (listed.json as { data: KeyView[] }).data;
  const mine = views.find((v) => v.id === k.id);
  assert.ok(mine);
  assert.equal(mine.key, undefined, 'listings never show the key');
  assert.ok(!listed.text.includes(k.key!));
  assert.ok(!listed.text.includes('"hash"'));
  const again = await admin('/admin/keys', { body: { name: 'api-made' } });
  assert.equal(again.status, 409);
  assert.equal((again.json as { error: { code: string } }).error.code, 'conflict');
});

test('GET /admin/usage?group_by=model shows that request’s tokens and cost; CSV too; the key shows its spend', async () => {
  const created = (await admin('/admin/keys', { body: { name: 'report-me' } })).json as KeyView;
  const r = await chat(created.key!);
  assert.equal(r.status, 200);
  const usage = (r.json as { usage: { prompt_tokens: number; completion_tokens: number } }).usage;
  // gpt-up costs $1 / M input and $2 / M output tokens.
  const cost = (usage.prompt_tokens * 1 + usage.completion_tokens * 2) / 1e6;
  const report = await admin(`/admin/usage?group_by=model&key=report-me`);
  assert.equal(report.status, 200, report.text);
  const body = report.json as {
    group_by: string[];
    totals: Record<string, number>;
    groups: Record<string, number | string>[];
  };
  assert.deepEqual(body.group_by, ['model']);
  assert.equal(body.groups.length, 1);
  const g = body.groups[0];
  assert.equal(g.model, 'gpt-up');
  assert.equal(g.requests, 1);
  assert.equal(g.input_tokens, usage.prompt_tokens);
  assert.equal(g.output_tokens, usage.completion_tokens);
  assert.ok(Math.abs(Number(g.cost_usd) - cost) < 1e-9, `cost ${g.cost_usd} vs ${cost}`);
  assert.equal(typeof g.latency_p50_ms, 'number');
  assert.equal(body.totals.requests, 1);

  const byDayKey = (await admin('/admin/usage?group_by=day,key')).json as { groups: Record<string, unknown>[] };
  const row = byDayKey.groups.find((x) => x.key_id === created.id);
  assert.ok(row);
  assert.equal(row.key_name, 'report-me');
  assert.match(String(row.day), /^\d{4}-\d{2}-\d{2}$/);

  const csv = await admin('/admin/usage?group_by=model&key=report-me&format=csv');
  assert.equal(csv.status, 200);
  assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
  const [header, line, end] = csv.text.split('\r\n');
  assert.deepEqual(header.split(',').slice(0, 3), ['model', 'requests', 'errors']);
  assert.match(line, /^gpt-up,1,0,/);
  assert.equal(end, '');

  const shown = (await admin(`/admin/keys/${created.id}`)).json as KeyView;
  assert.ok(Math.abs(shown.spent_usd - cost) < 1e-9);
  assert.equal(shown.tokens_used, usage.prompt_tokens + usage.completion_tokens);

  for (const bad of [
    'group_by=week',
    'group_by=model,model',
    'format=xml',
    'from=yesterday',
    'from=2026-01-02&to=2026-01-01',
  ]) {
    const refused = await admin(`/admin/usage?${bad}`);
    assert.equal(refused.status, 400, bad);
    validateOpenAIError(refused.json);
  }
  assert.equal((await admin('/admin/usage?key=nobody-at-all')).status, 404);
});

test('GET /admin/requests: newest first, masked keys, filters and pages that follow the cursor', async () => {
  const k = (await admin('/admin/keys', { body: { name: 'pager' } })).json as KeyView;
  for (let i = 0; i < 3; i++) assert.equal((await chat(k.key!)).status, 200);
  assert.equal((await chat(k.key!, 'claude-up')).status, 200);
  const first = await admin('/admin/requests?key=pager&limit=3');
  assert.equal(first.status, 200);
  const page1 = first.json as { data: Record<string, unknown>[]; next_cursor: number | null };
  assert.equal(page1.data.length, 3);
  assert.equal(page1.data[0].model, 'claude-up', 'newest first');
  assert.equal(page1.data[0].key_masked, k.masked);
  assert.ok(!first.text.includes(k.key!), 'never the whole key');
  for (const field of [
    'time',
    'deployment',
    'status',
    'input_tokens',
    'output_tokens',
    'cost_usd',
    'latency_ms',
    'ttfb_ms',
    'error_code',
    'routing',
  ])
    assert.ok(field in page1.data[0], field);
  assert.equal(page1.data[0].routing, null, 'routed the usual way');
  assert.equal(page1.data[0].deployment, 'claude-up#0');
  assert.equal(typeof page1.next_cursor, 'number');
  const page2 = (await admin(`/admin/requests?key=pager&limit=3&before=${page1.next_cursor}`)).json as typeof page1;
  assert.equal(page2.data.length, 1);
  assert.equal(page2.next_cursor, null);
  const ids = [...page1.data, ...page2.data].map((r) => r.id as number);
  assert.deepEqual(
    ids,
    [...ids].sort((a, b) => b - a),
  );
  const onlyClaude = (await admin('/admin/requests?key=pager&model=claude-up')).json as typeof page1;
  assert.equal(onlyClaude.data.length, 1);
  assert.equal((await admin('/admin/requests?limit=0')).status, 400);
  assert.equal((await admin('/admin/requests?limit=501')).status, 400);
});

test('PATCH, disable, enable and DELETE act at once, by id or by name', async () => {
  const k = (await admin('/admin/keys', { body: { name: 'changing' } })).json as KeyView;
  const patched = await admin('/admin/keys/changing', {
    method: 'PATCH',
    body: { rpm: 7, models: ['gpt-mock'], name: 'changed' },
  });
  assert.equal(patched.status, 200, patched.text);
  assert.deepEqual(
    [(patched.json as KeyView).rpm, (patched.json as KeyView).name, (patched.json as KeyView).models],
    [7, 'changed', ['gpt-mock']],
  );
  assert.equal((await chat(k.key!)).status, 403, 'the new model list holds for the next request');
  assert.equal((await admin(`/admin/keys/${k.id}`, { method: 'PATCH', body: { rpm: -1 } })).status, 400);
  const unknown = await admin(`/admin/keys/${k.id}`, { method: 'PATCH', body: { colour: 'red' } });
  assert.equal(unknown.status, 400);
  validateOpenAIError(unknown.json);
  assert.equal((await admin(`/admin/keys/${k.id}`, { method: 'PATCH', body: '{not json' })).status, 400);
  assert.equal((await admin(`/admin/keys/${k.id}`, { method: 'PATCH', body: { models: null } })).status, 200);
  assert.equal((await admin(`/admin/keys/${k.id}/disable`, { method: 'POST' })).status, 200);
  const refused = await chat(k.key!);
  assert.equal(refused.status, 401);
  assert.equal((refused.json as { error: { code: string } }).error.code, 'key_disabled');
  assert.equal(((await admin(`/admin/keys/${k.id}/enable`, { method: 'POST' })).json as KeyView).status, 'active');
  assert.equal((await chat(k.key!)).status, 200);
  const deleted = await admin('/admin/keys/changed', { method: 'DELETE' });
  assert.deepEqual(deleted.json, { id: k.id, deleted: true });
  assert.equal((await chat(k.key!)).status, 401);
  assert.equal((await admin(`/admin/keys/${k.id}`)).status, 404);
  assert.equal((await admin(`/admin/keys/${k.id}`, { method: 'DELETE' })).status, 404);
});

test('GET /admin/deployments: every deployment with its circuit state; GET /admin/openapi.json names every route', async () => {
  const r = await admin('/admin/deployments');
  assert.equal(r.status, 200);
  const data = (r.json as { data: Record<string, unknown>[] }).data;
  const up = data.find((d) => d.id === 'gpt-up#0');
  assert.ok(up);
  assert.deepEqual(
    [up.model, up.provider, up.state, up.cooldown_left_ms, up.locked_out_credentials, up.credentials],
    ['gpt-up', 'up', 'closed', 0, [], 1],
  );
  assert.ok(!r.text.includes('sk-upstream-secret'), 'provider keys never appear');
  const doc = (await admin('/admin/openapi.json')).json as {
    openapi: string;
    paths: Record<string, Record<string, unknown>>;
  };
  assert.equal(doc.openapi, '3.1.0');
  const routes: [string, string][] = [
    ['/admin/keys', 'get'],
    ['/admin/keys', 'post'],
    ['/admin/keys/{id}', 'get'],
    ['/admin/keys/{id}', 'patch'],
    ['/admin/keys/{id}', 'delete'],
    ['/admin/keys/{id}/disable', 'post'],
    ['/admin/keys/{id}/enable', 'post'],
    ['/admin/usage', 'get'],
    ['/admin/requests', 'get'],
    ['/admin/deployments', 'get'],
    ['/admin/deployments/{id}/reset', 'post'],
    ['/admin/openapi.json', 'get'],
    ['/admin/providers', 'get'],
    ['/admin/providers', 'post'],
    ['/admin/providers/{name}', 'get'],
    ['/admin/providers/{name}', 'patch'],
    ['/admin/providers/{name}', 'delete'],
    ['/admin/models', 'get'],
    ['/admin/models', 'post'],
    ['/admin/models/{name}', 'get'],
    ['/admin/models/{name}', 'patch'],
    ['/admin/models/{name}', 'delete'],
  ];
  for (const [path, method] of routes) assert.ok(doc.paths[path]?.[method], `${method} ${path}`);
});

test('a refused upstream key shows masked among the deployment’s locked-out credentials, with the last error', async () => {
  fx.up.enqueue({ kind: 'status', status: 401 });
  const r = await chat(fx.key);
  assert.notEqual(r.status, 200);
  const up = ((await admin('/admin/deployments')).json as { data: Record<string, unknown>[] }).data.find(
    (d) => d.id === 'gpt-up#0',
  );
  assert.ok(up);
  assert.deepEqual(up.locked_out_credentials, [`${UPSTREAM_SECRET.slice(0, 4)}…${UPSTREAM_SECRET.slice(-4)}`]);
  assert.ok(!JSON.stringify(up).includes(UPSTREAM_SECRET));
  assert.equal(up.state, 'credentials');
  assert.match(String((up.last_error as { reason: string }).reason), /credentials/);
  assert.equal((await chat(fx.key)).status, 503, 'out until the operator resets it');
  const reset = await admin(`/admin/deployments/${encodeURIComponent('gpt-up#0')}/reset`, { method: 'POST' });
  assert.equal(reset.status, 200, reset.text);
  const after = (reset.json as { data: Record<string, unknown>[] }).data.find((d) => d.id === 'gpt-up#0');
  assert.deepEqual([after?.state, after?.locked_out_credentials], ['closed', []]);
  assert.equal((await chat(fx.key)).status, 200, 'served again at once');
  assert.equal((await admin('/admin/deployments/nope%230/reset', { method: 'POST' })).status, 404);
});

test('without admin_token every /admin/ path and the dashboard are 404', async () => {
  const gw = await startGateway({
    configYaml: configYaml({ models: '  - { name: m, deployments: [ { provider: mock, model: m } ] }' }),
    env: { MODELGATE_ADMIN_TOKEN: '' },
  });
  try {
    for (const path of ['/admin/keys', '/admin/openapi.json', '/admin/', '/ui/', '/ui']) {
      const r = await fetch(gw.url + path, { headers: { authorization: `Bearer ${ADMIN}` } });
      await r.arrayBuffer();
      assert.equal(r.status, 404, path);
    }
  } finally {
    await gw.cleanup();
  }
});

/** An admin call from another loopback address (127.0.0.x), so the sign-in count of one address is its own. */
function adminFrom(
  localAddress: string,
  auth: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolveP, reject) => {
    const req = httpRequest(
      `${fx.gw.url}/admin/keys`,
      { localAddress, headers: { authorization: `Bearer ${auth}` } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolveP({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

test('30 refused admin tokens from one address hold that address back with a 429, the right token too; other addresses sign in', async () => {
  for (let i = 0; i < 30; i++) assert.equal((await adminFrom('127.0.0.7', `guess-${i}-0123456789abcdef`)).status, 401);
  for (const auth of ['guess-next-0123456789abcdef', ADMIN]) {
    const held = await adminFrom('127.0.0.7', auth);
    assert.equal(held.status, 429);
    const retryAfter = Number(held.headers['retry-after']);
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `retry-after ${held.headers['retry-after']}`);
    const error = (JSON.parse(held.body) as { error: { code: string } }).error;
    validateOpenAIError({ error });
    assert.equal(error.code, 'admin_sign_in_limited');
  }
  assert.equal((await adminFrom('127.0.0.8', ADMIN)).status, 200, 'another address is not held back');
});

test('a key belongs to a team by name: set on create, changed and cleared by PATCH, kept in the store', async () => {
  const created = await admin('/admin/keys', { body: { name: 'team-member', team: 'platform' } });
  assert.equal(created.status, 201, created.text);
  const id = (created.json as KeyView & { team: string | null }).id;
  assert.equal((created.json as { team: string | null }).team, 'platform');
  assert.equal(((await admin(`/admin/keys/${id}`)).json as { team: string | null }).team, 'platform');
  const moved = await admin(`/admin/keys/${id}`, { method: 'PATCH', body: { team: 'research' } });
  assert.equal((moved.json as { team: string | null }).team, 'research');
  const cleared = await admin(`/admin/keys/${id}`, { method: 'PATCH', body: { team: null } });
  assert.equal((cleared.json as { team: string | null }).team, null);
});

test('usage and requests filter by team: only the rows of that team’s keys', async () => {
  const mine = await admin('/admin/keys', { body: { name: 'team-a-key', team: 'team-a' } });
  const theirs = await admin('/admin/keys', { body: { name: 'team-b-key', team: 'team-b' } });
  const a = (mine.json as { key: string }).key;
  const b = (theirs.json as { key: string }).key;
  for (const key of [a, a, b]) assert.equal((await chat(key)).status, 200);
  let requests = 0;
  await waitUntil(async () => {
    const r = await admin('/admin/usage?team=team-a');
    requests = (r.json as { totals: { requests: number } }).totals.requests;
    return requests === 2;
  }, 'the team-a rows');
  assert.equal(requests, 2);
  const page = await admin('/admin/requests?team=team-b');
  const rows = (page.json as { data: { key_name: string }[] }).data;
  assert.deepEqual([...new Set(rows.map((r) => r.key_name))], ['team-b-key']);
});

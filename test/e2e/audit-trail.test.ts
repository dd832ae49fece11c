// The audit trail and key rotation against the real gateway: every change to a key through the admin API
// and through the CLI is an entry naming who made it, from where, and the key before and after (masked);
// a rotated key's old secret works for its grace period only; a deleted key's usage still shows its name.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { userInfo } from 'node:os';
import { startFixture, call, type Fixture } from './fixture.ts';

const ADMIN = 'adm-0123456789abcdef-audit';
let fx: Fixture;

before(async () => {
  fx = await startFixture({
    extraConfig: 'admin_token: "${ADMIN_TOKEN}"',
    env: { ADMIN_TOKEN: ADMIN, MODELGATE_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') },
  });
});
after(async () => {
  await fx?.close();
});

const admin = (path: string, opts: { method?: string; body?: unknown } = {}) =>
  call(fx, { path, auth: ADMIN, ...opts });

const chat = (key: string) =>
  call(fx, {
    path: '/v1/chat/completions',
    auth: key,
    body: { model: 'gpt-up', messages: [{ role: 'user', content: 'hello there' }] },
  });

interface Entry {
  at: string;
  actor: { kind: string; name: string };
  source: string | null;
  action: string;
  target: { kind: string; id: string; name: string | null };
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

async function entriesFor(target: string): Promise<Entry[]> {
  const r = await admin(`/admin/audit?target=${encodeURIComponent(target)}`);
  assert.equal(r.status, 200, r.text);
  return (r.json as { data: Entry[] }).data.reverse();
}

test('create, edit, rotate and delete through the API: an entry each, by the admin token, secrets masked', async () => {
  const created = await admin('/admin/keys', { body: { name: 'svc-api', rpm: 100 } });
  assert.equal(created.status, 201, created.text);
  const k = created.json as { id: string; key: string; masked: string };
  assert.equal((await chat(k.key)).status, 200);
  assert.equal((await admin(`/admin/keys/${k.id}`, { method: 'PATCH', body: { rpm: 50 } })).status, 200);

  // A rotation with a grace period: the new secret works, and so does the old one for now.
  const rotated = await admin(`/admin/keys/${k.id}/rotate`, { body: { grace_seconds: 3600 } });
  assert.equal(rotated.status, 200, rotated.text);
  const r = rotated.json as { id: string; key: string; masked: string; previous_valid_until: string };
  assert.equal(r.id, k.id, 'the same key: its budgets and usage stay');
  assert.notEqual(r.key, k.key);
  assert.ok(Date.parse(r.previous_valid_until) > Date.now() + 3500_000);
  assert.equal((await chat(r.key)).status, 200, 'the new secret works at once');
  assert.equal((await chat(k.key)).status, 200, 'the old secret works inside its grace period');
  // Without a grace period the secret before is refused at once.
  const again = (await admin(`/admin/keys/${k.id}/rotate`, { method: 'POST' })).json as {
    key: string;
    previous_valid_until: string | null;
  };
  assert.equal(again.previous_valid_until, null);
  assert.equal((await chat(r.key)).status, 401, 'rotated without grace: the secret before no longer works');
  assert.equal((await chat(k.key)).status, 401, 'the first secret is long gone');
  assert.equal((await chat(again.key)).status, 200);
  const badGrace = await admin(`/admin/keys/${k.id}/rotate`, { body: { grace_seconds: -1 } });
  assert.equal(badGrace.status, 400);
  assert.match(badGrace.text, /grace_seconds/);

  assert.equal((await admin(`/admin/keys/${k.id}`, { method: 'DELETE' })).status, 200);

  const entries = await entriesFor(k.id);
  assert.deepEqual(
    entries.map((e) => e.action),
    ['key.create', 'key.update', 'key.rotate', 'key.rotate', 'key.delete'],
  );
  for (const e of entries) {
    assert.deepEqual(e.actor, { kind: 'token', name: 'admin_token' });
    assert.match(e.source ?? '', /127\.0\.0\.1/);
    assert.equal(e.target.name, 'svc-api');
    const text = JSON.stringify(e);
    for (const secret of [k.key, r.key, again.key]) assert.ok(!text.includes(secret), 'no secret in the trail');
    assert.ok(!text.includes('hash'), 'no digest in the trail');
  }
  assert.equal(entries[0].before, null);
  assert.equal(entries[1].before?.rpm, 100);
  assert.equal(entries[1].after?.rpm, 50);
  assert.equal(entries[2].before?.masked, k.masked);
  assert.equal(entries[2].after?.masked, r.masked);
  assert.equal(entries[4].after, null);

  // The deleted key's rows keep its name, in the report and the request log, and a filter by its name works.
  const report = await admin('/admin/usage?group_by=key');
  const rows = (report.json as { groups: { key_id: string; key_name: string | null; requests: number }[] }).groups;
  const mine = rows.find((g) => g.key_id === k.id);
  assert.equal(mine?.key_name, 'svc-api');
  assert.equal(mine?.requests, 4);
  const requests = await admin('/admin/requests?key=svc-api');
  assert.equal(requests.status, 200, requests.text);
  const data = (requests.json as { data: { key_name: string | null }[] }).data;
  assert.equal(data.length, 4);
  assert.ok(data.every((row) => row.key_name === 'svc-api'));
  // The trail outlives the key: filtered by its name it is all still there.
  assert.equal((await entriesFor('svc-api')).length, 5);
});

test('create, edit, rotate and delete through the CLI: entries by the OS user, from no address', async () => {
  const made = JSON.parse(await fx.gw.cli(['keys', 'create', '--name', 'svc-cli', '--json'])) as { id: string };
  await fx.gw.cli(['keys', 'update', 'svc-cli', '--rpm', '7']);
  const rotated = JSON.parse(await fx.gw.cli(['keys', 'rotate', made.id, '--grace-seconds', '60', '--json'])) as {
    key: string;
    previous_valid_until: string;
  };
  assert.match(rotated.key, /^sk-/);
  assert.ok(Date.parse(rotated.previous_valid_until) > Date.now());
  await fx.gw.cli(['keys', 'delete', made.id]);
  const entries = await entriesFor(made.id);
  assert.deepEqual(
    entries.map((e) => e.action),
    ['key.create', 'key.update', 'key.rotate', 'key.delete'],
  );
  for (const e of entries) {
    assert.deepEqual(e.actor, { kind: 'cli', name: userInfo().username });
    assert.equal(e.source, null);
  }
  assert.equal(entries[1].after?.rpm, 7);
});

test('GET /admin/audit filters by actor and action, exports CSV, and names a filter it does not know', async () => {
  await admin('/admin/keys', { body: { name: 'svc-filter' } });
  const deletes = await admin('/admin/audit?action=key.create&actor=admin_token');
  const data = (deletes.json as { data: Entry[] }).data;
  assert.ok(data.length >= 1);
  assert.ok(data.every((e) => e.action === 'key.create' && e.actor.name === 'admin_token'));
  const none = await admin('/admin/audit?actor=nobody');
  assert.deepEqual((none.json as { data: Entry[] }).data, []);
  const future = await admin(`/admin/audit?from=${Date.now() + 3_600_000}`);
  assert.deepEqual((future.json as { data: Entry[] }).data, []);

  const csv = await admin('/admin/audit?format=csv&target=svc-filter');
  assert.equal(csv.status, 200);
  assert.match(csv.headers.get('content-type') ?? '', /text\/csv/);
  const lines = csv.text.trim().split('\n');
  assert.equal(lines[0], 'at,actor_kind,actor,source,action,target_kind,target_id,target_name,before,after');
  assert.equal(lines.length, 2);
  assert.match(lines[1], /,token,admin_token,.*,key\.create,key,.*,svc-filter,/);

  const unknown = await admin('/admin/audit?status=403');
  assert.equal(unknown.status, 400);
  assert.match(unknown.text, /unknown filter \\"status\\"/);
  const badTime = await admin('/admin/audit?from=yesterday');
  assert.equal(badTime.status, 400);
  assert.match(badTime.text, /from must be/);
  // The trail is an administrator's: an API key does not open it.
  assert.equal((await call(fx, { path: '/admin/audit' })).status, 401);
});

test('the request log filters by status code or class, request id and substring; an unknown filter is a 400', async () => {
  const k = (await admin('/admin/keys', { body: { name: 'svc-Log-Filter' } })).json as { id: string; key: string };
  const ok = await chat(k.key);
  assert.equal(ok.status, 200);
  await chat(k.key);
  fx.up.enqueue({ kind: 'status', status: 400 });
  const failed = await chat(k.key);
  assert.equal(failed.status, 400);
  const rows = async (query: string) => {
    const r = await admin(`/admin/requests?key=${k.id}&${query}`);
    assert.equal(r.status, 200, r.text);
    return (r.json as { data: { request_id: string; status: number }[] }).data;
  };
  assert.deepEqual(
    (await rows('status=4xx')).map((r) => r.status),
    [400],
  );
  assert.equal((await rows('status=400')).length, 1);
  assert.equal((await rows('status=2xx')).length, 2);
  assert.equal((await rows('status=5xx')).length, 0);
  const id = ok.headers.get('x-request-id') ?? '';
  assert.deepEqual(
    (await rows(`request_id=${encodeURIComponent(id)}`)).map((r) => r.request_id),
    [id],
  );
  assert.equal((await rows('q=LOG-filt')).length, 3, 'a substring of the key name, any case');
  assert.equal((await rows(`q=${encodeURIComponent(id.slice(-8))}`)).length, 1, 'a piece of the request id');
  assert.equal((await rows('q=%25')).length, 0, 'a % is a character, not a wildcard');
  for (const [query, named] of [
    ['foo=1', /unknown filter \\"foo\\"/],
    ['status=abc', /status must be/],
    ['status=4x', /status must be/],
  ] as const) {
    const r = await admin(`/admin/requests?${query}`);
    assert.equal(r.status, 400, query);
    assert.match(r.text, named);
  }
});

test('providers and models changed through the API and the CLI are in the trail, credentials masked', async () => {
  const secret = 'sk-live-provider-secret-0123456789';
  const made = await admin('/admin/providers', {
    body: { name: 'up-audit', kind: 'openai', base_url: `${fx.up.url}/v1`, api_key: secret },
  });
  assert.equal(made.status, 201, made.text);
  const model = { name: 'gpt-audit', deployments: [{ provider: 'up-audit', model: 'upstream-gpt' }] };
  assert.equal((await admin('/admin/models', { body: model })).status, 201);
  const patched = await admin('/admin/models/gpt-audit', { method: 'PATCH', body: { max_retries: 1 } });
  assert.equal(patched.status, 200, patched.text);
  assert.equal((await admin('/admin/models/gpt-audit', { method: 'DELETE' })).status, 200);
  await fx.gw.cli(['models', 'add', '{ name: gpt-audit-cli, deployments: [ { provider: up-audit, model: x } ] }']);
  await fx.gw.cli(['models', 'remove', 'gpt-audit-cli']);

  const provider = await entriesFor('up-audit');
  assert.deepEqual(
    provider.map((e) => [e.action, e.actor.kind]),
    [['provider.create', 'token']],
  );
  assert.ok(!JSON.stringify(provider).includes(secret), 'the credential is never in the trail');
  assert.equal(provider[0].after?.api_key, `${secret.slice(0, 4)}…${secret.slice(-4)}`);
  const models = await entriesFor('gpt-audit');
  assert.deepEqual(
    models.map((e) => e.action),
    ['model.create', 'model.update', 'model.delete'],
  );
  assert.equal(models[1].before?.max_retries, undefined);
  assert.equal(models[1].after?.max_retries, 1);
  assert.deepEqual(
    (await entriesFor('gpt-audit-cli')).map((e) => [e.action, e.actor.kind, e.source]),
    [
      ['model.create', 'cli', null],
      ['model.delete', 'cli', null],
    ],
  );
});

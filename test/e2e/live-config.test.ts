// Providers and models changed while running: added through the admin API on one of two replicas that share
// PostgreSQL and served by both within 5 s, no restart; a YAML change and SIGHUP do the same; an invalid
// change is refused with the start's message while the old config keeps serving; a credential is stored
// sealed (the raw row holds no secret) and never returned whole.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { startMockUpstream } from '../helpers/mock-upstream.ts';
import type { MockUpstream } from '../helpers/mock-upstream-types.ts';
import { startGateway, waitUntil, type GatewayProcess } from '../helpers/gateway-process.ts';
import { dropSchema, freshSchema, pgClient, pgUnavailable } from '../helpers/postgres.ts';

const ADMIN = 'adm-live-0123456789abcdef';
const SECRET = 'sk-live-secret-0123456789abcdefLIVE';
const ENCRYPTION_KEY = randomBytes(32).toString('base64');
/** The bar: a change made on one replica is served by every replica within this. */
const CONVERGE_MS = 5_000;

const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

function yaml(database: string, upUrl: string, extraModels = '', extra = ''): string {
  return `database: "${database}"
usage_flush_ms: 20
admin_token: "${ADMIN}"
providers:
  - { name: mock, kind: mock }
  - { name: up, kind: openai, base_url: "${upUrl}/v1", api_key: "sk-file-upstream-0123456789abcdef" }
models:
  - { name: gpt-file, deployments: [ { provider: up, model: upstream-gpt } ] }
${extraModels}
${extra}
`;
}

async function admin(gw: GatewayProcess, path: string, opts: { method?: string; body?: unknown } = {}) {
  const res = await fetch(gw.url + path, {
    method: opts.method ?? (opts.body === undefined ? 'GET' : 'POST'),
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const text = await res.text();
  return {
    status: res.status,
    text,
    json: JSON.parse(text) as Record<string, unknown> & { error?: { message: string } },
  };
}

async function chat(gw: GatewayProcess, key: string, model: string): Promise<number> {
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });
  await res.arrayBuffer();
  return res.status;
}

/** Waits, with a deadline, until every gateway answers `model` with `status`. */
async function servedBy(gws: GatewayProcess[], key: string, model: string, status: number, what: string) {
  await waitUntil(
    async () => (await Promise.all(gws.map((g) => chat(g, key, model)))).every((s) => s === status),
    what,
    CONVERGE_MS,
  );
}

const pg = await pgClient();
if (pg === null) pgUnavailable('live config across two replicas on PostgreSQL');
else {
  const sql = pg;
  cleanups.push(() => sql.end({ timeout: 1 }));
  test('two replicas on PostgreSQL: a model added, changed and removed on one is served by both within 5 s; credentials sealed', async () => {
    const up = await startMockUpstream();
    const { schema, url } = freshSchema('mg_live');
    cleanups.push(async () => {
      await up.close();
      await dropSchema(sql, schema);
    });
    const env = { MODELGATE_ENCRYPTION_KEY: ENCRYPTION_KEY };
    const a = await startGateway({ configYaml: yaml(url, up.url), env });
    cleanups.push(() => a.cleanup());
    const b = await startGateway({ configYaml: yaml(url, up.url), env });
    cleanups.push(() => b.cleanup());
    const { key } = await a.createKey({ name: 'live' });
    await waitUntil(async () => (await chat(b, key, 'gpt-file')) === 200, 'replica B to know the key');
    assert.equal(await chat(b, key, 'gpt-live'), 404, 'no such model yet');

    // A provider with a credential and a model on it, both through replica A.
    const made = await admin(a, '/admin/providers', {
      body: { name: 'up-live', kind: 'openai', base_url: `${up.url}/v1`, api_key: SECRET },
    });
    assert.equal(made.status, 201, made.text);
    assert.equal(made.json.api_key, 'sk-l…LIVE', 'the reply shows the credential masked');
    assert.equal(made.json.source, 'database');
    const model = await admin(a, '/admin/models', {
      body: {
        name: 'gpt-live',
        price: { input: 1, output: 2 },
        deployments: [{ provider: 'up-live', model: 'upstream-live' }],
      },
    });
    assert.equal(model.status, 201, model.text);
    await servedBy([a, b], key, 'gpt-live', 200, 'both replicas to serve gpt-live');
    const upstream = up.requests.filter((r) => (r.json as { model?: string } | undefined)?.model === 'upstream-live');
    assert.ok(upstream.length >= 2, 'both replicas sent it upstream');
    for (const r of upstream)
      assert.equal(r.headers.authorization, `Bearer ${SECRET}`, 'the stored credential is used');

    // At rest: sealed in the raw row; in replies: masked, on both replicas and in every listing.
    const [row] = await sql.unsafe<{ body: string }[]>(
      `SELECT body FROM "${schema}".config_entries WHERE kind = 'provider' AND name = 'up-live'`,
    );
    assert.ok(!row!.body.includes(SECRET) && !row!.body.includes(SECRET.slice(4, -4)), 'no secret in the row');
    assert.match(JSON.parse(row!.body).api_key, /^enc:v1:/);
    for (const gw of [a, b])
      for (const path of ['/admin/providers', '/admin/providers/up-live', '/admin/models']) {
        const r = await admin(gw, path);
        assert.equal(r.status, 200, r.text);
        assert.ok(!r.text.includes(SECRET) && !r.text.includes('enc:v1:'), `${path} holds no credential`);
      }
    const listed = (await admin(b, '/admin/providers')).json.data as {
      name: string;
      source: string;
      api_key?: string;
    }[];
    assert.deepEqual(
      listed.map((p) => [p.name, p.source]),
      [
        ['mock', 'file'],
        ['up', 'file'],
        ['up-live', 'database'],
      ],
    );
    assert.equal(listed[1]!.api_key, 'sk-f…cdef', 'a file credential is masked too');

    // A PATCH that sends the masked credential back keeps the stored one.
    const patched = await admin(b, '/admin/providers/up-live', {
      method: 'PATCH',
      body: { ...(await admin(b, '/admin/providers/up-live')).json, headers: { 'x-team': 'live' } },
    });
    assert.equal(patched.status, 200, patched.text);
    up.requests.length = 0;
    await waitUntil(
      async () => (await chat(a, key, 'gpt-live')) === 200 && up.requests.at(-1)?.headers['x-team'] === 'live',
      'replica A to send the new header',
      CONVERGE_MS,
    );
    assert.equal(up.requests.at(-1)!.headers.authorization, `Bearer ${SECRET}`);

    // An invalid change is refused with the start's message; the running config keeps serving.
    const bad = await admin(a, '/admin/models/gpt-live', {
      method: 'PATCH',
      body: { deployments: [{ provider: 'nope', model: 'x' }] },
    });
    assert.equal(bad.status, 400, bad.text);
    assert.match(
      bad.json.error!.message,
      /at models\["gpt-live"\]\.deployments\[0\]\.provider: unknown provider "nope"/,
    );
    const badPrice = await admin(b, '/admin/models', {
      body: {
        name: 'per-token',
        price: { input: 0.0000025, output: 0.00001 },
        deployments: [{ provider: 'up', model: 'x' }],
      },
    });
    assert.equal(badPrice.status, 400, badPrice.text);
    assert.match(badPrice.json.error!.message, /looks like a price per token/);
    const badSchema = await admin(b, '/admin/providers', { body: { name: 'p2', kind: 'openai', base_url: 'ftp://x' } });
    assert.equal(badSchema.status, 400, badSchema.text);
    assert.match(badSchema.json.error!.message, /at providers\["p2"\]\.base_url: /);
    assert.equal(await chat(a, key, 'gpt-live'), 200);
    assert.equal(await chat(b, key, 'gpt-live'), 200);

    // A provider a model uses cannot go; an entry of the file cannot be changed here.
    const inUse = await admin(b, '/admin/providers/up-live', { method: 'DELETE' });
    assert.equal(inUse.status, 409, inUse.text);
    assert.match(inUse.json.error!.message, /used by the deployments of "gpt-live"/);
    const fromFile = await admin(b, '/admin/models/gpt-file', { method: 'PATCH', body: { max_retries: 1 } });
    assert.equal(fromFile.status, 409, fromFile.text);
    assert.ok(fromFile.json.error!.message.includes(b.configPath), 'the refusal names the file');

    // Removed on B: both stop serving it.
    assert.equal((await admin(b, '/admin/models/gpt-live', { method: 'DELETE' })).status, 200);
    await servedBy([a, b], key, 'gpt-live', 404, 'both replicas to drop gpt-live');
    assert.equal((await admin(a, '/admin/providers/up-live', { method: 'DELETE' })).status, 200);
    assert.equal((await admin(a, '/admin/providers/up-live')).status, 404);
    assert.ok(!a.logs().includes(SECRET) && !b.logs().includes(SECRET), 'no log line holds the credential');
  });
}

test('SQLite: a YAML change and SIGHUP add a model without a restart; a bad file is refused and the old one kept', async () => {
  const up = await startMockUpstream();
  cleanups.push(() => up.close());
  const gw = await startGateway({ configYaml: yaml('{{DB}}', up.url, '', 'config_watch: false') });
  cleanups.push(() => gw.cleanup());
  const { key } = await gw.createKey({ name: 'hup' });
  assert.equal(await chat(gw, key, 'gpt-hup'), 404);
  const hup = '  - { name: gpt-hup, deployments: [ { provider: mock, model: hup } ] }';
  writeFileSync(gw.configPath, yaml(gw.dbPath, up.url, hup, 'config_watch: false'));
  gw.signal('SIGHUP');
  await servedBy([gw], key, 'gpt-hup', 200, 'the gateway to serve gpt-hup after SIGHUP');

  // A file that does not validate: refused with a log line, the running config serves on.
  const good = readFileSync(gw.configPath, 'utf8');
  writeFileSync(gw.configPath, good.replace('provider: mock, model: hup', 'provider: missing, model: hup'));
  gw.signal('SIGHUP');
  await waitUntil(() => /config reload \(SIGHUP\) refused/.test(gw.logs()), 'the refusal in the log');
  assert.match(gw.logs(), /unknown provider \\"missing\\"/);
  assert.equal(await chat(gw, key, 'gpt-hup'), 200, 'the old config keeps serving');
  assert.equal(await chat(gw, key, 'gpt-file'), 200);
});

test('SQLite: a change of the file is reloaded without a signal', async () => {
  const up = await startMockUpstream();
  cleanups.push(() => up.close());
  const gw = await startGateway({ configYaml: yaml('{{DB}}', up.url) });
  cleanups.push(() => gw.cleanup());
  const { key } = await gw.createKey({ name: 'watch' });
  writeFileSync(
    gw.configPath,
    readFileSync(gw.configPath, 'utf8').replace(
      'models:\n',
      'models:\n  - { name: gpt-watched, deployments: [ { provider: mock, model: w } ] }\n',
    ),
  );
  await servedBy([gw], key, 'gpt-watched', 200, 'the gateway to serve the model the file gained');
});

test('SQLite without MODELGATE_ENCRYPTION_KEY: a credential is refused, a ${VARIABLE} reference is stored', async () => {
  const up = await startMockUpstream();
  cleanups.push(() => up.close());
  const gw = await startGateway({ configYaml: yaml('{{DB}}', up.url), env: { LIVE_UP_KEY: SECRET } });
  cleanups.push(() => gw.cleanup());
  const refused = await admin(gw, '/admin/providers', {
    body: { name: 'keyed', kind: 'openai', base_url: `${up.url}/v1`, api_key: SECRET },
  });
  assert.equal(refused.status, 400, refused.text);
  assert.match(refused.json.error!.message, /api_key is a credential.*MODELGATE_ENCRYPTION_KEY/);
  assert.ok(!refused.text.includes(SECRET));
  const referenced = await admin(gw, '/admin/providers', {
    body: { name: 'keyed', kind: 'openai', base_url: `${up.url}/v1`, api_key: '${LIVE_UP_KEY}' },
  });
  assert.equal(referenced.status, 201, referenced.text);
  assert.equal(referenced.json.api_key, '${LIVE_UP_KEY}');
  const dup = await admin(gw, '/admin/providers', { body: { name: 'keyed', kind: 'mock' } });
  assert.equal(dup.status, 409, dup.text);
  const { key } = await gw.createKey({ name: 'ref' });
  assert.equal(
    (await admin(gw, '/admin/models', { body: { name: 'gpt-ref', deployments: [{ provider: 'keyed', model: 'm' }] } }))
      .status,
    201,
  );
  assert.equal(await chat(gw, key, 'gpt-ref'), 200, 'served at once by the replica that made it');
  assert.equal(up.requests.at(-1)!.headers.authorization, `Bearer ${SECRET}`);
});

test('CLI: `modelgate models add|list|remove` change what a running gateway serves within 5 s; a bad entry is refused', async () => {
  const up = await startMockUpstream();
  cleanups.push(() => up.close());
  const gw = await startGateway({ configYaml: yaml('{{DB}}', up.url) });
  cleanups.push(() => gw.cleanup());
  const { key } = await gw.createKey({ name: 'cli' });
  const added = JSON.parse(
    await gw.cli(['models', 'add', '{ name: gpt-cli, deployments: [ { provider: mock, model: c } ] }', '--json']),
  ) as { name: string; source: string };
  assert.deepEqual([added.name, added.source], ['gpt-cli', 'database']);
  await servedBy([gw], key, 'gpt-cli', 200, 'the gateway to serve the model the CLI added');
  const listed = await gw.cli(['models', 'list']);
  assert.match(listed, /^gpt-file {2}up\/upstream-gpt {2}\(file\)$/m);
  assert.match(listed, /^gpt-cli {2}mock\/c {2}\(database\)$/m);
  await assert.rejects(
    gw.cli(['models', 'add', '{ name: gpt-bad, deployments: [ { provider: nowhere, model: c } ] }']),
    (err: { stderr: string }) =>
      /at models\["gpt-bad"\]\.deployments\[0\]\.provider: unknown provider "nowhere"/.test(err.stderr),
  );
  await assert.rejects(gw.cli(['models', 'remove', 'gpt-file']), (err: { stderr: string }) =>
    err.stderr.includes(`comes from the config file ${gw.configPath}`),
  );
  assert.match(await gw.cli(['models', 'remove', 'gpt-cli']), /Removed model gpt-cli/);
  await servedBy([gw], key, 'gpt-cli', 404, 'the gateway to drop the model the CLI removed');
});

test('a stream in flight keeps the model it started on: removed meanwhile, it finishes and is billed at its price', async () => {
  const up = await startMockUpstream({ chunkCount: 8, chunkDelayMs: 150 });
  cleanups.push(() => up.close());
  const gw = await startGateway({ configYaml: yaml('{{DB}}', up.url) });
  cleanups.push(() => gw.cleanup());
  const { key } = await gw.createKey({ name: 'flight' });
  const added = await admin(gw, '/admin/models', {
    body: {
      name: 'gpt-brief',
      price: { input: 1000, output: 1000 },
      deployments: [{ provider: 'up', model: 'brief' }],
    },
  });
  assert.equal(added.status, 201, added.text);
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-brief', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });
  assert.equal(res.status, 200);
  const reader = res.body!.getReader();
  let text = new TextDecoder().decode((await reader.read()).value);
  assert.equal((await admin(gw, '/admin/models/gpt-brief', { method: 'DELETE' })).status, 200);
  assert.equal(await chat(gw, key, 'gpt-brief'), 404, 'a new request no longer finds it');
  for (;;) {
    const r = await reader.read();
    if (r.done) break;
    text += new TextDecoder().decode(r.value);
  }
  assert.match(text, /data: \[DONE\]/, 'the stream in flight completed');
  assert.doesNotMatch(text, /"error"/);
  let row: { model: string; status: number; cost_usd: number } | undefined;
  await waitUntil(async () => {
    const page = (await admin(gw, '/admin/requests?model=gpt-brief')).json.data as (typeof row)[];
    row = page[0];
    return row !== undefined;
  }, 'the usage row');
  assert.equal(row!.status, 200);
  assert.ok(row!.cost_usd > 0, `billed at the price it started with (${row!.cost_usd})`);
});

test('models_source: file refuses API changes naming the file; database starts with none from the file and serves what is added', async () => {
  const up = await startMockUpstream();
  cleanups.push(() => up.close());
  const fileOnly = await startGateway({ configYaml: yaml('{{DB}}', up.url, '', 'models_source: file') });
  cleanups.push(() => fileOnly.cleanup());
  const refused = await admin(fileOnly, '/admin/models', {
    body: { name: 'gpt-x', deployments: [{ provider: 'mock', model: 'x' }] },
  });
  assert.equal(refused.status, 409, refused.text);
  assert.ok(refused.json.error!.message.includes(`models_source is file in ${fileOnly.configPath}`));
  assert.equal(((await admin(fileOnly, '/admin/models')).json.data as unknown[]).length, 1);

  const dbOnly = await startGateway({
    configYaml: `database: "{{DB}}"\nadmin_token: "${ADMIN}"\nmodels_source: database\n`,
  });
  cleanups.push(() => dbOnly.cleanup());
  const { key } = await dbOnly.createKey({ name: 'db' });
  assert.deepEqual((await admin(dbOnly, '/admin/models')).json.data, [], 'no model yet');
  assert.equal((await admin(dbOnly, '/admin/providers', { body: { name: 'mock', kind: 'mock' } })).status, 201);
  assert.equal(
    (
      await admin(dbOnly, '/admin/models', {
        body: { name: 'gpt-db', deployments: [{ provider: 'mock', model: 'm' }] },
      })
    ).status,
    201,
  );
  assert.equal(await chat(dbOnly, key, 'gpt-db'), 200);
  // A restart serves what the database holds.
  await dbOnly.stop();
  await dbOnly.restart();
  assert.equal(await chat(dbOnly, key, 'gpt-db'), 200, 'served again after a restart');
});

// When no usage row can be recorded (the database takes none and the rows held in memory are at their bound,
// `usage_pending_rows`), a new billable request gets 503 `usage_unrecordable` in its caller's dialect and
// /readyz is 503 from the first failed write; when the database takes rows again, every held and spilled
// row is written (counted against the requests answered) and requests are served again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { startGateway, configYaml, waitUntil, type GatewayProcess } from '../helpers/gateway-process.ts';
import { validateOpenAIError } from '../helpers/schemas.ts';
import { usageRows } from '../admission/usage-db.ts';
import { dropSchema, freshSchema, pgClient, PG_URL } from '../helpers/postgres.ts';
import { tcpRelay } from '../helpers/tcp-relay.ts';

const BOUND = 3;

async function chat(
  gw: GatewayProcess,
  key: string,
): Promise<{ status: number; body: string; retryAfter: string | null }> {
  const r = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-mock', messages: [{ role: 'user', content: 'hi' }] }),
  });
  return { status: r.status, body: await r.text(), retryAfter: r.headers.get('retry-after') };
}

async function gemini(gw: GatewayProcess, key: string): Promise<{ status: number; body: string }> {
  const r = await fetch(`${gw.url}/v1beta/models/gpt-mock:generateContent`, {
    method: 'POST',
    headers: { 'x-goog-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
  });
  return { status: r.status, body: await r.text() };
}

async function readyz(gw: GatewayProcess): Promise<{ status: number; body: string }> {
  const r = await fetch(`${gw.url}/readyz`);
  return { status: r.status, body: await r.text() };
}

test('SQLite refusing writes: 503 in the dialect once the held rows reach their bound, /readyz false, no row lost', async () => {
  const gw = await startGateway({
    configYaml: configYaml({
      models: '  - { name: gpt-mock, deployments: [ { provider: mock, model: gpt-mock } ] }',
      extra: `usage_pending_rows: ${BOUND}`,
    }),
  });
  const lock = new DatabaseSync(gw.dbPath);
  try {
    const { key, id } = await gw.createKey({ name: 'unrecordable' });
    assert.equal((await chat(gw, key)).status, 200);
    await waitUntil(() => usageRows(gw.dbPath, id).length === 1, 'the first row');
    assert.equal((await readyz(gw)).status, 200);

    // Another process holds the write lock: every write fails, as on a full disk.
    lock.exec('BEGIN IMMEDIATE');
    let answered = 1;
    assert.equal((await chat(gw, key)).status, 200, 'one row in memory is fine');
    answered++;
    await waitUntil(async () => (await readyz(gw)).status === 503, '/readyz to report the failing writes');
    assert.match((await readyz(gw)).body, /usage store/);

    // Served while rows can still be held; refused once they are at the bound.
    let refused: { status: number; body: string; retryAfter: string | null } | null = null;
    for (let i = 0; i < BOUND + 3 && refused === null; i++) {
      const r = await chat(gw, key);
      answered++;
      if (r.status === 503) refused = r;
      else assert.equal(r.status, 200, r.body);
    }
    assert.ok(refused !== null, 'a request is refused once no further row can be held');
    const err = JSON.parse(refused.body) as { error: { code: string } };
    validateOpenAIError(err);
    assert.equal(err.error.code, 'usage_unrecordable');
    assert.equal(refused.retryAfter, '1');
    const g = await gemini(gw, key);
    answered++;
    assert.equal(g.status, 503, g.body);
    assert.equal((JSON.parse(g.body) as { error: { status: string } }).error.status, 'UNAVAILABLE');
    assert.equal((await chat(gw, key)).status, 503, 'still refused while the database takes nothing');
    answered++;

    lock.exec('ROLLBACK');
    await waitUntil(async () => (await readyz(gw)).status === 200, '/readyz to be ready again', 60_000);
    assert.equal((await chat(gw, key)).status, 200, 'served again');
    answered++;
    await waitUntil(
      () => usageRows(gw.dbPath, id).length === answered,
      `every answered request's row (${answered})`,
      60_000,
    );
    const metrics = await (await fetch(`${gw.url}/metrics`)).text();
    assert.match(metrics, /^modelgate_usage_rows_dropped_total 0$/m);
    assert.match(metrics, /^modelgate_usage_rows_spilled_total \d+$/m);
    assert.doesNotMatch(gw.logs(), /usage rows lost/);
  } finally {
    lock.close();
    await gw.cleanup();
  }
});

const pg = await pgClient();
test('PostgreSQL cut away: 503 in the dialect once the held rows reach their bound, every row written when it is back', {
  skip: pg === null ? 'no PostgreSQL at PG_URL' : false,
}, async () => {
  const { schema, url } = freshSchema('mg_unrec');
  const target = new URL(PG_URL);
  const relay = await tcpRelay({ host: target.hostname, port: Number(target.port || 5432) });
  const viaRelay = new URL(url);
  viaRelay.port = String(relay.port);
  let gw: GatewayProcess | null = null;
  try {
    gw = await startGateway({
      configYaml: `database: "${viaRelay.toString()}"
usage_flush_ms: 20
usage_pending_rows: ${BOUND}
providers:
  - { name: mock, kind: mock }
models:
  - { name: gpt-mock, deployments: [ { provider: mock, model: gpt-mock } ] }
`,
    });
    const g = gw;
    const { key, id } = await g.createKey({ name: 'unrecordable-pg' });
    const rows = async (): Promise<number> =>
      Number((await pg!.unsafe(`SELECT COUNT(*)::int AS n FROM "${schema}".usage WHERE key_id = $1`, [id]))[0].n);
    assert.equal((await chat(g, key)).status, 200);
    let answered = 1;
    await waitUntil(async () => (await rows()) === 1, 'the first row');

    relay.cut();
    assert.equal((await chat(g, key)).status, 200, 'served from the keys in memory, its row held');
    answered++;
    await waitUntil(() => /usage write failed/.test(g.logs()), 'the failed write');
    const ready = await readyz(g);
    assert.equal(ready.status, 503);
    assert.match(ready.body, /usage store unreachable/);
    let refused: { status: number; body: string } | null = null;
    for (let i = 0; i < BOUND + 3 && refused === null; i++) {
      const r = await chat(g, key);
      answered++;
      if (r.status === 503) refused = r;
      else assert.equal(r.status, 200, r.body);
    }
    assert.ok(refused !== null, 'a request is refused once no further row can be held');
    assert.equal((JSON.parse(refused.body) as { error: { code: string } }).error.code, 'usage_unrecordable');

    relay.restore();
    await waitUntil(async () => (await readyz(g)).status === 200, '/readyz to be ready again', 60_000);
    assert.equal((await chat(g, key)).status, 200, 'served again');
    answered++;
    await waitUntil(async () => (await rows()) === answered, `every answered request's row (${answered})`, 60_000);
    assert.doesNotMatch(g.logs(), /usage rows lost/);
  } finally {
    await gw?.cleanup();
    await relay.close();
    await dropSchema(pg!, schema);
    await pg!.end();
  }
});

// PostgreSQL going away under a running gateway (a TCP relay in front of it is cut): requests are still
// served from the keys in memory, the usage rows wait in memory, each failure is logged once, and when
// the database is back every row is written and the recovery is logged; /readyz is 503 meanwhile, /livez
// 200. Required in CI (CI=true).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { startGateway, waitUntil, type GatewayProcess } from '../helpers/gateway-process.ts';
import { dropSchema, freshSchema, pgClient, pgUnavailable, PG_URL } from '../helpers/postgres.ts';
import { tcpRelay } from '../helpers/tcp-relay.ts';

const pg = await pgClient();
if (pg === null) {
  pgUnavailable('a PostgreSQL outage under a running gateway');
} else {
  const { schema, url } = freshSchema('mg_e2e');
  const target = new URL(PG_URL);
  const r = await tcpRelay({ host: target.hostname, port: Number(target.port || 5432) });
  let gw: GatewayProcess | null = null;
  after(async () => {
    await gw?.cleanup();
    await r.close();
    await dropSchema(pg, schema);
    await pg.end();
  });

  test('a PostgreSQL outage: requests still served, rows kept and written when it is back, each state change logged once', async () => {
    const viaRelay = new URL(url);
    viaRelay.port = String(r.port);
    gw = await startGateway({
      configYaml: `database: "${viaRelay.toString()}"
usage_flush_ms: 20
providers:
  - { name: mock, kind: mock }
models:
  - { name: gpt-mock, deployments: [ { provider: mock, model: gpt-mock } ] }
`,
    });
    const { key, id } = await gw.createKey({ name: 'outage' });
    const chat = async (): Promise<number> => {
      const res = await fetch(`${gw!.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-mock', messages: [{ role: 'user', content: 'hi' }] }),
      });
      await res.arrayBuffer();
      return res.status;
    };
    const rows = async (): Promise<number> =>
      Number((await pg.unsafe(`SELECT COUNT(*)::int AS n FROM "${schema}".usage WHERE key_id = $1`, [id]))[0].n);
    assert.equal(await chat(), 200);
    await waitUntil(async () => (await rows()) === 1, 'the first row');

    r.cut();
    for (let i = 0; i < 5; i++)
      assert.equal(await chat(), 200, 'served from the keys in memory while the database is away');
    const self = await fetch(`${gw.url}/api/usage/token`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(self.status, 503, 'the self-check cannot read the database: a retryable 503, not a 500');
    assert.equal(self.headers.get('retry-after'), '1');
    assert.equal(((await self.json()) as { error: { code: string } }).error.code, 'usage_unavailable');
    await waitUntil(
      () => /usage write failed/.test(gw!.logs()) && /key refresh failed/.test(gw!.logs()),
      'the failures to be logged',
    );
    assert.equal(await rows(), 1, 'nothing written while the database is away');
    // Not ready while the database is away (a load balancer sends requests elsewhere), but alive.
    const readyz = await fetch(`${gw.url}/readyz`);
    assert.equal(readyz.status, 503);
    assert.deepEqual(((await readyz.json()) as { reasons: string[] }).reasons, [
      'database unreachable',
      'usage store unreachable',
    ]);
    assert.equal((await fetch(`${gw.url}/livez`)).status, 200);

    r.restore();
    await waitUntil(async () => (await rows()) === 6, 'the kept rows to be written', 20_000);
    await waitUntil(
      () => /usage writes work again/.test(gw!.logs()) && /key refresh works again/.test(gw!.logs()),
      'the recoveries to be logged',
    );
    const logs = gw.logs();
    assert.equal(
      logs.match(/key refresh failed/g)?.length,
      1,
      "the key poll's failures are logged once, not four times a second",
    );
    assert.equal(logs.match(/usage write failed/g)?.length, 1, "the usage writer's failing streak is logged once");
    assert.equal(await chat(), 200);
    assert.equal((await fetch(`${gw.url}/readyz`)).status, 200, 'ready again once the database answers');
  });
}

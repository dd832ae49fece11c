// Two gateway processes sharing one PostgreSQL database, as on two hosts: a key made with the CLI is
// served by both, both record usage into the one report, and disabling the key reaches both. Required in
// CI (CI=true); skipped locally when PostgreSQL is not running.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startGateway, waitUntil, type GatewayProcess } from '../helpers/gateway-process.ts';
import { validateChatCompletion } from '../helpers/schemas.ts';
import { dropSchema, freshSchema, pgClient, pgUnavailable } from '../helpers/postgres.ts';

const pg = await pgClient();
if (pg === null) {
  pgUnavailable('two gateways on one PostgreSQL database');
} else {
  const { schema, url: database } = freshSchema('mg_e2e');
  const gateways: GatewayProcess[] = [];
  const configYaml = `database: "${database}"
usage_flush_ms: 20
providers:
  - { name: mock, kind: mock }
models:
  - { name: gpt-mock, price: { input: 1, output: 2 }, deployments: [ { provider: mock, model: gpt-mock } ] }
`;
  after(async () => {
    for (const gw of gateways) await gw.cleanup();
    await dropSchema(pg, schema);
    await pg.end();
  });

  test('two gateways on one PostgreSQL database share keys, usage and key changes', async () => {
    const a = await startGateway({ configYaml });
    gateways.push(a);
    const b = await startGateway({ configYaml });
    gateways.push(b);
    // Made through one host's CLI; both hosts learn of it from the database.
    // No limits: without redis: only one of the two may count a key's limits (the next test).
    const { key, id } = await a.createKey({ name: 'shared' });
    await waitUntil(async () => {
      const r = await fetch(`${b.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
      await r.arrayBuffer();
      return r.status === 200;
    }, 'the second gateway to accept the key');

    for (const gw of [a, b]) {
      const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
      const answer = await client.chat.completions.create({
        model: 'gpt-mock',
        messages: [{ role: 'user', content: 'hello' }],
      });
      validateChatCompletion(answer);
      assert.equal(answer.model, 'gpt-mock');
    }

    // Both gateways' rows land in the one report, priced.
    let report: Array<{ keyId: string; requests: number; costNanos: number }> = [];
    await waitUntil(async () => {
      report = JSON.parse(await a.cli(['usage', '--json', '--key', id])) as typeof report;
      return report.reduce((n, r) => n + r.requests, 0) === 2;
    }, "both gateways' usage rows");
    assert.ok(report.every((r) => r.keyId === id && r.costNanos > 0));
    const shown = await b.cli(['keys', 'show', id]);
    assert.match(shown, /shared/);
    assert.ok(!shown.includes(key), 'the key is never printed whole');

    // A change made on one host reaches both.
    await b.cli(['keys', 'disable', id]);
    for (const gw of [a, b]) {
      await waitUntil(async () => {
        const r = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
        await r.arrayBuffer();
        return r.status === 401;
      }, 'the disabled key to be refused');
    }
  });

  test('a key made through one replica’s admin API works at once on the other; its usage report covers both', async () => {
    const ADMIN = 'adm-pg-0123456789abcdef';
    const configYaml = `database: "${database}"
usage_flush_ms: 20
admin_token: "${ADMIN}"
providers:
  - { name: mock, kind: mock }
models:
  - { name: gpt-mock, price: { input: 1, output: 2 }, deployments: [ { provider: mock, model: gpt-mock } ] }
`;
    const a = await startGateway({ configYaml });
    gateways.push(a);
    const b = await startGateway({ configYaml });
    gateways.push(b);
    const created = await fetch(`${a.url}/admin/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'via-api' }),
    });
    assert.equal(created.status, 201);
    const { key } = (await created.json()) as { key: string };
    // No wait: B has not polled yet, and looks the unknown key up in the shared store.
    const client = new OpenAI({ baseURL: `${b.url}/v1`, apiKey: key, maxRetries: 0 });
    validateChatCompletion(
      await client.chat.completions.create({ model: 'gpt-mock', messages: [{ role: 'user', content: 'hello' }] }),
    );
    // B's report flushes B's rows; A's rows would be there too.
    const report = (await (
      await fetch(`${b.url}/admin/usage?key=via-api&group_by=model`, { headers: { authorization: `Bearer ${ADMIN}` } })
    ).json()) as { groups: { model: string; requests: number; cost_usd: number }[] };
    assert.deepEqual(
      report.groups.map((g) => [g.model, g.requests]),
      [['gpt-mock', 1]],
    );
    assert.ok(report.groups[0].cost_usd > 0);
  });

  test('without redis: the second gateway on one PostgreSQL database refuses keys with limits, says how to fix it, and serves them once alone', async () => {
    const ask = async (gw: GatewayProcess, key: string): Promise<{ status: number; text: string }> => {
      const r = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-mock', max_tokens: 20, messages: [{ role: 'user', content: 'hello' }] }),
      });
      return { status: r.status, text: await r.text() };
    };
    // The earlier tests' gateways would be the first ones here.
    for (const gw of gateways.splice(0)) await gw.cleanup();
    const a = await startGateway({ configYaml });
    gateways.push(a);
    const limited = await a.createKey({ name: 'guarded', flags: ['--budget-usd', '1'] });
    const b = await startGateway({ configYaml });
    gateways.push(b);
    assert.match(b.logs(), /another gateway .* same database/);
    await waitUntil(async () => (await ask(b, limited.key)).status !== 401, 'the second gateway to know the key');
    const refused = await ask(b, limited.key);
    assert.equal(refused.status, 503, refused.text);
    assert.match(refused.text, /redis:/, 'the error says how to fix it');
    assert.equal((await ask(a, limited.key)).status, 200, 'the first gateway goes on enforcing the budget alone');
    await a.stop();
    await waitUntil(
      async () => (await ask(b, limited.key)).status === 200,
      'the second gateway to serve keys with limits once it is alone',
      15_000,
    );
  });
}

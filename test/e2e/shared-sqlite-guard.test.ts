// Issue 39, item 11: two gateways on one SQLite file without `redis:` would each enforce budgets alone
// (1.9 × the budget spent). A gateway that finds an earlier one live on its database refuses keys with
// limits, saying how to fix it, while keys without limits and the CLI go on working; it serves them again
// once it is the only one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startGateway, configYaml, waitUntil, type GatewayProcess } from '../helpers/gateway-process.ts';

const MODELS = `  - { name: gpt-mock, price: { input: 1, output: 2 }, deployments: [ { provider: mock, model: gpt-mock } ] }`;

async function ask(gw: GatewayProcess, key: string): Promise<{ status: number; text: string }> {
  const r = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-mock', max_tokens: 20, messages: [{ role: 'user', content: 'hello' }] }),
  });
  return { status: r.status, text: await r.text() };
}

test('a second gateway on the same SQLite file without redis: refuses keys with limits and says how to fix it', async () => {
  const a = await startGateway({ configYaml: configYaml({ models: MODELS }) });
  let b: GatewayProcess | null = null;
  try {
    const limited = await a.createKey({ name: 'budgeted', flags: ['--budget-usd', '1'] });
    const open = await a.createKey({ name: 'open' });
    b = await startGateway({
      configYaml: configYaml({ models: MODELS }).replace('"{{DB}}"', JSON.stringify(a.dbPath)),
    });
    assert.match(b.logs(), /another gateway .* same database/);
    const refused = await ask(b, limited.key);
    assert.equal(refused.status, 503, refused.text);
    assert.match(refused.text, /redis:/, 'the error says how to fix it');
    assert.equal(
      (await ask(b, open.key)).status,
      200,
      'a key without limits is served: there is nothing to count twice',
    );
    assert.equal((await ask(a, limited.key)).status, 200, 'the first gateway goes on enforcing the budget alone');
    // The CLI against a live gateway's file is not a gateway.
    assert.match(await a.cli(['keys', 'list']), /budgeted/);
    await a.stop();
    await waitUntil(
      async () => (await ask(b!, limited.key)).status === 200,
      'b to serve keys with limits once it is alone',
      15_000,
    );
  } finally {
    await b?.cleanup();
    await a.cleanup();
  }
});

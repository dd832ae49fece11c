// Issue 39, item 12: rows the database will not take when the gateway stops (a full disk, a lock held
// past the last flush) are kept in a file beside it and written at the next start, before any budget is
// loaded: no usage row is lost, and the key's spend is whole again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { startGateway, configYaml } from '../helpers/gateway-process.ts';
import { keySpent, usageRows } from '../admission/usage-db.ts';

test('rows queued while the database refuses writes survive a stop and are written at the next start', async () => {
  const gw = await startGateway({
    configYaml: configYaml({
      models: `  - { name: gpt-mock, price: { input: 1, output: 2 }, deployments: [ { provider: mock, model: gpt-mock } ] }`,
    }),
  });
  const lock = new DatabaseSync(gw.dbPath);
  try {
    const { key, id } = await gw.createKey({ name: 'spill', flags: ['--budget-usd', '5'] });
    // Another process holds the write lock: every write fails, as on a full disk.
    lock.exec('BEGIN IMMEDIATE');
    const N = 12;
    for (let i = 0; i < N; i++) {
      const r = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'gpt-mock',
          max_tokens: 20,
          messages: [{ role: 'user', content: `hello ${i}` }],
        }),
      });
      assert.equal(r.status, 200);
      await r.arrayBuffer();
    }
    await gw.stop();
    lock.exec('ROLLBACK');
    assert.equal(usageRows(gw.dbPath, id).length, 0, 'nothing reached the database while it was locked');
    const spill = `${gw.dbPath}.usage-spill.jsonl`;
    assert.ok(existsSync(spill), 'the rows wait in the spill file');
    assert.equal(statSync(spill).mode & 0o077, 0, "the spill file is the owner's only");
    assert.doesNotMatch(gw.logs(), /usage rows lost/);

    await gw.restart();
    const rows = usageRows(gw.dbPath, id);
    assert.equal(rows.length, N, 'every row is written at the next start, before it listens');
    assert.ok(!existsSync(spill), 'the spill file is gone once written');
    const total = rows.reduce((n, r) => n + r.cost_nanos, 0);
    assert.ok(total > 0);
    assert.equal(keySpent(gw.dbPath, id).nanos, total, "the key's spend total includes them");
    const self = await fetch(`${gw.url}/api/usage/token`, { headers: { authorization: `Bearer ${key}` } });
    const data = ((await self.json()) as { data: { spent_usd: number } }).data;
    assert.equal(Math.round(data.spent_usd * 1e9), total, 'the budget loaded at start counts them');
  } finally {
    lock.close();
    await gw.cleanup();
  }
});

// Issue 4: SIGKILL during load, then restart. What is lost is bounded by the usage flush interval
// (only responses finished in the last flush_ms before the kill may be missing), key totals still equal
// the sum of the rows, and no reservation of the dead process survives the restart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startMockUpstream } from '../helpers/mock-upstream.ts';
import { startGateway, configYaml, waitUntil } from '../helpers/gateway-process.ts';
import { keySpent, sum, usageRows } from '../admission/usage-db.ts';

const FLUSH_MS = 200;
/** Writing one batch and the gap between the client's receipt and the row being queued. */
const WRITE_SLACK_MS = 150;
const WORKERS = 16;
const LOAD_MS = 1500;
/** Answers to receive before the kill, so the load is real on any machine. */
const SERVED = 60;

test('SIGKILL under load loses at most the last flush interval; restart leaves no phantom reservation', async (t) => {
  const up = await startMockUpstream({ latencyMs: 10 });
  const gw = await startGateway({
    configYaml: configYaml({
      providers: `  - { name: up, kind: openai, base_url: "${up.url}/v1", api_key: "sk-upstream-crash-0123456789" }`,
      models: `  - { name: gpt-up, price: { input: 1, output: 2 }, deployments: [ { provider: up, model: upstream-gpt } ] }`,
    }).replace('usage_flush_ms: 20', `usage_flush_ms: ${FLUSH_MS}`),
  });
  try {
    const { key, id } = await gw.createKey({
      name: 'crash',
      flags: ['--budget-usd', '5', '--concurrency', String(WORKERS)],
    });
    const received = new Map<string, number>();
    let stop = false;
    const worker = async (): Promise<void> => {
      while (!stop) {
        try {
          const res = await fetch(`${gw.url}/v1/chat/completions`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: JSON.stringify({ model: 'gpt-up', max_tokens: 20, messages: [{ role: 'user', content: 'Hello' }] }),
          });
          await res.text();
          if (res.status === 200) received.set(res.headers.get('x-request-id')!, Date.now());
        } catch {
          return;
        }
      }
    };
    const workers = Array.from({ length: WORKERS }, worker);
    // Load until enough answers are in (however slow the machine), with the time as a floor.
    const loadedAt = Date.now() + LOAD_MS;
    await waitUntil(() => received.size > SERVED && Date.now() >= loadedAt, 'the load to be served', 120_000);
    const killedAt = Date.now();
    await gw.kill();
    stop = true;
    await Promise.all(workers);

    const rows = usageRows(gw.dbPath, id);
    const written = new Set(rows.map((r) => r.request_id));
    const lostAges = [...received].filter(([rid]) => !written.has(rid)).map(([, at]) => killedAt - at);
    const worst = lostAges.length === 0 ? 0 : Math.max(...lostAges);
    t.diagnostic(
      `served ${received.size}, rows written ${rows.length}, lost ${lostAges.length}, oldest lost finished ${worst} ms before the kill (flush ${FLUSH_MS} ms)`,
    );
    assert.ok(received.size > SERVED, 'the load was real');
    assert.ok(worst <= FLUSH_MS + WRITE_SLACK_MS, `nothing older than one flush interval is lost (oldest ${worst} ms)`);
    assert.equal(
      sum(rows, (r) => r.cost_nanos),
      keySpent(gw.dbPath, id).nanos,
      'rows and totals are one transaction',
    );

    await gw.restart();
    const self = await fetch(`${gw.url}/api/usage/token`, { headers: { authorization: `Bearer ${key}` } });
    const data = (
      (await self.json()) as { data: { reserved_usd: number; spent_usd: number; window: { in_flight: number } } }
    ).data;
    assert.equal(data.reserved_usd, 0, 'no phantom reservation');
    assert.equal(data.window.in_flight, 0, 'no phantom concurrency slot');
    assert.equal(Math.round(data.spent_usd * 1e9), keySpent(gw.dbPath, id).nanos, 'spent is seeded from the database');
    // Every concurrency slot is usable at once after the restart.
    const burst = await Promise.all(
      Array.from({ length: WORKERS }, () =>
        fetch(`${gw.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'gpt-up', max_tokens: 20, messages: [{ role: 'user', content: 'Hello' }] }),
        }).then(async (r) => (await r.text(), r.status)),
      ),
    );
    assert.deepEqual(
      burst.filter((s) => s !== 200),
      [],
    );
  } finally {
    await gw.cleanup();
    await up.close();
  }
});

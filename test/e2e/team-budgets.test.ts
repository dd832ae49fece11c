// Teams as a platform team uses them: a team made through the admin API holds a budget, rate limits and
// model rights above its keys. Two keys of one team, each with a budget of its own larger than the
// team's, spend concurrently: the team's total never passes its budget, on one gateway and on two
// replicas sharing Redis and PostgreSQL (required in CI; skipped locally without them).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { redisOrSkip, dropPrefix, REDIS_URL } from '../helpers/redis.ts';
import { startMockUpstream } from '../helpers/mock-upstream.ts';
import type { MockUpstream } from '../helpers/mock-upstream-types.ts';
import { startGateway, waitUntil, type GatewayProcess } from '../helpers/gateway-process.ts';
import { validateOpenAIError } from '../helpers/schemas.ts';
import { estimatePromptTokens } from '../../src/admission/estimate-tokens.ts';
import { reservationNanos } from '../../src/core/budget.ts';
import { dropSchema, freshSchema, pgOrSkip } from '../helpers/postgres.ts';

const ADMIN = 'admin-token-for-team-budgets-0123456789';
const PARALLEL = 120;
const FITS = 12;
const MAX_TOKENS = 50;
const PRICE = { input: 1, output: 2, cacheRead: 0.1, cacheWrite: 1.25 };

const body = (model = 'gpt-team'): Record<string, unknown> => ({
  model,
  max_tokens: MAX_TOKENS,
  messages: [{ role: 'user', content: 'Hello there' }],
});
const worstCase = (): number =>
  reservationNanos(
    { promptTokens: estimatePromptTokens(body(), { model: 'upstream-gpt' }), maxTokens: MAX_TOKENS },
    PRICE,
  );

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

function config(upUrl: string, head: string): string {
  return `${head}
admin_token: "${ADMIN}"
usage_flush_ms: 20
providers:
  - { name: up, kind: openai, base_url: "${upUrl}/v1", api_key: "sk-upstream-0123456789" }
models:
  - { name: gpt-team, price: { input: ${PRICE.input}, output: ${PRICE.output}, cache_read: ${PRICE.cacheRead}, cache_write: ${PRICE.cacheWrite} }, deployments: [ { provider: up, model: upstream-gpt } ] }
  - { name: gpt-other, price: { input: 1, output: 2 }, deployments: [ { provider: up, model: upstream-other } ] }
`;
}

async function admin(
  gw: GatewayProcess,
  method: string,
  path: string,
  json?: unknown,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${gw.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${ADMIN}`,
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? null : JSON.parse(text) };
}

/** Two keys of the team, each with a budget of its own that alone would fit every request. */
async function teamKeys(gw: GatewayProcess, team: string): Promise<string[]> {
  const keys: string[] = [];
  for (const name of ['svc-a', 'svc-b']) {
    const made = await admin(gw, 'POST', '/admin/keys', { name, team, budget_usd: (PARALLEL * worstCase()) / 1e9 });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    keys.push(made.body.key);
  }
  return keys;
}

async function spend(gateways: GatewayProcess[], keys: string[]): Promise<{ status: number; text: string }[]> {
  return Promise.all(
    Array.from({ length: PARALLEL }, async (_, i) => {
      const gw = gateways[i % gateways.length];
      const res = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${keys[Math.floor(i / gateways.length) % 2]}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify(body()),
      });
      return { status: res.status, text: await res.text() };
    }),
  );
}

function checkRefusals(results: { status: number; text: string }[]): number {
  const served = results.filter((r) => r.status === 200).length;
  for (const r of results.filter((x) => x.status !== 200)) {
    assert.equal(r.status, 403, r.text);
    const json = JSON.parse(r.text) as { error: { code: string; message: string } };
    validateOpenAIError(json);
    assert.equal(json.error.code, 'budget_exhausted');
    assert.match(json.error.message, /^team platform: /, 'the refusal names the team whose budget is spent');
  }
  return served;
}

test('one gateway: a team budget holds over two keys spending at once; rights, self-check, audit', async () => {
  const up: MockUpstream = await startMockUpstream();
  cleanups.push(() => up.close());
  up.configure({ latencyMs: 20 });
  const gw = await startGateway({ configYaml: config(up.url, 'database: "{{DB}}"') });
  cleanups.push(() => gw.cleanup());

  const budgetNanos = FITS * worstCase();
  const created = await admin(gw, 'POST', '/admin/teams', {
    name: 'platform',
    budget_usd: budgetNanos / 1e9,
    models: ['gpt-team'],
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.equal(created.body.name, 'platform');
  assert.match(created.body.id, /^team_/);
  assert.deepEqual(
    [created.body.keys, created.body.spent_usd, created.body.budget_left_usd],
    [0, 0, budgetNanos / 1e9],
  );
  assert.equal((await admin(gw, 'POST', '/admin/teams', { name: 'platform' })).status, 409, 'names are unique');
  assert.equal((await admin(gw, 'POST', '/admin/teams', { name: 'x', budget: 5 })).status, 400, 'unknown fields');

  const keys = await teamKeys(gw, 'platform');
  const served = checkRefusals(await spend([gw], keys));
  assert.ok(served >= FITS, `the ${FITS} requests the team budget fits are served (got ${served})`);
  assert.ok(served < PARALLEL, `the team's budget refuses what the keys' own budgets would serve (got ${served})`);
  assert.equal(up.requests.length, served, 'the upstream saw exactly the admitted requests');
  // The team's model rights hold on top of the key's own (the key may use every model).
  const other = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${keys[0]}`, 'content-type': 'application/json' },
    body: JSON.stringify(body('gpt-other')),
  });
  assert.equal(other.status, 403, await other.text());
  const listed = (await (
    await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${keys[0]}` } })
  ).json()) as { data: { id: string }[] };
  assert.deepEqual(
    listed.data.map((m) => m.id),
    ['gpt-team'],
    'the listing shows what the team allows',
  );

  // The self-check shows the key's own budget and its team's.
  const self = (await (
    await fetch(`${gw.url}/api/usage/token`, { headers: { authorization: `Bearer ${keys[1]}` } })
  ).json()) as {
    data: { left_usd: number; team: { name: string; budget_usd: number; spent_usd: number; left_usd: number } };
  };
  assert.equal(self.data.team.name, 'platform');
  assert.equal(self.data.team.budget_usd, budgetNanos / 1e9);
  assert.ok(self.data.team.spent_usd > 0 && self.data.team.spent_usd <= budgetNanos / 1e9);
  assert.ok(self.data.team.left_usd < self.data.left_usd, "the team's budget is the tighter one here");

  // The team's spend is a metric of its own; its keys' series name it.
  const scrape = await (await fetch(`${gw.url}/metrics`)).text();
  const teamSpent = /^modelgate_team_spend_usd_total\{team="platform"\} (\S+)$/m.exec(scrape);
  assert.ok(teamSpent !== null && Number(teamSpent[1]) === self.data.team.spent_usd, scrape);
  assert.match(scrape, /^modelgate_team_budget_remaining_usd\{team="platform"\} /m);
  assert.match(scrape, /^modelgate_key_spend_usd_total\{key_id="key_\w+",key_name="svc-a",team="platform"\} /m);

  // The team view adds up its keys' spend; a rename moves the keys along; a team with keys is not deleted.
  await waitUntil(
    async () => (await admin(gw, 'GET', '/admin/teams/platform')).body.spent_usd === self.data.team.spent_usd,
    "the team's rows written",
  );
  assert.ok(self.data.team.spent_usd <= budgetNanos / 1e9, 'the team never spent past its budget');
  const renamed = await admin(gw, 'PATCH', '/admin/teams/platform', { name: 'infra', rpm: 1000 });
  assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
  assert.equal(renamed.body.keys, 2, "the team's keys moved with its name");
  assert.equal(renamed.body.spent_usd, self.data.team.spent_usd, 'its spend is kept across the rename');
  const refused = await admin(gw, 'DELETE', '/admin/teams/infra');
  assert.equal(refused.status, 409);
  assert.match(refused.body.error.message, /still has 2 keys/);
  for (const name of ['svc-a', 'svc-b']) assert.equal((await admin(gw, 'DELETE', `/admin/keys/${name}`)).status, 200);
  assert.equal((await admin(gw, 'DELETE', '/admin/teams/infra')).status, 200);
  assert.equal((await admin(gw, 'GET', '/admin/teams/infra')).status, 404);

  const trail = await admin(gw, 'GET', '/admin/audit?target_kind=team');
  assert.equal(trail.status, 200, JSON.stringify(trail.body));
  assert.deepEqual(trail.body.data.map((e: { action: string }) => e.action).sort(), [
    'team.create',
    'team.delete',
    'team.update',
  ]);
});

test('two gateways on one Redis and one PostgreSQL: the team budget is not granted once per replica', async (t) => {
  const redis = await redisOrSkip(t);
  if (redis === null) return;
  const sql = await pgOrSkip(t).catch((err: unknown) => {
    redis.disconnect();
    throw err;
  });
  if (sql === null) {
    redis.disconnect();
    return;
  }
  const { schema, url: database } = freshSchema('mg_team');
  const prefix = `mgtest:${schema}:`;
  cleanups.push(async () => {
    await dropSchema(sql, schema);
    await sql.end();
    await dropPrefix(redis, prefix);
    redis.disconnect();
  });
  const up: MockUpstream = await startMockUpstream();
  cleanups.push(() => up.close());
  up.configure({ latencyMs: 50 });
  const yaml = config(up.url, `database: "${database}"\nredis: ${REDIS_URL}`);
  const gateways: GatewayProcess[] = [];
  for (let i = 0; i < 2; i++) {
    const gw = await startGateway({ configYaml: yaml, env: { MODELGATE_REDIS_PREFIX: prefix } });
    gateways.push(gw);
    cleanups.push(() => gw.cleanup());
  }
  const [a, b] = gateways;
  const budgetNanos = FITS * worstCase();
  const created = await admin(a, 'POST', '/admin/teams', { name: 'platform', budget_usd: budgetNanos / 1e9 });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const keys = await teamKeys(a, 'platform');
  // The second replica knows the team once it has reloaded the keys (a team change moves their version).
  await waitUntil(async () => {
    const self = await fetch(`${b.url}/api/usage/token`, { headers: { authorization: `Bearer ${keys[1]}` } });
    const data = ((await self.json()) as { data?: { team?: { name: string } | null } }).data;
    return data?.team?.name === 'platform';
  }, 'the second replica to know the team');

  const served = checkRefusals(await spend(gateways, keys));
  assert.ok(served >= FITS, `the ${FITS} requests the team budget fits are served (got ${served})`);
  assert.ok(served < PARALLEL, `the team's budget refuses what the keys' own budgets would serve (got ${served})`);

  const q = sql.unsafe.bind(sql);
  await waitUntil(
    async () => Number((await q(`SELECT COUNT(*)::int AS n FROM "${schema}".usage`))[0].n) === PARALLEL,
    'every usage row of both gateways',
  );
  const [rows] = await q(`SELECT COALESCE(SUM(cost_nanos), 0)::text AS nanos FROM "${schema}".usage`);
  const [teamSpend] = await q(
    `SELECT COALESCE(SUM(spent_nanos), 0)::text AS nanos FROM "${schema}".key_spend WHERE key_id = $1`,
    [`team:${created.body.id}`],
  );
  assert.equal(Number(teamSpend.nanos), Number(rows.nanos), "the team's total is the sum of its keys' rows");
  assert.ok(Number(teamSpend.nanos) <= budgetNanos, `team spend ${teamSpend.nanos} ≤ budget ${budgetNanos}`);
  const [cheapest] = await q(`SELECT MIN(cost_nanos)::text AS n FROM "${schema}".usage WHERE status = 200`);
  assert.ok(served <= Math.floor(budgetNanos / Number(cheapest.n)), 'no more served than the team budget pays for');
});

test('the CLI manages teams as the API does: made, changed and deleted by the OS user, in the audit trail', async () => {
  const up: MockUpstream = await startMockUpstream();
  cleanups.push(() => up.close());
  const gw = await startGateway({ configYaml: config(up.url, 'database: "{{DB}}"') });
  cleanups.push(() => gw.cleanup());
  const made = JSON.parse(
    await gw.cli(['teams', 'create', '--name', 'research', '--budget-usd', '2.5', '--rpm', '60', '--json']),
  ) as { id: string; budget_usd: number; rpm: number };
  assert.deepEqual([made.budget_usd, made.rpm], [2.5, 60]);
  await gw.createKey({ name: 'notebook', flags: ['--team', 'research'] });
  const viaApi = await admin(gw, 'GET', `/admin/teams/${made.id}`);
  assert.equal(viaApi.status, 200);
  assert.deepEqual([viaApi.body.name, viaApi.body.keys], ['research', 1]);
  const changed = JSON.parse(
    await gw.cli(['teams', 'update', 'research', '--budget-usd', 'none', '--models', 'gpt-team', '--json']),
  ) as { budget_usd: number | null; models: string[] };
  assert.deepEqual([changed.budget_usd, changed.models], [null, ['gpt-team']]);
  await assert.rejects(gw.cli(['teams', 'delete', 'research']), /still has 1 key \(notebook\)/);
  await gw.cli(['keys', 'update', 'notebook', '--team', 'none']);
  await gw.cli(['teams', 'delete', 'research']);
  const trail = await admin(gw, 'GET', '/admin/audit?target_kind=team');
  const entries = trail.body.data as { action: string; actor: { kind: string } }[];
  assert.deepEqual(entries.map((e) => e.action).sort(), ['team.create', 'team.delete', 'team.update']);
  assert.ok(
    entries.every((e) => e.actor.kind === 'cli'),
    JSON.stringify(entries),
  );
});

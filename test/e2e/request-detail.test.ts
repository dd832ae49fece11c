// The request log for incidents, on SQLite and on PostgreSQL: a request that failed on both deployments of
// its model opens into its detail (GET /admin/requests/{id}) with the upstream's message as the caller saw
// it, the provider key an upstream echoed masked, and each deployment tried; the listing's filters work and
// a filter or value the log does not know is a 400 naming it.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startMockUpstream } from '../helpers/mock-upstream.ts';
import type { MockUpstream } from '../helpers/mock-upstream-types.ts';
import { startGateway, configYaml, type GatewayProcess } from '../helpers/gateway-process.ts';
import { dropSchema, freshSchema, pgClient, pgUnavailable } from '../helpers/postgres.ts';
import { validateOpenAIError } from '../helpers/schemas.ts';

const PROVIDER_KEY = 'sk-proj-Incident7fzLw2mXc9RtUb4Hn6JkPa1Vy8Ds3Ge';
const ADMIN = 'adm-incidents-0123456789abcdef';
const PIECE = 12;

/** Fails when any 12-character piece of the provider key (any case) is in `text`. */
function assertNoKeyPiece(text: string, where: string): void {
  const lower = text.toLowerCase();
  for (let i = 0; i + PIECE <= PROVIDER_KEY.length; i++) {
    const piece = PROVIDER_KEY.slice(i, i + PIECE).toLowerCase();
    assert.ok(!lower.includes(piece), `${where} holds a piece of the provider key: ${piece}\n${text.slice(0, 2000)}`);
  }
}

interface Detail {
  id: number;
  request_id: string;
  time: string;
  key_name: string | null;
  key_masked: string | null;
  team: string | null;
  endpoint: string;
  model: string;
  deployment: string | null;
  status: number;
  attempts: number;
  error_code: string | null;
  error_message: string | null;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  cost_breakdown: unknown[];
  attempt_log: { deployment: string; status: number | null; outcome: string; duration_ms: number }[];
}

function scenario(name: string, database: () => string): void {
  describe(`request log for incidents: ${name}`, () => {
    let up: MockUpstream;
    let gw: GatewayProcess;
    let key: string;
    let otherKey: string;

    const admin = async (path: string) => {
      const res = await fetch(gw.url + path, { headers: { authorization: `Bearer ${ADMIN}` } });
      const text = await res.text();
      return { status: res.status, text, json: JSON.parse(text) as unknown };
    };
    const chat = async (auth: string, model: string) => {
      const res = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hello' }] }),
      });
      const text = await res.text();
      return { status: res.status, text, requestId: res.headers.get('x-request-id') ?? '' };
    };

    test('setup: a model with two deployments whose upstreams fail, echoing the provider key', async () => {
      up = await startMockUpstream();
      // The first deployment (priority 0) answers 500, the second 429: both bodies quote the provider key.
      up.setBehaviour((req) => {
        const model = (req.json as { model?: string } | undefined)?.model;
        if (model === 'up-first')
          return {
            kind: 'status',
            status: 500,
            body: { error: { message: `internal failure while using ${PROVIDER_KEY}`, type: 'server_error' } },
          };
        if (model === 'up-second')
          return {
            kind: 'status',
            status: 429,
            body: {
              error: {
                message: `Rate limit reached for organisation alpha; key ${PROVIDER_KEY.toUpperCase()} is throttled`,
                type: 'requests',
                code: 'rate_limit_exceeded',
              },
            },
          };
        return undefined;
      });
      gw = await startGateway({
        env: { ADMIN_TOKEN: ADMIN },
        configYaml: configYaml({
          providers: `  - { name: first, kind: openai, base_url: "${up.url}/v1", api_key: "${PROVIDER_KEY}" }
  - { name: second, kind: openai, base_url: "${up.url}/v1", api_key: "${PROVIDER_KEY}" }`,
          models: `  - name: flaky
    max_retries: 1
    price: { input: 1, output: 2 }
    deployments:
      - { provider: first, model: up-first, priority: 0 }
      - { provider: second, model: up-second, priority: 1 }
  - { name: steady, price: { input: 1, output: 2 }, deployments: [ { provider: first, model: up-steady } ] }`,
          extra: 'admin_token: "${ADMIN_TOKEN}"',
        }).replace('{{DB}}', database()),
      });
      key = (await gw.createKey({ name: 'incident-key', flags: ['--team', 'payments'] })).key;
      otherKey = (await gw.createKey({ name: 'bystander' })).key;
    });

    test('a failed request opens into its detail: the upstream message masked, both deployments tried', async () => {
      const failed = await chat(key, 'flaky');
      // Every deployment failed: the gateway answers 502 with the last upstream's words.
      assert.equal(failed.status, 502, failed.text);
      assert.match(failed.requestId, /^req_/);
      assertNoKeyPiece(failed.text, 'the answer');

      const r = await admin(`/admin/requests/${failed.requestId}`);
      assert.equal(r.status, 200, r.text);
      assertNoKeyPiece(r.text, 'the request detail');
      const d = r.json as Detail;
      assert.equal(d.request_id, failed.requestId);
      assert.equal(d.key_name, 'incident-key');
      assert.equal(d.key_masked, `${key.slice(0, 4)}…${key.slice(-4)}`);
      assert.ok(!r.text.includes(key), 'never the whole key');
      assert.equal(d.team, 'payments');
      assert.equal(d.endpoint, '/v1/chat/completions');
      assert.equal(d.model, 'flaky');
      assert.equal(d.status, 502);
      assert.equal(d.error_code, 'upstream_error');
      assert.equal(d.attempts, 2);
      // The caller's message, as the caller got it: the upstream's text with the key masked.
      const callerMessage = (JSON.parse(failed.text) as { error: { message: string } }).error.message;
      assert.equal(d.error_message, callerMessage);
      assert.match(d.error_message ?? '', /Rate limit reached for organisation alpha; key SK-P…\w{4} is throttled/);
      assert.deepEqual(
        d.attempt_log.map((a) => [a.deployment, a.status, a.outcome]),
        [
          ['flaky#0', 500, 'status_500'],
          ['flaky#1', 429, 'status_429'],
        ],
      );
      for (const a of d.attempt_log) assert.ok(Number.isInteger(a.duration_ms) && a.duration_ms >= 0);
      assert.equal(d.input_tokens, 0);
      assert.equal(d.cost_usd, 0);
      assert.ok(Date.parse(d.time) > 0);

      // The same row by the listing's id; the listing carries the message too.
      const byRow = await admin(`/admin/requests/${d.id}`);
      assert.equal((byRow.json as Detail).request_id, failed.requestId);
      const listed = (await admin(`/admin/requests?request_id=${failed.requestId}`)).json as { data: Detail[] };
      assert.equal(listed.data.length, 1);
      assert.equal(listed.data[0].error_message, callerMessage);
      assert.equal(listed.data[0].team, 'payments');
    });

    test('a success shows its one attempt, its token classes and its cost', async () => {
      const ok = await chat(key, 'steady');
      assert.equal(ok.status, 200, ok.text);
      const d = (await admin(`/admin/requests/${ok.requestId}`)).json as Detail;
      assert.equal(d.status, 200);
      assert.equal(d.error_message, null);
      assert.deepEqual(
        d.attempt_log.map((a) => [a.deployment, a.status, a.outcome]),
        [['steady#0', 200, 'answer']],
      );
      assert.ok(d.input_tokens > 0 && d.output_tokens > 0);
      assert.ok(d.cost_usd > 0);
      assert.ok(d.cost_breakdown.length >= 2, 'input and output lines');
      const missing = await admin('/admin/requests/req_not_in_the_log');
      assert.equal(missing.status, 404);
      validateOpenAIError(missing.json);
      assert.equal((await admin(`/admin/requests/${ok.requestId}?verbose=1`)).status, 400);
    });

    test('filters: time range, status code or class, endpoint, key, team, model, substring, request id', async () => {
      assert.equal((await chat(otherKey, 'steady')).status, 200);
      const ids = async (query: string): Promise<string[]> => {
        const r = await admin(`/admin/requests?${query}`);
        assert.equal(r.status, 200, `${query}: ${r.text}`);
        return (r.json as { data: Detail[] }).data.map((x) => `${x.key_name}:${x.model}:${x.status}`);
      };
      assert.deepEqual(await ids('status=5xx'), ['incident-key:flaky:502']);
      assert.deepEqual(await ids('status=502'), ['incident-key:flaky:502']);
      assert.deepEqual(await ids('status=500'), []);
      assert.deepEqual(await ids('status=4xx'), []);
      assert.deepEqual(await ids('team=payments&status=2xx'), ['incident-key:steady:200']);
      assert.deepEqual(await ids('key=bystander'), ['bystander:steady:200']);
      assert.deepEqual(await ids('model=flaky'), ['incident-key:flaky:502']);
      assert.deepEqual(await ids('q=ORGANISATION%20alpha'), ['incident-key:flaky:502'], 'q reads the message');
      assert.equal((await ids('endpoint=/v1/chat/completions')).length, 3);
      assert.deepEqual(await ids('endpoint=/v1/messages'), []);
      assert.deepEqual(await ids('errors=true'), ['incident-key:flaky:502']);
      const future = new Date(Date.now() + 3_600_000).toISOString();
      assert.deepEqual(await ids(`from=${future}`), []);
      assert.equal((await ids(`to=${future}`)).length, 3);
      assert.deepEqual(await ids('to=2020-01-01'), []);

      for (const [query, param] of [
        ['status=403x', 'status'],
        ['status=6xx', 'status'],
        ['from=yesterday', 'from'],
        ['to=soon', 'to'],
        ['limit=0', 'limit'],
        ['before=-1', 'before'],
        ['errors=maybe', 'errors'],
        ['endpoint=chat', 'endpoint'],
        ['teams=payments', 'teams'],
        ['status=4xx&status=5xx', 'status'],
      ]) {
        const r = await admin(`/admin/requests?${query}`);
        assert.equal(r.status, 400, query);
        validateOpenAIError(r.json);
        assert.equal((r.json as { error: { param: string | null } }).error.param, param, query);
        assert.match((r.json as { error: { message: string } }).error.message, new RegExp(param), query);
      }
    });

    test('a stream cut after its first events: the detail says what the caller’s stream ended with', async () => {
      up.enqueue({ kind: 'cut-stream', afterEvents: 2 });
      const res = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${otherKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'steady', stream: true, messages: [{ role: 'user', content: 'hello' }] }),
      });
      const text = await res.text();
      assert.equal(res.status, 200, 'committed before the cut');
      const d = (await admin(`/admin/requests/${res.headers.get('x-request-id')}`)).json as Detail;
      assert.equal(d.status, 502, text);
      assert.equal(d.error_code, 'upstream_error');
      assert.match(d.error_message ?? '', /stream/);
      assert.deepEqual(
        d.attempt_log.map((a) => [a.deployment, a.status, a.outcome]),
        [['steady#0', 200, 'answer']],
      );
    });

    test('the key list says when each key was last used', async () => {
      const { data } = (await admin('/admin/keys')).json as { data: { name: string; last_used_at: string | null }[] };
      const used = data.find((k) => k.name === 'incident-key');
      assert.ok(used?.last_used_at !== null && Date.parse(used?.last_used_at ?? '') > 0, JSON.stringify(used));
      const fresh = (await gw.createKey({ name: 'never-used' })).id;
      const again = (await admin('/admin/keys')).json as { data: { id: string; last_used_at: string | null }[] };
      assert.equal(again.data.find((k) => k.id === fresh)?.last_used_at, null);
    });

    after(async () => {
      await gw?.cleanup();
      await up?.close();
    });
  });
}

scenario('SQLite', () => '{{DB}}');

const pg = await pgClient();
if (pg === null) pgUnavailable('request log for incidents: PostgreSQL');
else {
  const { schema, url } = freshSchema('mg_incidents');
  after(async () => {
    await dropSchema(pg, schema);
    await pg.end();
  });
  scenario('PostgreSQL', () => url);
}

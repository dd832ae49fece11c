// The public OpenResponses compliance suite (test/helpers/openresponses-suite.ts, ported from
// github.com/openresponses/openresponses) against the real gateway on three routes: Responses passed through
// to a Responses upstream, and translated to a chat-completions upstream and to an Anthropic Messages
// upstream — each a mock that serves complete replies. Every case passes on every route, except a case that
// asks for something the upstream itself cannot do: that case is listed below with the reason, and the
// gateway must refuse it with a 400 naming the parameter, never answer 200 as if it had been honoured.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';
import { startGateway, configYaml, type GatewayProcess } from '../helpers/gateway-process.ts';
import { SUITE_CASES, runCase, type SuiteConfig } from '../helpers/openresponses-suite.ts';

const SECRET = 'sk-upstream-secret-0123456789abcdefXYZ';
const ROUTES = {
  'pass-through': 'or-responses',
  'translated to chat': 'or-chat',
  'translated to messages': 'or-messages',
} as const;
type Route = keyof typeof ROUTES;

/** Cases a route's upstream cannot serve: the reason, and the parameter the gateway's 400 names. */
const UPSTREAM_CANNOT: Partial<Record<Route, Record<string, { reason: string; param: string }>>> = {};

let up: MockUpstream;
let gw: GatewayProcess;
let key: string;
before(async () => {
  up = await startMockUpstream();
  gw = await startGateway({
    configYaml: configYaml({
      providers: `  - { name: native, kind: openai, apis: [responses], base_url: "${up.url}/v1", api_key: "${SECRET}" }
  - { name: chat, kind: openai, base_url: "${up.url}/v1", api_key: "${SECRET}" }
  - { name: claude, kind: anthropic, base_url: "${up.url}", api_key: "${SECRET}" }`,
      models: `  - { name: or-responses, deployments: [ { provider: native, model: gpt-up-native } ] }
  - { name: or-chat, deployments: [ { provider: chat, model: gpt-up-chat } ] }
  - { name: or-messages, deployments: [ { provider: claude, model: claude-up } ] }`,
    }),
  });
  ({ key } = await gw.createKey({ name: 'openresponses' }));
});
after(async () => {
  await gw?.cleanup();
  await up?.close();
});

for (const [route, model] of Object.entries(ROUTES) as [Route, string][]) {
  for (const c of SUITE_CASES) {
    const cannot = UPSTREAM_CANNOT[route]?.[c.id];
    if (c.skippedBySuite !== undefined) {
      test(`${route}: ${c.id} — skipped by the suite itself (${c.skippedBySuite})`, { skip: c.skippedBySuite });
      continue;
    }
    if (cannot !== undefined) {
      test(`${route}: ${c.id} — the upstream cannot (${cannot.reason}): 400 naming ${cannot.param}`, async () => {
        const config: SuiteConfig = { baseUrl: `${gw.url}/v1`, apiKey: key, model };
        assert.ok(c.request, 'a case the gateway refuses has a single request');
        const res = await fetch(`${config.baseUrl}${c.endpoint ?? '/responses'}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(c.request(config)),
        });
        const body = (await res.json()) as { error?: { param?: string; message?: string } };
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.ok(
          body.error?.param === cannot.param || body.error?.message?.includes(cannot.param),
          `the error names ${cannot.param}: ${JSON.stringify(body)}`,
        );
      });
      continue;
    }
    test(`${route}: ${c.id} passes`, async () => {
      const result = await runCase(c, { baseUrl: `${gw.url}/v1`, apiKey: key, model });
      assert.deepEqual(result.errors, []);
      assert.equal(result.status, 'passed');
    });
  }
}

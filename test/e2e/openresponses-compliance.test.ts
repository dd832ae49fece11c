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

/**
 * Cases a route's upstream cannot serve: the reason, and the parameter the gateway's 400 names. The
 * suite itself skips these two unless a vector store or an offline web index is configured; on a
 * translated route they ask for OpenAI's hosted tools by `tool_choice`, which no other provider runs.
 */
const HOSTED_FILE_SEARCH = { reason: 'file_search is a tool OpenAI hosts', param: 'tool_choice' };
const HOSTED_WEB_SEARCH = { reason: 'web_search is a tool OpenAI hosts', param: 'tool_choice' };
const UPSTREAM_CANNOT: Partial<Record<Route, Record<string, { reason: string; param: string }>>> = {
  'translated to chat': { 'file-search': HOSTED_FILE_SEARCH, 'offline-web-search': HOSTED_WEB_SEARCH },
  'translated to messages': { 'file-search': HOSTED_FILE_SEARCH, 'offline-web-search': HOSTED_WEB_SEARCH },
};

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

function post(path: string, body: unknown): Promise<Response> {
  return fetch(`${gw.url}/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

for (const [route, model] of Object.entries(ROUTES) as [Route, string][]) {
  for (const c of SUITE_CASES) {
    const cannot = UPSTREAM_CANNOT[route]?.[c.id];
    if (cannot !== undefined) {
      test(`${route}: ${c.id} — the upstream cannot (${cannot.reason}): a 400 naming ${cannot.param}`, async () => {
        const config: SuiteConfig = { baseUrl: `${gw.url}/v1`, apiKey: key, model, fileSearchVectorStoreId: 'vs_1' };
        assert.ok(c.request, 'a case the gateway refuses has one request');
        up.reset();
        const res = await post(c.endpoint ?? '/responses', c.request(config));
        const body = (await res.json()) as { error?: { param?: string; message?: string } };
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(body.error?.param, cannot.param, JSON.stringify(body));
        assert.equal(up.requests.length, 0, 'nothing reached the upstream');
      });
      continue;
    }
    if (c.skippedBySuite !== undefined) {
      test(`${route}: ${c.id} — skipped by the suite itself`, { skip: c.skippedBySuite });
      continue;
    }
    test(`${route}: ${c.id} passes`, async () => {
      const result = await runCase(c, { baseUrl: `${gw.url}/v1`, apiKey: key, model });
      assert.deepEqual(result.errors, []);
      assert.equal(result.status, 'passed');
    });
  }
}

// `assistant-phase` passes on every route; where the upstream has no message phase, the reply says what
// it left out rather than dropping it unsaid.
for (const route of ['translated to chat', 'translated to messages'] as const) {
  test(`${route}: assistant messages' phase is named in x-modelgate-adjusted`, async () => {
    const config: SuiteConfig = { baseUrl: `${gw.url}/v1`, apiKey: key, model: ROUTES[route] };
    const request = SUITE_CASES.find((c) => c.id === 'assistant-phase')?.request;
    assert.ok(request);
    const res = await post('/responses', request(config));
    await res.arrayBuffer();
    assert.equal(res.status, 200);
    assert.match(res.headers.get('x-modelgate-adjusted') ?? '', /input\[\]\.phase dropped/);
  });
}

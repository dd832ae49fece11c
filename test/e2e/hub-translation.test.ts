// Issue 35 end to end, what the hub adds: prompt-cache markers of a chat request reach an Anthropic-style
// upstream and its cache reads and writes are billed at their prices; a deployment's refused parameters
// are left out of what it is sent, translated or passed through, and named to the caller.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startGateway, configYaml, waitUntil, type GatewayProcess } from '../helpers/gateway-process.ts';
import { startMockUpstream } from '../helpers/mock-upstream.ts';
import type { MockUpstream } from '../helpers/mock-upstream-types.ts';
import { usageRows } from '../admission/usage-db.ts';

const PRICE = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
let up: MockUpstream;
let gw: GatewayProcess;
let key: string;
let keyId: string;

before(async () => {
  up = await startMockUpstream({ cacheReadTokens: 1000, cacheWriteTokens: 200 });
  gw = await startGateway({
    configYaml: configYaml({
      providers: `  - { name: up, kind: openai, base_url: "${up.url}/v1", api_key: "sk-upstream-0123456789abcdef" }
  - { name: upa, kind: anthropic, base_url: "${up.url}", api_key: "sk-upstream-0123456789abcdef" }`,
      models: `  - { name: gpt-cached, price: { input: ${PRICE.input}, output: ${PRICE.output}, cache_read: ${PRICE.cacheRead}, cache_write: ${PRICE.cacheWrite} }, deployments: [ { provider: upa, model: claude-up, refused_params: [top_p] } ] }
  - { name: claude-via-o3, deployments: [ { provider: up, model: o3, refused_params: [temperature] } ] }
  - { name: claude-strict, deployments: [ { provider: upa, model: claude-up-2, refused_params: [temperature, top_k] } ] }`,
    }),
  });
  ({ key, id: keyId } = await gw.createKey({ name: 'hub' }));
});
after(async () => {
  await gw.cleanup();
  await up.close();
});

async function post(
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; json: Record<string, unknown> }> {
  const res = await fetch(gw.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, json: (await res.json()) as Record<string, unknown> };
}

test('chat → Anthropic upstream: cache_control markers arrive where they were, cache tokens are billed at their prices', async () => {
  const eph = { type: 'ephemeral' };
  const res = await post('/v1/chat/completions', {
    model: 'gpt-cached',
    top_p: 0.5,
    messages: [
      { role: 'system', content: [{ type: 'text', text: 'A long system prompt.', cache_control: eph }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'A long document.', cache_control: eph },
          { type: 'text', text: 'Summarise it.' },
        ],
      },
    ],
    tools: [
      {
        type: 'function',
        function: { name: 'lookup', parameters: { type: 'object', properties: {} } },
        cache_control: eph,
      },
    ],
  });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('x-modelgate-adjusted'), "top_p left out: the deployment's model refuses it");
  const sent = up.requests.at(-1)!.json as Record<string, unknown> & { messages: Array<{ content: unknown }> };
  assert.deepEqual(sent.system, [{ type: 'text', text: 'A long system prompt.', cache_control: eph }]);
  assert.deepEqual((sent.tools as Array<{ cache_control?: unknown }>)[0].cache_control, eph);
  assert.deepEqual(sent.messages[0].content, [
    { type: 'text', text: 'A long document.', cache_control: eph },
    { type: 'text', text: 'Summarise it.' },
  ]);
  assert.equal(sent.top_p, undefined);
  const usage = res.json.usage as { prompt_tokens: number; prompt_tokens_details: { cached_tokens: number } };
  assert.equal(usage.prompt_tokens_details.cached_tokens, 1000);
  await waitUntil(() => usageRows(gw.dbPath, keyId).length >= 1, 'the usage row');
  const row = usageRows(gw.dbPath, keyId)[0];
  assert.equal(row.cache_read_tokens, 1000);
  assert.equal(row.cache_write_tokens, 200);
  const nanos =
    row.input_tokens * PRICE.input * 1000 +
    row.output_tokens * PRICE.output * 1000 +
    1000 * PRICE.cacheRead * 1000 +
    200 * PRICE.cacheWrite * 1000;
  assert.equal(row.cost_nanos, Math.round(nanos));
});

test('messages → OpenAI-style upstream that refuses temperature: left out, and the caller is told', async () => {
  const res = await post(
    '/v1/messages',
    { model: 'claude-via-o3', max_tokens: 50, temperature: 0.2, messages: [{ role: 'user', content: 'Hi' }] },
    { 'anthropic-version': '2023-06-01' },
  );
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('x-modelgate-adjusted'), "temperature left out: the deployment's model refuses it");
  const sent = up.requests.at(-1)!;
  assert.equal(sent.path, '/v1/chat/completions');
  assert.equal((sent.json as Record<string, unknown>).temperature, undefined);
});

test('pass-through to an Anthropic-style upstream that refuses temperature and top_k: both left out, the rest as sent', async () => {
  const res = await post(
    '/v1/messages',
    {
      model: 'claude-strict',
      max_tokens: 50,
      temperature: 0.2,
      top_k: 5,
      top_p: 0.9,
      messages: [{ role: 'user', content: 'Hi' }],
    },
    { 'anthropic-version': '2023-06-01' },
  );
  assert.equal(res.status, 200);
  assert.equal(
    res.headers.get('x-modelgate-adjusted'),
    "temperature left out: the deployment's model refuses it; top_k left out: the deployment's model refuses it",
  );
  const sent = up.requests.at(-1)!.json as Record<string, unknown>;
  assert.equal(sent.model, 'claude-up-2');
  assert.equal(sent.temperature, undefined);
  assert.equal(sent.top_k, undefined);
  assert.equal(sent.top_p, 0.9);
});

test('messages → OpenAI-style upstream: a mid-conversation system message arrives as a system message at its position', async () => {
  const res = await post(
    '/v1/messages',
    {
      model: 'claude-via-o3',
      max_tokens: 50,
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'system', content: 'Be brief.' },
        { role: 'assistant', content: 'Hello' },
        { role: 'user', content: 'Go' },
      ],
    },
    { 'anthropic-version': '2023-06-01' },
  );
  assert.equal(res.status, 200);
  const sent = up.requests.at(-1)!.json as { messages: Array<{ role: string; content: unknown }> };
  assert.deepEqual(
    sent.messages.map((m) => m.role),
    ['user', 'system', 'assistant', 'user'],
  );
  assert.equal(sent.messages[1].content, 'Be brief.');
});

// POST /v1/responses/compact through the real gateway: passed through to a native Responses upstream's own
// endpoint, and served on a chat-only route and on the built-in mock by a summarising turn whose answer is a
// `response.compaction` object Codex reads back; billed as any request.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';
import { startGateway, configYaml, type GatewayProcess } from '../helpers/gateway-process.ts';

let up: MockUpstream;
let gw: GatewayProcess;
let key: string;
before(async () => {
  up = await startMockUpstream();
  gw = await startGateway({
    configYaml: configYaml({
      providers: `  - { name: native, kind: openai, base_url: "${up.url}/v1", api_key: "sk-upstream-secret-0123456789abcdefXYZ", apis: [responses] }
  - { name: chat, kind: openai, base_url: "${up.url}/v1", api_key: "sk-upstream-secret-0123456789abcdefXYZ" }`,
      models: `  - { name: gpt-native, price: { input: 1, output: 2 }, deployments: [ { provider: native, model: gpt-up-native } ] }
  - { name: gpt-chat, price: { input: 1, output: 2 }, deployments: [ { provider: chat, model: gpt-up-chat } ] }
  - { name: gpt-mock, deployments: [ { provider: mock, model: gpt-mock } ] }`,
    }),
  });
  ({ key } = await gw.createKey({ name: 'compact' }));
});
after(async () => {
  await gw.cleanup();
  await up.close();
});

const HISTORY = [
  { role: 'user', content: 'Write a landing page for a dog cafe.' },
  {
    type: 'message',
    role: 'assistant',
    content: [{ type: 'output_text', text: 'Here is the page: <html>…</html>' }],
  },
  { type: 'function_call', call_id: 'call_1', name: 'shell', arguments: '{"command":["ls"]}' },
  { type: 'function_call_output', call_id: 'call_1', output: 'index.html' },
];

async function compact(body: object): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${gw.url}/v1/responses/compact`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

test('a native Responses upstream gets the body on its own /responses/compact; its answer comes back', async () => {
  up.reset();
  const upstreamAnswer = {
    id: 'resp_cmp_1',
    object: 'response.compaction',
    created_at: 1764967971,
    output: [
      {
        id: 'msg_0',
        type: 'message',
        status: 'completed',
        role: 'user',
        content: [{ type: 'input_text', text: 'hi' }],
      },
      { id: 'cmp_1', type: 'compaction', encrypted_content: 'gAAAAB-opaque' },
    ],
    usage: {
      input_tokens: 139,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 40,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 179,
    },
  };
  up.setBehaviour((r) =>
    r.path === '/v1/responses/compact' ? { kind: 'status', status: 200, body: upstreamAnswer } : undefined,
  );
  const { status, json } = await compact({ model: 'gpt-native', input: HISTORY, instructions: 'You are Codex.' });
  assert.equal(status, 200, JSON.stringify(json));
  assert.deepEqual(json.output, upstreamAnswer.output, 'the opaque compaction item unchanged');
  const seen = up.requests.filter((r) => r.path === '/v1/responses/compact');
  assert.equal(seen.length, 1);
  assert.deepEqual(seen[0].json, { model: 'gpt-up-native', input: HISTORY, instructions: 'You are Codex.' });
  assert.ok(!up.requests.some((r) => r.path === '/v1/responses'), 'no summarising turn');
});

test('a chat-only route: the model summarises; the answer is a compaction object of user messages and a compaction item', async () => {
  up.reset();
  up.configure({ replyText: 'The user wants a dog cafe page; index.html exists.' });
  const { status, json } = await compact({ model: 'gpt-chat', input: HISTORY, instructions: 'You are Codex.' });
  assert.equal(status, 200, JSON.stringify(json));
  assert.equal(json.object, 'response.compaction');
  assert.match(String(json.id), /^resp_/);
  const output = json.output as Record<string, unknown>[];
  const { id, ...kept } = output[0];
  assert.match(String(id), /^msg_/);
  assert.deepEqual(kept, {
    type: 'message',
    status: 'completed',
    role: 'user',
    content: [{ type: 'input_text', text: 'Write a landing page for a dog cafe.' }],
  });
  assert.equal(output.length, 2);
  assert.equal(output[1].type, 'compaction');
  assert.match(String(output[1].id), /^cmp_/);
  assert.match(String(output[1].encrypted_content), /^mgw1\.summary\./);
  const usage = json.usage as { input_tokens: number; output_tokens: number };
  assert.ok(usage.input_tokens > 0 && usage.output_tokens > 0);
  const sent = up.requests.find((r) => r.path === '/v1/chat/completions')?.json as {
    model: string;
    messages: { role: string; content: unknown }[];
    tools?: unknown;
  };
  assert.equal(sent.model, 'gpt-up-chat');
  assert.equal(sent.messages[0].role, 'system');
  assert.match(JSON.stringify(sent.messages.at(-1)), /Summarise the conversation/);
  assert.ok(JSON.stringify(sent.messages).includes('index.html'), 'the history went to the model');

  // The compacted history is a valid next turn on the same route.
  const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key });
  const next = await client.responses.create({
    model: 'gpt-chat',
    input: [...(json.output as OpenAI.Responses.ResponseInputItem[]), { role: 'user', content: 'Go on.' }],
  });
  assert.equal(next.status, 'completed');
  const resent = JSON.stringify(up.requests.at(-1)?.json);
  assert.match(
    resent,
    /Summary of the conversation so far[^"]*dog cafe page; index\.html exists\./,
    'the summary reached the model',
  );
});

test('the built-in mock answers a compaction too; streaming is refused with a 400 naming it', async () => {
  const { status, json } = await compact({ model: 'gpt-mock', input: 'hello' });
  assert.equal(status, 200, JSON.stringify(json));
  assert.equal(json.object, 'response.compaction');
  const refused = await compact({ model: 'gpt-mock', input: 'hello', stream: true });
  assert.equal(refused.status, 400);
  assert.equal((refused.json.error as { param: string }).param, 'stream');
});

test('compactions are billed: usage rows name the endpoint and carry the tokens', async () => {
  await gw.stop();
  const out = await gw.cli(['usage', '--group-by', 'model', '--json']);
  await gw.restart();
  assert.match(out, /gpt-chat/);
  assert.match(out, /gpt-native/);
});

// The Conversations API through the real gateway: the Agents SDK's OpenAIConversationsSession over two runs
// on a translated route (Responses caller → chat completions upstream), `conversation` on /v1/responses
// (stored items in front, the turn appended), and per-key ownership (another key's id is a 404).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { Agent, run, setDefaultOpenAIClient, setTracingDisabled, OpenAIConversationsSession } from '@openai/agents';
import { startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';
import { startGateway, configYaml, type GatewayProcess } from '../helpers/gateway-process.ts';

let up: MockUpstream;
let gw: GatewayProcess;
let client: OpenAI;
let other: OpenAI;
before(async () => {
  up = await startMockUpstream();
  gw = await startGateway({
    configYaml: configYaml({
      providers: `  - { name: chat, kind: openai, base_url: "${up.url}/v1", api_key: "sk-upstream-secret-0123456789abcdefXYZ" }`,
      models: `  - { name: gpt-chat, deployments: [ { provider: chat, model: gpt-up-chat } ] }`,
    }),
  });
  const { key } = await gw.createKey({ name: 'conversations' });
  const { key: otherKey } = await gw.createKey({ name: 'other' });
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
  other = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: otherKey, maxRetries: 0 });
});
after(async () => {
  await gw.cleanup();
  await up.close();
});

/** Every text the upstream saw in one chat request's messages. */
function seenText(i: number): string {
  return JSON.stringify((up.requests[i].json as { messages: unknown[] }).messages);
}

test("the Agents SDK's OpenAIConversationsSession over two runs on a translated route", async () => {
  up.reset();
  setTracingDisabled(true);
  setDefaultOpenAIClient(client);
  const session = new OpenAIConversationsSession({ client });
  const agent = new Agent({ name: 'Helper', instructions: 'Be brief.', model: 'gpt-chat' });
  up.configure({ replyText: 'Noted: your name is Ada.' });
  const first = await run(agent, 'My name is Ada.', { session });
  assert.match(String(first.finalOutput), /Ada/);
  up.configure({ replyText: 'You told me before.' });
  const second = await run(agent, 'What is my name?', { session });
  assert.match(String(second.finalOutput), /before/);
  const chats = up.requests.filter((r) => r.path === '/v1/chat/completions');
  assert.equal(chats.length, 2);
  const last = up.requests.indexOf(chats[1]);
  assert.match(seenText(last), /My name is Ada\./, 'the second run carried the first run from the conversation');
  assert.match(seenText(last), /Noted: your name is Ada\./);
  const id = await session.getSessionId();
  const items = await client.conversations.items.list(id, { order: 'asc' });
  assert.equal(items.data.length, 4, JSON.stringify(items.data));
  assert.deepEqual(
    items.data.map((i) => (i as { role?: string }).role),
    ['user', 'assistant', 'user', 'assistant'],
  );
});

test('conversation on /v1/responses: its items go first, the turn is appended, the reply names it', async () => {
  up.reset();
  const conv = await client.conversations.create({
    items: [{ type: 'message', role: 'user', content: 'The password is swordfish.' }],
    metadata: { topic: 'test' },
  });
  assert.match(conv.id, /^conv_/);
  assert.deepEqual(conv.metadata, { topic: 'test' });
  up.configure({ replyText: 'I will remember.' });
  const r1 = await client.responses.create({ model: 'gpt-chat', conversation: conv.id, input: 'Remember it.' });
  assert.deepEqual(r1.conversation, { id: conv.id });
  up.configure({ replyText: 'It is swordfish.' });
  const r2 = await client.responses.create({
    model: 'gpt-chat',
    conversation: { id: conv.id },
    input: 'What is it?',
    stream: true,
  });
  for await (const _ of r2) {
    // drained
  }
  const lastChat = up.requests.length - 1;
  assert.match(seenText(lastChat), /swordfish.*Remember it\..*I will remember\..*What is it\?/s);
  const list = await client.conversations.items.list(conv.id, { order: 'asc', limit: 10 });
  assert.equal(list.data.length, 5);
  const desc = await client.conversations.items.list(conv.id, { limit: 2 });
  assert.equal(desc.data.length, 2);
  assert.equal(desc.has_more, true);
  const item = await client.conversations.items.retrieve(list.data[1].id!, { conversation_id: conv.id });
  assert.equal(item.id, list.data[1].id);
  await client.conversations.items.delete(list.data[1].id!, { conversation_id: conv.id });
  assert.equal((await client.conversations.items.list(conv.id)).data.length, 4);
  const updated = await client.conversations.update(conv.id, { metadata: { topic: 'changed' } });
  assert.deepEqual(updated.metadata, { topic: 'changed' });
  assert.deepEqual((await client.conversations.retrieve(conv.id)).metadata, { topic: 'changed' });
});

test("another key's conversation is a 404 like an unknown one; a missing one is never silently dropped", async () => {
  const conv = await client.conversations.create({});
  for (const call of [
    () => other.conversations.retrieve(conv.id),
    () => other.conversations.items.list(conv.id),
    () => other.conversations.delete(conv.id),
    () => other.conversations.items.create(conv.id, { items: [{ type: 'message', role: 'user', content: 'x' }] }),
    () => client.conversations.retrieve('conv_unknown'),
  ]) {
    await assert.rejects(call, (e: { status?: number }) => e.status === 404);
  }
  await assert.rejects(
    () => other.responses.create({ model: 'gpt-chat', conversation: conv.id, input: 'hi' }),
    (e: { status?: number; param?: string }) => e.status === 404 && e.param === 'conversation',
  );
  await assert.rejects(
    () =>
      client.responses.create({
        model: 'gpt-chat',
        conversation: conv.id,
        previous_response_id: 'resp_x',
        input: 'hi',
      }),
    (e: { status?: number }) => e.status === 400,
  );
  const deleted = await client.conversations.delete(conv.id);
  assert.equal(deleted.deleted, true);
  await assert.rejects(
    () => client.conversations.retrieve(conv.id),
    (e: { status?: number }) => e.status === 404,
  );
});

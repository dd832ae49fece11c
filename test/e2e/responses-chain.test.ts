// Stored Responses chains through the real gateway: each turn stores only what it adds, yet every turn
// sends the whole conversation upstream (a chat upstream here: the chain is the gateway's to keep); a key
// that holds all it may store is refused with a 400 naming the setting before its turn is served, and
// `store: false` still works.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { startMockUpstream } from '../helpers/mock-upstream.ts';
import type { MockUpstream } from '../helpers/mock-upstream-types.ts';
import { startGateway, configYaml, type GatewayProcess } from '../helpers/gateway-process.ts';

const TURNS = 40;
let up: MockUpstream;
let gw: GatewayProcess;
let key: string;
let dbPath: string;

before(async () => {
  up = await startMockUpstream({ replyText: 'noted' });
  gw = await startGateway({
    configYaml: configYaml({
      providers: `  - { name: up, kind: openai, base_url: "${up.url}/v1", api_key: "sk-upstream-0123456789abcdef" }`,
      models: '  - { name: gpt-chat, deployments: [ { provider: up, model: upstream-chat } ] }',
      extra: `responses_store_max_turns_per_key: ${TURNS + 1}`,
    }),
  });
  dbPath = /"database":"([^"]+)"/.exec(gw.logs())?.[1] ?? '';
  ({ key } = await gw.createKey({ name: 'chain' }));
});
after(async () => {
  await gw?.cleanup();
  await up?.close();
});

async function turn(
  body: Record<string, unknown>,
): Promise<{ status: number; json: { id?: string; error?: { code: string; message: string } } }> {
  const r = await fetch(`${gw.url}/v1/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-chat', ...body }),
  });
  return { status: r.status, json: (await r.json()) as { id?: string } };
}

test('a chain of turns stores each turn once and sends the whole conversation every turn', async () => {
  const text = 'y'.repeat(1000);
  let previous: string | undefined;
  for (let i = 0; i < TURNS; i++) {
    const r = await turn({
      input: `${i} ${text}`,
      ...(previous === undefined ? {} : { previous_response_id: previous }),
    });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    previous = r.json.id;
  }
  // The last request upstream carries every turn's input and every answer before it.
  const last = up.requests.at(-1)?.json as { messages: { role: string; content: unknown }[] };
  const users = last.messages.filter((m) => m.role === 'user');
  assert.equal(users.length, TURNS);
  assert.match(JSON.stringify(users[0].content), /^"?0 y/);
  assert.equal(last.messages.filter((m) => m.role === 'assistant').length, TURNS - 1);
  // What is stored grows with the turns: each holds its own 1 kB input, not the conversation again.
  assert.notEqual(dbPath, '', 'the gateway logs its database path');
  {
    const db = new DatabaseSync(dbPath, { readOnly: true });
    try {
      const { bytes } = db.prepare('SELECT SUM(LENGTH(items)) AS bytes FROM responses').get() as { bytes: number };
      assert.ok(bytes < TURNS * 1500, `${bytes} bytes of items for ${TURNS} turns`);
    } finally {
      db.close();
    }
  }
  // The stored response still reads back with its whole conversation.
  const items = await fetch(`${gw.url}/v1/responses/${previous}/input_items?limit=100&order=asc`, {
    headers: { authorization: `Bearer ${key}` },
  });
  assert.equal(items.status, 200);
  const data = ((await items.json()) as { data: unknown[] }).data;
  assert.equal(data.length, TURNS * 2 - 1, 'every input and every earlier answer');
});

test('past the per-key quota a stored turn is refused with a 400 naming the setting; store: false is served', async () => {
  const first = await turn({ input: 'one more' });
  assert.equal(first.status, 200, JSON.stringify(first.json));
  const refused = await turn({ input: 'and another' });
  assert.equal(refused.status, 400);
  assert.equal(refused.json.error?.code, 'stored_responses_quota_exceeded');
  assert.match(refused.json.error?.message ?? '', /responses_store_max_turns_per_key/);
  const unstored = await turn({ input: 'not kept', store: false });
  assert.equal(unstored.status, 200, JSON.stringify(unstored.json));
});

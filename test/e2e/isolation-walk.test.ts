// Every route that takes a stored id, walked with another key's id and with an id nobody has: the two answers
// must be the same (status, error type, code and message once the id itself is masked), so a caller learns
// nothing about what other keys store. The owner's own request on each route is the control: it must
// succeed, or the walk would be comparing two kinds of "absent".
//
// Responses over WebSocket takes the id as a frame field: another key's answers with the same error frame
// as an unknown one.
//
// POST /v1/responses/input_tokens with another key's previous_response_id answers as POST /v1/responses
// does for an unknown one (400 previous_response_not_found): the id is a body field there, not a path
// resource, and counting must not forward another key's stored conversation upstream.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import WebSocket from 'ws';
import { startGateway, configYaml, type GatewayProcess } from '../helpers/gateway-process.ts';

let gw: GatewayProcess;
let owner: string;
let stranger: string;
let responseId: string;
let conversationId: string;
let itemId: string;

before(async () => {
  gw = await startGateway({
    configYaml: configYaml({ models: '  - { name: gpt-mock, deployments: [ { provider: mock, model: gpt-mock } ] }' }),
  });
  ({ key: owner } = await gw.createKey({ name: 'owner' }));
  ({ key: stranger } = await gw.createKey({ name: 'stranger' }));
  const r = await call(owner, 'POST', '/v1/responses', { model: 'gpt-mock', input: 'remember me', store: true });
  assert.equal(r.status, 200, r.text);
  responseId = (r.json as { id: string }).id;
  const c = await call(owner, 'POST', '/v1/conversations', {
    items: [{ type: 'message', role: 'user', content: 'a stored item' }],
  });
  assert.equal(c.status, 200, c.text);
  conversationId = (c.json as { id: string }).id;
  const items = await call(owner, 'GET', `/v1/conversations/${conversationId}/items`);
  assert.equal(items.status, 200, items.text);
  itemId = (items.json as { data: { id: string }[] }).data[0].id;
});
after(async () => gw.cleanup());

interface Answer {
  status: number;
  text: string;
  json: unknown;
}

async function call(key: string, method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${gw.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, text, json };
}

/** The answer with every id (the real one and the made-up one) replaced by a placeholder. */
function masked(a: Answer, ...ids: string[]): string {
  let text = a.text;
  for (const id of ids) text = text.split(id).join('<id>');
  // A request id differs between any two requests.
  return `${a.status} ${text.replace(/"req_[A-Za-z0-9]+"/g, '"<req>"')}`;
}

/** An id of the same shape as `real`, stored by nobody. */
function unknownLike(real: string): string {
  const cut = real.indexOf('_') + 1;
  return real.slice(0, cut) + 'f'.repeat(real.length - cut);
}

interface Walk {
  name: string;
  /** The request with `id` in it; the owner's request must succeed (2xx). */
  request: (ids: { response: string; conversation: string; item: string }) => [string, string, unknown?];
  /** The statuses the refusal may take (404 for a path resource, 400 for a body field). */
  refused: number;
}

const WALK: Walk[] = [
  { name: 'GET /v1/responses/{id}', request: (i) => ['GET', `/v1/responses/${i.response}`], refused: 404 },
  {
    name: 'GET /v1/responses/{id}/input_items',
    request: (i) => ['GET', `/v1/responses/${i.response}/input_items`],
    refused: 404,
  },
  {
    name: 'POST /v1/responses (previous_response_id)',
    request: (i) => ['POST', '/v1/responses', { model: 'gpt-mock', input: 'again', previous_response_id: i.response }],
    refused: 400,
  },
  {
    name: 'POST /v1/responses/input_tokens (previous_response_id)',
    request: (i) => [
      'POST',
      '/v1/responses/input_tokens',
      { model: 'gpt-mock', input: 'count me', previous_response_id: i.response },
    ],
    refused: 400,
  },
  {
    name: 'POST /v1/responses/compact (previous_response_id)',
    request: (i) => ['POST', '/v1/responses/compact', { model: 'gpt-mock', previous_response_id: i.response }],
    refused: 400,
  },
  {
    name: 'POST /v1/responses (conversation)',
    request: (i) => ['POST', '/v1/responses', { model: 'gpt-mock', input: 'hi', conversation: i.conversation }],
    refused: 404,
  },
  { name: 'GET /v1/conversations/{id}', request: (i) => ['GET', `/v1/conversations/${i.conversation}`], refused: 404 },
  {
    name: 'POST /v1/conversations/{id}',
    request: (i) => ['POST', `/v1/conversations/${i.conversation}`, { metadata: { k: 'v' } }],
    refused: 404,
  },
  {
    name: 'GET /v1/conversations/{id}/items',
    request: (i) => ['GET', `/v1/conversations/${i.conversation}/items`],
    refused: 404,
  },
  {
    name: 'POST /v1/conversations/{id}/items',
    request: (i) => [
      'POST',
      `/v1/conversations/${i.conversation}/items`,
      { items: [{ type: 'message', role: 'user', content: 'x' }] },
    ],
    refused: 404,
  },
  {
    name: 'GET /v1/conversations/{id}/items/{item_id}',
    request: (i) => ['GET', `/v1/conversations/${i.conversation}/items/${i.item}`],
    refused: 404,
  },
  {
    name: 'DELETE /v1/conversations/{id}/items/{item_id}',
    request: (i) => ['DELETE', `/v1/conversations/${i.conversation}/items/${i.item}`],
    refused: 404,
  },
];

test("another key's id answers exactly as an unknown id, on every route that takes one", async () => {
  const real = { response: responseId, conversation: conversationId, item: itemId };
  const made = {
    response: unknownLike(responseId),
    conversation: unknownLike(conversationId),
    item: unknownLike(itemId),
  };
  const all = [...Object.values(real), ...Object.values(made)];
  for (const walk of WALK) {
    const [method, path, body] = walk.request(real);
    const theirs = await call(stranger, method, path, body);
    const [m2, p2, b2] = walk.request(made);
    const nobody = await call(stranger, m2, p2, b2);
    assert.equal(theirs.status, walk.refused, `${walk.name}: ${theirs.text}`);
    assert.equal(masked(theirs, ...all), masked(nobody, ...all), walk.name);
    // The owner's own request is served: the refusal above is about the key, not the route.
    const mine = await call(owner, method, path, body);
    assert.ok(mine.status >= 200 && mine.status < 300, `${walk.name} (owner): ${mine.status} ${mine.text}`);
  }
});

test("deleting another key's stored state is refused as absent and leaves it in place", async () => {
  for (const path of [`/v1/responses/${responseId}`, `/v1/conversations/${conversationId}`]) {
    const theirs = await call(stranger, 'DELETE', path);
    const nobody = await call(
      stranger,
      'DELETE',
      path.replace(/[^/]+$/, (id) => unknownLike(id)),
    );
    assert.equal(theirs.status, 404, theirs.text);
    const all = [responseId, conversationId, unknownLike(responseId), unknownLike(conversationId)];
    assert.equal(masked(theirs, ...all), masked(nobody, ...all), path);
    const still = await call(owner, 'GET', path);
    assert.equal(still.status, 200, `${path} survived: ${still.text}`);
  }
});

/** The last frame of one `response.create` over a WebSocket: its terminal event or its error. */
async function overWebSocket(key: string, frame: object): Promise<string> {
  const ws = new WebSocket(`${gw.url.replace('http', 'ws')}/v1/responses`, {
    headers: { authorization: `Bearer ${key}`, 'openai-beta': 'responses_websockets=2026-02-06' },
  });
  await once(ws, 'open');
  const last = new Promise<string>((resolve) => {
    ws.on('message', (data: WebSocket.RawData) => {
      const text = data.toString();
      const type = (JSON.parse(text) as { type: string }).type;
      if (type === 'response.completed' || type === 'response.failed' || type === 'error') resolve(text);
    });
  });
  ws.send(JSON.stringify({ type: 'response.create', ...frame }));
  const text = await last;
  ws.close();
  return text;
}

test("over the Responses WebSocket, another key's previous_response_id answers as an unknown one", async () => {
  const frame = (id: string) => ({ model: 'gpt-mock', input: 'again', previous_response_id: id });
  const theirs = await overWebSocket(stranger, frame(responseId));
  const nobody = await overWebSocket(stranger, frame(unknownLike(responseId)));
  assert.match(theirs, /previous_response_not_found/);
  const all = [responseId, unknownLike(responseId)];
  const clean = (text: string) =>
    all.reduce((t, id) => t.split(id).join('<id>'), text).replace(/"req_[A-Za-z0-9]+"/g, '"<req>"');
  assert.equal(clean(theirs), clean(nobody));
  const mine = await overWebSocket(owner, frame(responseId));
  assert.match(mine, /"type":"response\.completed"/, 'the owner continues its own chain');
});

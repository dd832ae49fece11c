// Issue 36, native route: POST /v1/responses to an OpenAI-style upstream that lists `responses` in
// `apis` passes through as bytes (model rewritten, usage tapped), with the gateway's keys, limits,
// usage rows and stored conversations; previous_response_id keeps a chain on its deployment.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startFixture, call, UPSTREAM_SECRET, type Fixture } from './fixture.ts';
import {
  createValidator,
  parseSseText,
  validateOpenAIError,
  validateResponse,
  validateResponseStreamEvent,
} from '../helpers/schemas.ts';

const validateItemList = createValidator('openai', 'ResponseItemList');

let fx: Fixture;
let client: OpenAI;
let otherKey: string;
before(async () => {
  fx = await startFixture({
    extraProviders: (
      upUrl,
    ) => `  - { name: upr, kind: openai, apis: [chat, responses, embeddings], base_url: "${upUrl}/v1", api_key: "${UPSTREAM_SECRET}" }
  - { name: upr2, kind: openai, apis: [chat, responses], base_url: "${upUrl}/v1", api_key: "${UPSTREAM_SECRET}" }`,
    extraModels: `  - { name: gpt-native, price: { input: 1, output: 2 }, deployments: [ { provider: upr, model: upstream-native }, { provider: upr2, model: upstream-native-b } ] }`,
  });
  fx.key = (
    await fx.gw.createKey({ name: 'responses', flags: ['--models', 'gpt-native,gpt-mock,gpt-up,claude-*'] })
  ).key;
  client = new OpenAI({ baseURL: `${fx.gw.url}/v1`, apiKey: fx.key, maxRetries: 0 });
  otherKey = (await fx.gw.createKey({ name: 'other', flags: ['--models', 'gpt-native,gpt-mock'] })).key;
});
after(async () => fx?.close());

test('responses.create: the upstream sees /v1/responses with only the model changed; the reply shows the requested model', async () => {
  const res = await client.responses.create({ model: 'gpt-native', input: 'Hello there', store: false });
  validateResponse(res);
  assert.equal(res.model, 'gpt-native');
  assert.match(res.output_text, /mock upstream/);
  const seen = fx.up.requests.at(-1)!;
  assert.equal(seen.path, '/v1/responses');
  assert.equal(seen.headers.authorization, `Bearer ${UPSTREAM_SECRET}`);
  const sent = seen.body.toString('utf8');
  const upstreamModel = (seen.json as { model: string }).model;
  assert.match(upstreamModel, /^upstream-native(-b)?$/);
  assert.equal(
    sent,
    JSON.stringify({ model: 'gpt-native', input: 'Hello there', store: false }).replace(
      '"gpt-native"',
      JSON.stringify(upstreamModel),
    ),
  );
});

test('responses.stream: every event validates, numbered in order, model renamed, final response complete', async () => {
  const stream = client.responses.stream({ model: 'gpt-native', input: 'Stream please', store: false });
  let last = -1;
  let text = '';
  for await (const ev of stream) {
    validateResponseStreamEvent(ev);
    assert.ok(ev.sequence_number > last, 'sequence numbers grow');
    last = ev.sequence_number;
    if (ev.type === 'response.output_text.delta') text += ev.delta;
    if (ev.type === 'response.created' || ev.type === 'response.completed')
      assert.equal(ev.response.model, 'gpt-native');
  }
  const final = await stream.finalResponse();
  assert.equal(final.status, 'completed');
  assert.equal(final.output_text, text);
});

test('usage is billed from the usage of response.completed and the body (cached tokens apart)', async () => {
  fx.up.configure({ cacheReadTokens: 3 });
  try {
    const { key } = await fx.gw.createKey({ name: 'billed', flags: ['--budget-usd', '5', '--models', 'gpt-native'] });
    const c = new OpenAI({ baseURL: `${fx.gw.url}/v1`, apiKey: key, maxRetries: 0 });
    const whole = await c.responses.create({ model: 'gpt-native', input: 'one two three', store: false });
    const streamed = await c.responses
      .stream({ model: 'gpt-native', input: 'one two three', store: false })
      .finalResponse();
    const expected = whole.usage!.total_tokens + streamed.usage!.total_tokens;
    assert.equal(whole.usage!.input_tokens_details.cached_tokens, 3);
    const r = await call(fx, { path: '/api/usage/token', auth: key });
    assert.equal((r.json as { data: { tokens_used: number } }).data.tokens_used, expected);
  } finally {
    fx.up.configure({ cacheReadTokens: 0 });
  }
});

test('stored responses: GET and DELETE by the owner, 404 for another key; store:false keeps nothing', async () => {
  const res = await client.responses.create({ model: 'gpt-native', input: 'Remember this' });
  const got = await client.responses.retrieve(res.id);
  assert.equal(got.id, res.id);
  assert.equal(got.model, 'gpt-native');
  const other = await call(fx, { path: `/v1/responses/${res.id}`, auth: otherKey });
  assert.equal(other.status, 404);
  validateOpenAIError(other.json);
  assert.equal((await call(fx, { path: `/v1/responses/${res.id}`, method: 'DELETE', auth: otherKey })).status, 404);
  const del = await call(fx, { path: `/v1/responses/${res.id}`, method: 'DELETE' });
  assert.deepEqual(del.json, { id: res.id, object: 'response', deleted: true });
  assert.equal((await call(fx, { path: `/v1/responses/${res.id}` })).status, 404);
  const unstored = await client.responses.create({ model: 'gpt-native', input: 'Forget this', store: false });
  assert.equal((await call(fx, { path: `/v1/responses/${unstored.id}` })).status, 404);
});

test("input_items: the SDK lists a stored response's input, the conversation before it first, a page at a time", async () => {
  const first = await client.responses.create({ model: 'gpt-native', input: 'First question' });
  const second = await client.responses.create({
    model: 'gpt-native',
    previous_response_id: first.id,
    input: [
      { role: 'developer', content: 'Answer briefly.' },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Second question' }] },
    ],
  });
  const listed = [];
  // The SDK's auto-pagination follows `after` while has_more is true.
  for await (const item of client.responses.inputItems.list(second.id, { order: 'asc', limit: 2 })) listed.push(item);
  // The first turn's input, its output, then this turn's two messages.
  assert.deepEqual(
    listed.map((i) => (i.type === 'message' ? `${i.role}` : i.type)),
    ['user', 'assistant', 'developer', 'user'],
  );
  assert.equal(new Set(listed.map((i) => i.id)).size, 4, 'every item has an id of its own');
  const firstMessage = listed[0] as { content: Array<{ type: string; text: string }> };
  assert.deepEqual(firstMessage.content, [{ type: 'input_text', text: 'First question' }]);
  const desc = await call(fx, { path: `/v1/responses/${second.id}/input_items?limit=3` });
  assert.equal(desc.status, 200);
  validateItemList(desc.json);
  const page = desc.json as { data: Array<{ id: string }>; has_more: boolean; first_id: string; last_id: string };
  assert.deepEqual(
    page.data.map((i) => i.id),
    listed
      .slice(1)
      .reverse()
      .map((i) => i.id),
    'newest first by default',
  );
  assert.equal(page.has_more, true);
  assert.equal(page.first_id, listed[3].id);
  const again = await call(fx, { path: `/v1/responses/${second.id}/input_items?after=${page.last_id}` });
  assert.deepEqual(
    (again.json as { data: Array<{ id: string }> }).data.map((i) => i.id),
    [listed[0].id],
    'the same ids on every call',
  );
  for (const [query, param] of [
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['order=up', 'order'],
    ['after=msg_nope', 'after'],
  ]) {
    const r = await call(fx, { path: `/v1/responses/${second.id}/input_items?${query}` });
    assert.equal(r.status, 400, query);
    validateOpenAIError(r.json);
    assert.equal((r.json as { error: { param: string } }).error.param, param);
  }
  const other = await call(fx, { path: `/v1/responses/${second.id}/input_items`, auth: otherKey });
  assert.equal(other.status, 404);
  validateOpenAIError(other.json);
  assert.equal((await call(fx, { path: '/v1/responses/resp_unknown/input_items' })).status, 404);
});

test('background: true is answered in the foreground: the upstream never queues a job, the answer is billed and retrievable', async () => {
  const res = await client.responses.create({ model: 'gpt-native', input: 'Take your time', background: true });
  const sent = fx.up.requests.at(-1)!.json as Record<string, unknown>;
  assert.equal('background' in sent, false, 'the upstream is asked in the foreground');
  assert.equal(sent.input, 'Take your time');
  assert.equal(res.status, 'completed');
  assert.ok((res.usage?.output_tokens ?? 0) > 0);
  assert.equal((await client.responses.retrieve(res.id)).status, 'completed', 'a client that polls finds it done');
  const next = await client.responses.create({
    model: 'gpt-native',
    input: 'And then?',
    background: true,
    previous_response_id: res.id,
  });
  const chained = fx.up.requests.at(-1)!.json as Record<string, unknown>;
  assert.equal('background' in chained, false);
  assert.equal(chained.previous_response_id, res.id, 'a native chain still forwards its id');
  assert.equal(next.status, 'completed');
});

test('previous_response_id: forwarded as it is to the deployment that started the chain; another key cannot continue it', async () => {
  const first = await client.responses.create({ model: 'gpt-native', input: 'Start' });
  const firstUpstream = fx.up.requests.at(-1)!;
  for (let i = 0; i < 4; i++) {
    const next = await client.responses.create({
      model: 'gpt-native',
      input: `Turn ${i}`,
      previous_response_id: first.id,
    });
    assert.equal(next.model, 'gpt-native');
    const seen = fx.up.requests.at(-1)!;
    assert.equal((seen.json as { previous_response_id: string }).previous_response_id, first.id);
    assert.equal(
      (seen.json as { model: string }).model,
      (firstUpstream.json as { model: string }).model,
      'the same deployment',
    );
  }
  const stolen = await call(fx, {
    path: '/v1/responses',
    auth: otherKey,
    body: { model: 'gpt-native', input: 'x', previous_response_id: first.id },
  });
  assert.equal(stolen.status, 400);
  validateOpenAIError(stolen.json);
  assert.equal((stolen.json as { error: { param: string } }).error.param, 'previous_response_id');
});

test("every route that takes a stored id answers another key's id exactly as an unknown one, input_tokens included", async () => {
  const owned = await client.responses.create({ model: 'gpt-native', input: 'Mine alone' });
  const unknown = `resp_${'0'.repeat(48)}`;
  const routes = (id: string) =>
    [
      { path: `/v1/responses/${id}` },
      { path: `/v1/responses/${id}/input_items` },
      { path: `/v1/responses/${id}`, method: 'DELETE' },
      { path: '/v1/responses', body: { model: 'gpt-native', input: 'x', previous_response_id: id } },
      { path: '/v1/responses/input_tokens', body: { model: 'gpt-native', input: 'x', previous_response_id: id } },
    ] as const;
  const upstreamBefore = fx.up.requests.length;
  for (let i = 0; i < routes(unknown).length; i++) {
    const theirs = await call(fx, { ...routes(owned.id)[i], auth: otherKey });
    const none = await call(fx, { ...routes(unknown)[i], auth: otherKey });
    const what = `${routes(unknown)[i].path} ${JSON.stringify(routes(unknown)[i])}`;
    assert.ok(theirs.status >= 400 && theirs.status < 500, `${what}: ${theirs.status}`);
    assert.equal(theirs.status, none.status, what);
    assert.equal(
      JSON.stringify(theirs.json).replaceAll(owned.id, 'ID'),
      JSON.stringify(none.json).replaceAll(unknown, 'ID'),
      what,
    );
  }
  assert.equal(fx.up.requests.length, upstreamBefore, "no other key's id reached the upstream");
  // The owner still has it, and counts it with the conversation it continues.
  assert.equal((await call(fx, { path: `/v1/responses/${owned.id}` })).status, 200);
  const counted = await call(fx, {
    path: '/v1/responses/input_tokens',
    body: { model: 'gpt-native', input: 'x', previous_response_id: owned.id },
  });
  assert.equal(counted.status, 200);
});

test('bad requests are 400s in the OpenAI shape naming the field', async () => {
  for (const [body, param] of [
    [{ input: 'x' }, 'model'],
    [{ model: 'gpt-native' }, 'input'],
    [{ model: 'gpt-native', input: 42 }, 'input'],
    [{ model: 'gpt-native', input: [{ type: 'message', role: 'robot', content: 'x' }] }, 'input[0].role'],
    [{ model: 'gpt-native', input: 'x', max_output_tokens: -1 }, 'max_output_tokens'],
    [{ model: 'gpt-native', input: 'x', text: { format: { type: 'json_schema', name: 'x' } } }, 'text.format.schema'],
  ] as const) {
    const r = await call(fx, { path: '/v1/responses', body });
    assert.equal(r.status, 400, JSON.stringify(body));
    validateOpenAIError(r.json);
    assert.equal((r.json as { error: { param: string } }).error.param, param);
  }
  const noModel = await call(fx, { path: '/v1/responses', body: { model: 'nope', input: 'x' } });
  assert.equal(noModel.status, 404);
  const forbidden = await call(fx, { path: '/v1/responses', body: { model: 'secret-model', input: 'x' } });
  assert.equal(forbidden.status, 403);
  validateOpenAIError(forbidden.json);
  assert.equal(
    (await call(fx, { path: '/v1/responses', body: { model: 'gpt-native', input: 'x' }, auth: null })).status,
    401,
  );
});

test('input_tokens: exact from a native upstream, estimated elsewhere', async () => {
  const exact = await call(fx, {
    path: '/v1/responses/input_tokens',
    body: { model: 'gpt-native', input: 'one two three four' },
  });
  assert.equal(exact.status, 200);
  assert.equal(exact.headers.get('x-modelgate-token-count'), 'exact');
  assert.deepEqual(exact.json, { object: 'response.input_tokens', input_tokens: 4 });
  assert.equal(fx.up.requests.at(-1)!.path, '/v1/responses/input_tokens');
  const est = await call(fx, {
    path: '/v1/responses/input_tokens',
    body: { model: 'gpt-mock', input: 'one two three four' },
  });
  assert.equal(est.headers.get('x-modelgate-token-count'), 'estimate');
  assert.equal((est.json as { object: string }).object, 'response.input_tokens');
});

test('a stream that fails midway ends with an error event the SDK raises', async () => {
  fx.up.enqueue({ kind: 'stream-error', afterEvents: 3, message: 'boom upstream' });
  const stream = await client.responses.create({ model: 'gpt-native', input: 'x', stream: true, store: false });
  await assert.rejects(async () => {
    for await (const ev of stream) validateResponseStreamEvent(ev);
  }, /boom upstream/);
});

test('the built-in mock model answers /v1/responses, streamed and not, and continues stored conversations', async () => {
  const res = await client.responses.create({ model: 'gpt-mock', input: 'hello' });
  validateResponse(res);
  assert.equal(res.model, 'gpt-mock');
  const next = await client.responses.create({ model: 'gpt-mock', input: 'again', previous_response_id: res.id });
  assert.equal(next.status, 'completed');
  const r = await call(fx, { path: '/v1/responses', body: { model: 'gpt-mock', input: 'x', stream: true } });
  const events = parseSseText(r.text);
  for (const e of events) validateResponseStreamEvent(JSON.parse(e.data));
  assert.equal(events.at(-1)!.event, 'response.completed');
});

test('rate limits refuse /v1/responses in the OpenAI shape', async () => {
  const { key } = await fx.gw.createKey({ name: 'rpm-responses', flags: ['--rpm', '1'] });
  const send = () =>
    call(fx, { path: '/v1/responses', auth: key, body: { model: 'gpt-native', input: 'x', store: false } });
  assert.equal((await send()).status, 200);
  let r = await send();
  if (r.status === 200) r = await send();
  assert.equal(r.status, 429);
  validateOpenAIError(r.json);
});

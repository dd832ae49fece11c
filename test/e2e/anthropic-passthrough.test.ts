// Issue 2: /v1/messages to an Anthropic-style upstream through @anthropic-ai/sdk (authToken → Bearer),
// streamed and not; headers forwarded; every event validates; bytes pass through but for `model`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { startFixture, call, type Fixture } from './fixture.ts';
import { validateMessage, validateMessageStreamEvent } from '../helpers/schemas.ts';

let fx: Fixture;
let client: Anthropic;
before(async () => {
  fx = await startFixture();
  client = new Anthropic({ baseURL: fx.gw.url, authToken: fx.key, apiKey: null, maxRetries: 0 });
});
after(async () => fx.close());

test('non-streamed message: model name rewritten both ways, upstream credentials are the provider key', async () => {
  const msg = await client.messages.create({
    model: 'claude-up',
    max_tokens: 100,
    messages: [{ role: 'user', content: 'Hello' }],
  });
  validateMessage(msg);
  assert.equal(msg.model, 'claude-up');
  assert.equal(msg.content[0].type, 'text');
  const seen = fx.up.requests.at(-1)!;
  assert.equal(seen.path, '/v1/messages');
  assert.equal((seen.json as { model: string }).model, 'claude-upstream-1');
  assert.equal(seen.headers['x-api-key'], 'sk-upstream-secret-0123456789abcdefXYZ');
  assert.equal(seen.headers.authorization, undefined, "the caller's key never goes upstream");
  assert.equal(seen.headers['anthropic-version'], '2026-10-21', "SDK 1.x's version is forwarded as it came");
});

test('anthropic-beta is forwarded, and every field survives byte for byte', async () => {
  const raw = JSON.stringify({
    model: 'claude-up',
    max_tokens: 50,
    system: [{ type: 'text', text: 'sys', cache_control: { type: 'ephemeral' } }],
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'hi' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
        ],
      },
    ],
    top_k: 5,
    stop_sequences: ['###'],
    metadata: { user_id: 'u1' },
    thinking: { type: 'enabled', budget_tokens: 1024 },
    x_unknown: { a: [1, null] },
  });
  const r = await call(fx, {
    path: '/v1/messages?beta=true',
    body: raw,
    headers: { 'anthropic-version': '2023-06-01', 'anthropic-beta': 'prompt-caching-2024-07-31' },
  });
  assert.equal(r.status, 200, r.text);
  const seen = fx.up.requests.at(-1)!;
  assert.equal(seen.headers['anthropic-beta'], 'prompt-caching-2024-07-31');
  assert.equal(seen.body.toString('utf8'), raw.replace('"claude-up"', '"claude-upstream-1"'));
});

test('stream through messages.stream(): events validate, event names equal types, finalMessage works', async () => {
  const stream = client.messages.stream({
    model: 'claude-up',
    max_tokens: 100,
    messages: [{ role: 'user', content: 'Hello' }],
  });
  const types: string[] = [];
  stream.on('streamEvent', (ev) => {
    validateMessageStreamEvent(ev);
    types.push(ev.type);
  });
  const final = await stream.finalMessage();
  assert.equal(final.model, 'claude-up');
  assert.equal(types[0], 'message_start');
  assert.equal(types.at(-1), 'message_stop');
  assert.ok(final.usage.input_tokens > 0 && final.usage.output_tokens > 0);

  const raw = await call(fx, {
    path: '/v1/messages',
    body: { model: 'claude-up', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'x' }] },
    headers: { 'anthropic-version': '2023-06-01' },
  });
  for (const m of raw.text.matchAll(/event: (\w+)\ndata: (.*)\n/g))
    assert.equal((JSON.parse(m[2]) as { type: string }).type, m[1]);
});

test('tool use streams as tool_use + input_json_delta through the helper', async () => {
  const tools: Anthropic.Tool[] = [
    {
      name: 'lookup',
      description: 'Look up',
      input_schema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
    },
  ];
  const final = await client.messages
    .stream({
      model: 'claude-up',
      max_tokens: 100,
      tools,
      tool_choice: { type: 'any' },
      messages: [{ role: 'user', content: 'find x' }],
    })
    .finalMessage();
  assert.equal(final.stop_reason, 'tool_use');
  const use = final.content.find((b) => b.type === 'tool_use');
  assert.ok(use && use.type === 'tool_use' && use.name === 'lookup');
  const sent = fx.up.requests.at(-1)!.json as { tool_choice: unknown };
  assert.deepEqual(sent.tool_choice, { type: 'any' });
});

test('built-in mock model answers both dialects with usage, streamed and not', async () => {
  const msg = await client.messages.create({
    model: 'claude-mock',
    max_tokens: 100,
    messages: [{ role: 'user', content: 'Hello' }],
  });
  validateMessage(msg);
  const streamed = await client.messages
    .stream({ model: 'claude-mock', max_tokens: 100, messages: [{ role: 'user', content: 'Hello' }] })
    .finalMessage();
  assert.deepEqual(streamed.content, msg.content);
  assert.deepEqual(streamed.usage.output_tokens, msg.usage.output_tokens);
  const cut = await client.messages.create({
    model: 'claude-mock',
    max_tokens: 3,
    messages: [{ role: 'user', content: 'Hello' }],
  });
  assert.equal(cut.stop_reason, 'max_tokens');
  assert.equal(cut.usage.output_tokens, 3);
});

test('the Anthropic SDK lists the same models from GET /v1/models', async () => {
  const ids: string[] = [];
  for await (const m of client.models.list()) ids.push(m.id);
  assert.deepEqual(ids.sort(), ['claude-mock', 'claude-up', 'gpt-mock', 'gpt-up']);
});

test("models.retrieve works in both SDKs; an unknown or forbidden model is a 404 in the caller's dialect", async () => {
  const { default: OpenAI } = await import('openai');
  const openai = new OpenAI({ baseURL: `${fx.gw.url}/v1`, apiKey: fx.key, maxRetries: 0 });
  const o = await openai.models.retrieve('gpt-up');
  assert.equal(o.id, 'gpt-up');
  assert.equal(o.object, 'model');
  const a = await client.models.retrieve('claude-up');
  assert.equal(a.id, 'claude-up');
  assert.equal(a.type, 'model');
  assert.ok(!Number.isNaN(Date.parse(a.created_at)));
  for (const id of ['nope', 'secret-model']) {
    await assert.rejects(
      client.models.retrieve(id),
      (err: unknown) =>
        err instanceof Anthropic.NotFoundError &&
        (err.error as { error?: { type?: string } }).error?.type === 'not_found_error',
    );
    await assert.rejects(
      openai.models.retrieve(id),
      (err: unknown) => err instanceof OpenAI.NotFoundError && err.code === 'model_not_found',
    );
  }
  // An Anthropic caller's 401 on the listing is Anthropic-shaped too.
  const bad = new Anthropic({ baseURL: fx.gw.url, authToken: 'sk-not-a-key', apiKey: null, maxRetries: 0 });
  await assert.rejects(
    bad.models.list(),
    (err: unknown) =>
      err instanceof Anthropic.AuthenticationError &&
      (err.error as { error?: { type?: string } }).error?.type === 'authentication_error',
  );
});

test('a repeated model key: the upstream gets only the model routed and billed, for messages and count_tokens', async () => {
  const body =
    '{"model":"claude-opus-real","model":"claude-up","max_tokens":50,"messages":[{"role":"user","content":"hi"}]}';
  const headers = { 'anthropic-version': '2023-06-01' };
  for (const path of ['/v1/messages', '/v1/messages/count_tokens']) {
    const r = await call(fx, { path, body, headers });
    assert.equal(r.status, 200, `${path}: ${r.text}`);
    const seen = fx.up.requests.at(-1)!;
    assert.equal(seen.path, path);
    const text = seen.body.toString('utf8');
    assert.equal(text.match(/"model"/g)?.length, 1, `one model key: ${text}`);
    assert.equal((JSON.parse(text) as { model: string }).model, 'claude-upstream-1');
  }
});

test("count_tokens: an upstream that cannot count gives an estimate, a bad request its 400, and the key's RPM applies", async () => {
  const body = { model: 'claude-up', messages: [{ role: 'user', content: 'How many tokens is this?' }] };
  const headers = { 'anthropic-version': '2023-06-01' };
  const path = '/v1/messages/count_tokens';
  for (const fault of [{ kind: 'status', status: 500 }, { kind: 'status', status: 404 }, { kind: 'reset' }] as const) {
    fx.up.enqueue(fault);
    const r = await call(fx, { path, body, headers });
    assert.equal(r.status, 200, `${JSON.stringify(fault)}: ${r.text}`);
    assert.equal(r.headers.get('x-modelgate-token-count'), 'estimate');
    assert.ok((r.json as { input_tokens: number }).input_tokens > 0);
    assert.ok(!r.text.includes('127.0.0.1'), 'no upstream address');
  }
  fx.up.enqueue({
    kind: 'status',
    status: 400,
    body: { type: 'error', error: { type: 'invalid_request_error', message: 'messages.0.content: empty' } },
  });
  const bad = await call(fx, { path, body, headers });
  assert.equal(bad.status, 400);
  assert.match(bad.text, /messages\.0\.content: empty/);
  // Counting is free upstream, but it is a request: a key limited to 1 a minute gets its 429.
  const { key } = await fx.gw.createKey({ name: 'count-rpm', flags: ['--rpm', '1'] });
  assert.equal((await call(fx, { path, body, headers, auth: key })).status, 200);
  const refused = await call(fx, { path, body, headers, auth: key });
  assert.equal(refused.status, 429, refused.text);
  assert.ok(refused.headers.get('retry-after'));
});

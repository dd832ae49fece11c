// Issue 35, raw HTTP: the two anthropic-version values and the rules of 2026-10-21 on /v1/messages and
// count_tokens; which version goes upstream; mid-conversation system items kept in place and an upstream's
// refusal of them passed on with its type, code and text; refused keys answered `x-should-retry: false`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import Anthropic0 from 'anthropic-sdk-0';
import { startFixture, call, CROSS_DIALECT_MODELS, type Fixture } from './fixture.ts';

let fx: Fixture;
/** A key for every model (the fixture's own key has a model list). */
let allModels: string;
before(async () => {
  fx = await startFixture({
    // The same upstream behind a provider that names the version translated requests carry.
    extraProviders: (url) =>
      `  - { name: upa2026, kind: anthropic, base_url: "${url}", api_key: "sk-upstream-2026-0123456789abcdef", anthropic_version: "2026-10-21" }`,
    extraModels: `${CROSS_DIALECT_MODELS}
  - { name: gpt-via-anthropic-2026, deployments: [ { provider: upa2026, model: claude-upstream-3 } ] }`,
  });
  ({ key: allModels } = await fx.gw.createKey({ name: 'all-models' }));
});
after(async () => fx.close());

const V1 = { 'anthropic-version': '2023-06-01' };
const V2 = { 'anthropic-version': '2026-10-21' };
const msgs = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  model: 'claude-up',
  max_tokens: 10,
  messages: [{ role: 'user', content: 'hi' }],
  ...over,
});
const MESSAGES = '/v1/messages';
const COUNT = '/v1/messages/count_tokens';

function errorOf(r: { status: number; json: unknown }): { type: string; message: string; details?: unknown } {
  return (r.json as { error: { type: string; message: string; details?: unknown } }).error;
}

test('both versions are accepted on /v1/messages and count_tokens; any other or none is a 400 naming both', async () => {
  for (const path of [MESSAGES, COUNT]) {
    for (const headers of [V1, V2] as Record<string, string>[]) {
      const r = await call(fx, { path, body: msgs(), headers });
      assert.equal(r.status, 200, `${path} ${headers['anthropic-version']}: ${r.text}`);
      assert.equal(
        fx.up.requests.at(-1)!.headers['anthropic-version'],
        headers['anthropic-version'],
        'the caller’s version goes upstream on pass-through',
      );
    }
    for (const headers of [
      {},
      { 'anthropic-version': '2024-01-01' },
      { 'anthropic-version': '2026-10-21, 2023-06-01' },
    ] as Record<string, string>[]) {
      const r = await call(fx, { path, body: msgs(), headers });
      assert.equal(r.status, 400, r.text);
      assert.equal(errorOf(r).type, 'invalid_request_error');
      assert.match(errorOf(r).message, /2023-06-01 or 2026-10-21/);
    }
  }
});

test('2026-10-21: temperature, top_p and top_k refused even at their defaults, naming the field; 2023-06-01 keeps them', async () => {
  const before = fx.up.requests.length;
  for (const path of [MESSAGES, COUNT]) {
    for (const [field, value] of [
      ['temperature', 1],
      ['top_p', 1],
      ['top_k', 0],
      ['temperature', null],
    ] as const) {
      const r = await call(fx, { path, body: msgs({ [field]: value }), headers: V2 });
      assert.equal(r.status, 400, `${path} ${field}=${value}: ${r.text}`);
      assert.equal(errorOf(r).type, 'invalid_request_error');
      assert.match(errorOf(r).message, new RegExp(`^${field}: `));
    }
  }
  assert.equal(fx.up.requests.length, before, 'refused before any upstream call');
  const ok = await call(fx, { path: MESSAGES, body: msgs({ temperature: 0.2, top_p: 0.9, top_k: 5 }), headers: V1 });
  assert.equal(ok.status, 200, ok.text);
});

test('2026-10-21: a document block in an assistant message and citations on a user text block are refused', async () => {
  const doc = { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'A doc.' } };
  const citation = {
    type: 'char_location',
    cited_text: 'A',
    document_index: 0,
    document_title: null,
    start_char_index: 0,
    end_char_index: 1,
  };
  const cases: [unknown[], RegExp][] = [
    [
      [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: [doc] },
        { role: 'user', content: 'go on' },
      ],
      /^messages\.1\.content\.0: a document block/,
    ],
    [
      [{ role: 'user', content: [{ type: 'text', text: 'see', citations: [citation] }] }],
      /^messages\.0\.content\.0\.citations: /,
    ],
  ];
  for (const [messages, re] of cases) {
    for (const path of [MESSAGES, COUNT]) {
      const r = await call(fx, { path, body: msgs({ messages }), headers: V2 });
      assert.equal(r.status, 400, r.text);
      assert.match(errorOf(r).message, re);
    }
    // Under 2023-06-01 the gateway leaves them to the upstream.
    assert.equal((await call(fx, { path: MESSAGES, body: msgs({ messages }), headers: V1 })).status, 200);
  }
  // A document in a user message and an empty citations array are fine under either version.
  const fine = [{ role: 'user', content: [doc, { type: 'text', text: 'summarise', citations: [] }] }];
  assert.equal((await call(fx, { path: MESSAGES, body: msgs({ messages: fine }), headers: V2 })).status, 200);
});

test('anthropic-beta goes upstream with the caller’s version on pass-through; translation carries the provider’s version, never the caller’s', async () => {
  const r = await call(fx, {
    path: MESSAGES,
    body: msgs(),
    headers: { ...V2, 'anthropic-beta': 'context-1m-2025-08-07' },
  });
  assert.equal(r.status, 200, r.text);
  let seen = fx.up.requests.at(-1)!;
  assert.equal(seen.headers['anthropic-version'], '2026-10-21');
  assert.equal(seen.headers['anthropic-beta'], 'context-1m-2025-08-07');
  // A chat caller that happens to send Anthropic's headers: they describe no body the upstream gets.
  const chat = await call(fx, {
    path: '/v1/chat/completions',
    body: { model: 'gpt-via-anthropic', messages: [{ role: 'user', content: 'hi' }] },
    headers: { ...V2, 'anthropic-beta': 'x' },
    auth: allModels,
  });
  assert.equal(chat.status, 200, chat.text);
  seen = fx.up.requests.at(-1)!;
  assert.equal(seen.path, MESSAGES);
  assert.equal(seen.headers['anthropic-version'], '2023-06-01', 'the default of a provider that names none');
  assert.equal(seen.headers['anthropic-beta'], undefined);
  const named = await call(fx, {
    path: '/v1/chat/completions',
    body: { model: 'gpt-via-anthropic-2026', messages: [{ role: 'user', content: 'hi' }] },
    auth: allModels,
  });
  assert.equal(named.status, 200, named.text);
  assert.equal(fx.up.requests.at(-1)!.headers['anthropic-version'], '2026-10-21', 'the provider’s anthropic_version');
});

const WITH_SYSTEM = [
  { role: 'user', content: 'first' },
  { role: 'system', content: [{ type: 'text', text: 'Mid-conversation rule.' }] },
  { role: 'assistant', content: 'ok' },
  { role: 'system', content: 'Another rule.' },
  { role: 'user', content: 'second' },
];

test('mid-conversation system items: accepted and passed to an Anthropic-style upstream byte for byte', async () => {
  const raw = JSON.stringify(msgs({ system: 'Top-level system.', messages: WITH_SYSTEM }));
  for (const headers of [V1, V2]) {
    const r = await call(fx, { path: MESSAGES, body: raw, headers });
    assert.equal(r.status, 200, r.text);
    assert.equal(fx.up.requests.at(-1)!.body.toString('utf8'), raw.replace('"claude-up"', '"claude-upstream-1"'));
  }
});

test('an upstream that refuses mid-conversation system items: its type, error code and text reach the caller unchanged', async () => {
  const refusal = {
    type: 'error',
    error: {
      type: 'invalid_request_error',
      message: 'messages.1.role: system messages are not supported for this model',
      details: { error_code: 'mid_conversation_system_not_supported' },
    },
    request_id: 'req_upstream_1',
  };
  // Streamed or not (Claude Code streams), the refusal comes before the first byte: a JSON error.
  for (const stream of [false, true]) {
    fx.up.enqueue({ kind: 'status', status: 400, body: refusal });
    const r = await call(fx, { path: MESSAGES, body: msgs({ messages: WITH_SYSTEM, stream }), headers: V2 });
    assert.equal(r.status, 400, r.text);
    assert.deepEqual(errorOf(r), refusal.error);
  }
  // What the clients read: SDK 1.x's errorCode, and the body Claude Code picks its fallback by.
  fx.up.enqueue({ kind: 'status', status: 400, body: refusal });
  const client = new Anthropic({ baseURL: fx.gw.url, authToken: fx.key, apiKey: null, maxRetries: 0 });
  const params = msgs({ messages: WITH_SYSTEM }) as unknown as Anthropic.MessageCreateParamsNonStreaming;
  await assert.rejects(client.messages.create(params), (err: unknown) => {
    assert.ok(err instanceof Anthropic.BadRequestError);
    assert.equal(err.type, 'invalid_request_error');
    assert.equal(err.errorCode, 'mid_conversation_system_not_supported');
    assert.equal(err.apiMessage, refusal.error.message);
    return true;
  });
});

test('mid-conversation system items to an OpenAI-style upstream: a system message at the same position', async () => {
  const r = await call(fx, {
    path: MESSAGES,
    body: msgs({ model: 'claude-via-openai', messages: WITH_SYSTEM }),
    headers: V2,
    auth: allModels,
  });
  assert.equal(r.status, 200, r.text);
  const sent = fx.up.requests.at(-1)!.json as { messages: { role: string; content: unknown }[] };
  assert.deepEqual(
    sent.messages.map((m) => m.role),
    ['user', 'system', 'assistant', 'system', 'user'],
  );
  assert.match(JSON.stringify(sent.messages[1].content), /Mid-conversation rule\./);
});

test('x-api-key is refused with 401 and x-should-retry: false on every endpoint', async () => {
  const endpoints: { path: string; body?: unknown; headers?: Record<string, string> }[] = [
    { path: MESSAGES, body: msgs(), headers: V2 },
    { path: COUNT, body: msgs(), headers: V2 },
    { path: '/v1/chat/completions', body: { model: 'gpt-up', messages: [{ role: 'user', content: 'hi' }] } },
    { path: '/v1/models' },
    { path: '/v1/models/claude-up' },
    { path: '/api/usage/token' },
  ];
  for (const e of endpoints) {
    const r = await call(fx, { ...e, auth: null, headers: { ...e.headers, 'x-api-key': fx.key } });
    assert.equal(r.status, 401, `${e.path}: ${r.text}`);
    assert.equal(r.headers.get('x-should-retry'), 'false', e.path);
    assert.match(r.text, /Authorization: Bearer/, e.path);
    assert.ok(!r.text.includes(fx.key), 'the key is not echoed');
  }
});

test('a client that sends x-api-key stops at the first 401 (no retries) and shows the message', async () => {
  const hi = { model: 'claude-up', max_tokens: 10, messages: [{ role: 'user' as const, content: 'hi' }] };
  let sent = 0;
  const counting: typeof fetch = (input, init) => {
    sent++;
    return fetch(input, init);
  };
  // maxRetries is left at its default (2) throughout: only x-should-retry keeps an SDK from trying again.
  // The 0.x line sends apiKey as x-api-key; 1.x sends it as a Bearer token, and an explicit header still goes out.
  const clients = [
    new Anthropic0({ baseURL: fx.gw.url, apiKey: fx.key, fetch: counting }),
    new Anthropic({
      baseURL: fx.gw.url,
      apiKey: null,
      authToken: null,
      defaultHeaders: { 'x-api-key': fx.key },
      fetch: counting,
    }),
  ];
  for (const client of clients) {
    sent = 0;
    await assert.rejects((client as Anthropic).messages.create(hi), (err: unknown) => {
      assert.equal((err as { status?: number }).status, 401);
      assert.match(String((err as Error).message), /Authorization: Bearer/);
      return true;
    });
    assert.equal(sent, 1, 'one request, no retry');
  }
  sent = 0;
  const ok = await new Anthropic({ baseURL: fx.gw.url, apiKey: fx.key, fetch: counting }).messages.create(hi);
  assert.equal(ok.type, 'message', 'SDK 1.x with apiKey sends Authorization: Bearer, which the gateway takes');
  assert.equal(sent, 1);
});

// Issue 2: every SPEC §7 error row the foundation can produce, on both endpoints, in the caller's dialect.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFixture, call, UPSTREAM_SECRET, type Fixture } from './fixture.ts';
import { validateAnthropicError, validateOpenAIError } from '../helpers/schemas.ts';

let fx: Fixture;
before(async () => {
  fx = await startFixture({
    extraConfig: 'body_limit_mb: 0.01',
    // One attempt each, so an upstream's bad 200 is the answer rather than a retry's reason.
    extraModels: `  - { name: claude-once, max_retries: 0, deployments: [ { provider: upa, model: claude-upstream-1 } ] }
  - { name: claude-via-openai, max_retries: 0, deployments: [ { provider: up, model: anthropic/claude-x } ] }
  - { name: claude-enc, deployments: [ { provider: up, model: upstream-enc } ] }`,
  });
});
after(async () => fx.close());

const chat = (model = 'gpt-up'): unknown => ({ model, messages: [{ role: 'user', content: 'hi' }] });
const msgs = (over: Record<string, unknown> = {}): unknown => ({
  model: 'claude-up',
  max_tokens: 10,
  messages: [{ role: 'user', content: 'hi' }],
  ...over,
});
const AV = { 'anthropic-version': '2023-06-01' };

function openaiError(
  r: { status: number; json: unknown; headers: Headers },
  status: number,
  code?: string,
): { message: string; code: string } {
  assert.equal(r.status, status, JSON.stringify(r.json));
  validateOpenAIError(r.json);
  assert.ok(r.headers.get('x-request-id'), 'every error carries a request id');
  const e = (r.json as { error: { message: string; code: string } }).error;
  if (code) assert.equal(e.code, code);
  return e;
}

function anthropicError(
  r: { status: number; json: unknown; headers: Headers },
  status: number,
  type: string,
): { message: string } {
  assert.equal(r.status, status, JSON.stringify(r.json));
  validateAnthropicError(r.json);
  assert.ok(r.headers.get('request-id'));
  const body = r.json as { type: string; error: { type: string; message: string }; request_id: string };
  assert.equal(body.error.type, type);
  assert.equal(body.request_id, r.headers.get('request-id'));
  return body.error;
}

test('401: missing key, x-api-key, wrong key — both dialects', async () => {
  openaiError(await call(fx, { path: '/v1/chat/completions', body: chat(), auth: null }), 401, 'missing_api_key');
  anthropicError(
    await call(fx, { path: '/v1/messages', body: msgs(), auth: null, headers: AV }),
    401,
    'authentication_error',
  );
  const refused = await call(fx, {
    path: '/v1/messages',
    body: msgs(),
    auth: null,
    headers: { ...AV, 'x-api-key': fx.key },
  });
  const e = anthropicError(refused, 401, 'authentication_error');
  assert.match(e.message, /Authorization: Bearer/);
  assert.equal(refused.headers.get('x-should-retry'), 'false', 'a refused key is not worth a retry');
  openaiError(
    await call(fx, { path: '/v1/chat/completions', body: chat(), auth: 'sk-wrongwrongwrongwrong' }),
    401,
    'invalid_api_key',
  );
  openaiError(await call(fx, { path: '/v1/models', auth: 'sk-nope' }), 401);
  openaiError(await call(fx, { path: '/api/usage/token', auth: null }), 401);
});

test('404 for inexact paths, 405 for a known path with the wrong method', async () => {
  for (const path of [
    '/v1/chat/completion',
    '/chat/completions',
    '/v1/chat/completions/',
    '/V1/chat/completions',
    '/v1/message',
  ]) {
    const r = await call(fx, { path, body: chat() });
    assert.equal(r.status, 404, path);
    assert.ok(r.headers.get('x-request-id'));
  }
  const r = await call(fx, { path: '/v1/chat/completions', method: 'GET' });
  assert.equal(r.status, 405);
  assert.equal(r.headers.get('allow'), 'POST');
  assert.equal((await call(fx, { path: '/v1/chat/completions', method: 'HEAD' })).status, 405);
  // HEAD is GET without a body: health probes use it.
  for (const path of ['/healthz', '/v1/models']) {
    const head = await call(fx, { path, method: 'HEAD' });
    assert.equal(head.status, 200, path);
    assert.equal(head.text, '');
    assert.ok(Number(head.headers.get('content-length')) > 0, path);
  }
  const put = await call(fx, { path: '/v1/models', method: 'PUT' });
  assert.equal(put.status, 405);
  assert.equal(put.headers.get('allow'), 'GET, HEAD');
  // A query string is allowed (real clients send ?beta=true).
  assert.equal((await call(fx, { path: '/v1/chat/completions?x=1', body: chat() })).status, 200);
});

test('a key pasted into a path or a model name is not sent back whole in the error', async () => {
  const masked = `${fx.key.slice(0, 4)}…${fx.key.slice(-4)}`;
  const answers = [
    await call(fx, { path: `/v1/${fx.key}` }),
    await call(fx, { path: `/v1/messages/${fx.key}`, body: msgs() }),
    await call(fx, { path: '/v1/chat/completions', body: chat(fx.key) }),
    await call(fx, { path: '/v1/messages', body: msgs({ model: `claude-${fx.key}` }), headers: AV }),
  ];
  for (const r of answers) {
    assert.ok(r.status === 404 || r.status === 403, `${r.status} ${r.text}`);
    assert.ok(!r.text.includes(fx.key), 'the key is not echoed whole');
    assert.ok(r.text.includes(masked), `masked to first 4 + last 4: ${r.text}`);
  }
});

test('an absolute-form target (a client using the gateway as its proxy) is routed by its path', async () => {
  const target = (path: string): string => `http://127.0.0.1:${new URL(fx.gw.url).port}${path}`;
  const ok = await rawCall(target('/v1/chat/completions'), JSON.stringify(chat()));
  assert.match(ok.head, /^HTTP\/1\.1 200 /, ok.head);
  assert.equal((JSON.parse(ok.body) as { model: string }).model, 'gpt-up');
  const missing = await rawCall(target('/v1/messages/nope'), JSON.stringify(msgs()));
  assert.match(missing.head, /^HTTP\/1\.1 404 /);
  validateAnthropicError(JSON.parse(missing.body));
});

test('compressed request bodies: gzip, deflate, br and zstd are read, others 415, corrupt 400, bombs 413; a BOM is dropped', async () => {
  const zlib = await import('node:zlib');
  const post = (path: string, body: Buffer, encoding: string): Promise<Response> =>
    fetch(fx.gw.url + path, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${fx.key}`,
        'content-type': 'application/json',
        'content-encoding': encoding,
        ...AV,
      },
      body,
    });
  // A model of its own on the OpenAI-style upstream: /v1/messages to it is translated, so the count of
  // /v1/messages upstream calls the 400 test below relies on stays 0.
  const chatJson = Buffer.from(JSON.stringify(chat('claude-enc')));
  const encoders: Array<[string, (b: Buffer) => Buffer]> = [
    ['gzip', zlib.gzipSync],
    ['deflate', zlib.deflateSync],
    ['br', zlib.brotliCompressSync],
    ['zstd', zlib.zstdCompressSync],
    ['gzip, br', (b) => zlib.brotliCompressSync(zlib.gzipSync(b))],
    ['identity', (b) => b],
    // A byte order mark (a file saved by a Windows editor) is dropped, compressed or not.
    ['identity', (b) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), b])],
    ['gzip', (b) => zlib.gzipSync(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), b]))],
  ];
  for (const [encoding, encode] of encoders) {
    const r = await post('/v1/chat/completions', encode(chatJson), encoding);
    assert.equal(r.status, 200, `${encoding}: ${await r.clone().text()}`);
    await r.text();
    // The upstream gets the JSON, decoded, with the deployment's model.
    assert.equal(
      fx.up.requests.at(-1)!.body.toString('utf8'),
      chatJson.toString().replace('"claude-enc"', '"upstream-enc"'),
      encoding,
    );
  }
  const messages = await post(
    '/v1/messages',
    zlib.gzipSync(Buffer.from(JSON.stringify(msgs({ model: 'claude-enc' })))),
    'gzip',
  );
  assert.equal(messages.status, 200);
  await messages.text();

  const unsupported = await post('/v1/chat/completions', chatJson, 'compress');
  const e415 = (await unsupported.json()) as { error: { message: string; type: string } };
  assert.equal(unsupported.status, 415);
  validateOpenAIError(e415);
  assert.match(e415.error.message, /"compress" is not supported[^]*gzip, deflate, br, zstd/);
  const anthropic415 = await post('/v1/messages', Buffer.from(JSON.stringify(msgs())), 'x-custom');
  assert.equal(anthropic415.status, 415);
  validateAnthropicError(await anthropic415.json());

  const corrupt = await post('/v1/chat/completions', Buffer.from('not gzip at all'), 'gzip');
  assert.equal(corrupt.status, 400);
  assert.match(((await corrupt.json()) as { error: { message: string } }).error.message, /not valid gzip data/);
  // 2 MB of JSON in a few KB of gzip: the decoded size is held to the 10 KB body limit.
  const bomb = zlib.gzipSync(
    Buffer.from(JSON.stringify({ ...(chat('claude-enc') as object), pad: ' '.repeat(2_000_000) })),
  );
  assert.ok(bomb.length < 10_000);
  const tooBig = await post('/v1/chat/completions', bomb, 'gzip');
  assert.equal(tooBig.status, 413);
  assert.match(((await tooBig.json()) as { error: { message: string } }).error.message, /once decoded \(gzip\)/);
});

/** One request over a fresh connection with the request-target exactly as given; the answer's head and body. */
async function rawCall(requestTarget: string, body: string): Promise<{ head: string; body: string }> {
  const { connect } = await import('node:net');
  const socket = connect(Number(new URL(fx.gw.url).port), '127.0.0.1');
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (received += chunk));
  const closed = new Promise<void>((resolve, reject) => {
    socket.on('close', () => resolve());
    socket.on('error', reject);
  });
  socket.write(
    `POST ${requestTarget} HTTP/1.1\r\nhost: gw\r\nauthorization: Bearer ${fx.key}\r\ncontent-type: application/json\r\n` +
      `anthropic-version: 2023-06-01\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
  await closed;
  const split = received.indexOf('\r\n\r\n');
  return { head: received.slice(0, split), body: received.slice(split + 4) };
}

test('404 unknown model, 403 model not allowed, 400 non-Claude model on /v1/messages', async () => {
  const nf = openaiError(
    await call(fx, { path: '/v1/chat/completions', body: chat('gpt-nope') }),
    404,
    'model_not_found',
  );
  assert.match(nf.message, /gpt-nope/);
  // Made-up model names share one metrics label, so no caller can grow the metrics without bound.
  for (let i = 0; i < 5; i++) await call(fx, { path: '/v1/chat/completions', body: chat(`made-up-${i}`) });
  const metrics = await (await fetch(`${fx.gw.url}/metrics`)).text();
  assert.ok(!metrics.includes('made-up-') && !metrics.includes('gpt-nope'), 'no label per unknown model name');
  const unknown =
    /modelgate_requests_total\{endpoint="\/v1\/chat\/completions",model="\(unknown\)",status="404"\} (\d+)/.exec(
      metrics,
    );
  assert.ok(unknown !== null && Number(unknown[1]) >= 6, metrics);
  anthropicError(
    await call(fx, { path: '/v1/messages', body: msgs({ model: 'claude-nope' }), headers: AV }),
    404,
    'not_found_error',
  );
  openaiError(await call(fx, { path: '/v1/chat/completions', body: chat('secret-model') }), 403, 'model_not_allowed');
  const wrong = anthropicError(
    await call(fx, { path: '/v1/messages', body: msgs({ model: 'gpt-up' }), headers: AV }),
    400,
    'invalid_request_error',
  );
  assert.match(wrong.message, /\/v1\/chat\/completions/);
});

test('400: anthropic-version missing or wrong, and the messages rules of SPEC §8', async () => {
  anthropicError(await call(fx, { path: '/v1/messages', body: msgs() }), 400, 'invalid_request_error');
  const wrong = anthropicError(
    await call(fx, { path: '/v1/messages', body: msgs(), headers: { 'anthropic-version': '2024-01-01' } }),
    400,
    'invalid_request_error',
  );
  assert.match(wrong.message, /2023-06-01 or 2026-10-21/);
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ max_tokens: undefined }, /max_tokens/],
    [{ messages: [{ role: 'assistant', content: 'x' }] }, /first message/],
    [
      {
        messages: [
          { role: 'user', content: 'a' },
          { role: 'user', content: 'b' },
        ],
      },
      /alternate/,
    ],
    [
      {
        messages: [
          { role: 'user', content: 'a' },
          { role: 'system', content: 7 },
        ],
      },
      /system message/,
    ],
    [
      {
        messages: [
          { role: 'system', content: 's' },
          { role: 'assistant', content: 'b' },
        ],
      },
      /first message/,
    ],
    [{ temperature: 1.5 }, /temperature/],
    [{ messages: [] }, /messages/],
  ];
  for (const [over, re] of cases) {
    const e = anthropicError(
      await call(fx, { path: '/v1/messages', body: msgs(over), headers: AV }),
      400,
      'invalid_request_error',
    );
    assert.match(e.message, re);
  }
  assert.equal(
    fx.up.requests.filter((r) => r.path === '/v1/messages').length,
    0,
    'invalid requests never reach the upstream',
  );
});

test('400 malformed JSON and bad chat fields, 413 over the body limit — never a crash', async () => {
  openaiError(
    await call(fx, { path: '/v1/chat/completions', body: '{"model": "gpt-up", "messages": [' }),
    400,
    'invalid_json',
  );
  anthropicError(await call(fx, { path: '/v1/messages', body: 'not json', headers: AV }), 400, 'invalid_request_error');
  openaiError(await call(fx, { path: '/v1/chat/completions', body: { model: 'gpt-up' } }), 400, 'invalid_request');
  openaiError(
    await call(fx, {
      path: '/v1/chat/completions',
      body: { model: 'gpt-up', messages: [{ role: 'wizard', content: 'x' }] },
    }),
    400,
  );
  openaiError(
    await call(fx, {
      path: '/v1/chat/completions',
      body: { model: 'gpt-up', messages: [{ role: 'user', content: 'x' }], temperature: 'hot' },
    }),
    400,
  );
  openaiError(await call(fx, { path: '/v1/chat/completions', body: '[]' }), 400);
  const big = { model: 'gpt-up', messages: [{ role: 'user', content: 'x'.repeat(20_000) }] };
  openaiError(await call(fx, { path: '/v1/chat/completions', body: big }), 413, 'body_too_large');
  // request_too_large is Anthropic's real 413 type but is missing from the official union (SOURCES.md caveat 4).
  const tooBig = await call(fx, {
    path: '/v1/messages',
    body: { ...(msgs() as object), system: 'y'.repeat(20_000) },
    headers: AV,
  });
  assert.equal(tooBig.status, 413);
  assert.deepEqual(Object.keys(tooBig.json as object), ['type', 'error', 'request_id']);
  assert.equal((tooBig.json as { error: { type: string } }).error.type, 'request_too_large');
  assert.equal((await call(fx, { path: '/v1/chat/completions', body: chat() })).status, 200, 'still serving');
});

test('translated routes: parts of the wrong shape are 400s naming the field; an upstream’s JSON that is no object a 502', async () => {
  const upstreamCalls = fx.up.requests.length;
  // chat completions → Anthropic-style upstream, then messages → OpenAI-style upstream.
  const badChat = { model: 'claude-once', messages: [{ role: 'user', content: [null] }] };
  const e = openaiError(await call(fx, { path: '/v1/chat/completions', body: badChat }), 400, 'invalid_request') as {
    param?: string;
  };
  assert.equal(e.param, 'messages[0].content[0]');
  const badCall = {
    model: 'claude-once',
    messages: [
      { role: 'user', content: 'hi' },
      { role: 'assistant', tool_calls: [{ id: 'c', function: { name: 'f', arguments: { a: 1 } } }] },
    ],
  };
  openaiError(await call(fx, { path: '/v1/chat/completions', body: badCall }), 400, 'invalid_request');
  const a = anthropicError(
    await call(fx, {
      path: '/v1/messages',
      body: msgs({ model: 'claude-via-openai', messages: [{ role: 'user', content: [{ type: 'text', text: 5 }] }] }),
      headers: AV,
    }),
    400,
    'invalid_request_error',
  );
  assert.match(a.message, /text must be a string/);
  anthropicError(
    await call(fx, {
      path: '/v1/messages',
      body: msgs({ model: 'claude-via-openai', thinking: { type: 'enabled', budget_tokens: 'lots' } }),
      headers: AV,
    }),
    400,
    'invalid_request_error',
  );
  assert.equal(fx.up.requests.length, upstreamCalls, 'none of them reached the upstream');
  // Valid JSON that is not an object, with status 200: the reply translators never see it.
  fx.up.enqueue({ kind: 'non-json-200', body: 'null', contentType: 'application/json' });
  openaiError(
    await call(fx, {
      path: '/v1/chat/completions',
      body: { model: 'claude-once', messages: [{ role: 'user', content: 'hi' }] },
    }),
    502,
    'upstream_error',
  );
  fx.up.enqueue({ kind: 'non-json-200', body: '[1, 2]', contentType: 'application/json' });
  anthropicError(
    await call(fx, { path: '/v1/messages', body: msgs({ model: 'claude-via-openai' }), headers: AV }),
    502,
    'api_error',
  );
  assert.equal((await call(fx, { path: '/v1/chat/completions', body: chat() })).status, 200, 'still serving');
});

test('an upstream’s negative or absurd usage bills nothing for it: token counts are clamped before cost and budget', async () => {
  const { key } = await fx.gw.createKey({ name: 'odd-usage', flags: ['--budget-usd', '1', '--models', 'gpt-up'] });
  const reply = (usage: Record<string, unknown>) => ({
    id: 'chatcmpl-odd',
    object: 'chat.completion',
    created: 1,
    model: 'upstream-gpt',
    choices: [
      { index: 0, message: { role: 'assistant', content: 'hi', refusal: null }, logprobs: null, finish_reason: 'stop' },
    ],
    usage,
  });
  fx.up.enqueue({
    kind: 'status',
    status: 200,
    body: reply({ prompt_tokens: 10, completion_tokens: -1_000_000_000, total_tokens: 0 }),
  });
  assert.equal((await call(fx, { path: '/v1/chat/completions', body: chat(), auth: key })).status, 200);
  fx.up.enqueue({
    kind: 'status',
    status: 200,
    body: reply({ prompt_tokens: 1e300, completion_tokens: 0.4, total_tokens: 1e300 }),
  });
  assert.equal((await call(fx, { path: '/v1/chat/completions', body: chat(), auth: key })).status, 200);
  let row: { requests: number; inputTokens: number; outputTokens: number; costUsd: number } | undefined;
  for (let i = 0; i < 100 && (row === undefined || row.requests < 2); i++) {
    const rows = JSON.parse(await fx.gw.cli(['usage', '--json'])) as ({ keyName: string } & NonNullable<typeof row>)[];
    row = rows.find((r) => r.keyName === 'odd-usage');
  }
  assert.ok(row !== undefined && row.requests === 2, JSON.stringify(row));
  // 10 input tokens, then the 1e9 cap; no output tokens (-1e9 and 0.4 both bill as 0).
  assert.equal(row.inputTokens, 1_000_000_010);
  assert.equal(row.outputTokens, 0);
  assert.ok(Number.isFinite(row.costUsd) && row.costUsd > 0, `a finite, positive cost: ${row.costUsd}`);
  // The budget was charged, not credited: the key is now over its 1 USD and refused.
  const over = await call(fx, { path: '/v1/chat/completions', body: chat(), auth: key });
  openaiError(over, 403);
});

test('the upstream’s own OpenAI error code reaches the caller; an upstream 404 is a 502 (operator configuration)', async () => {
  fx.up.enqueue({
    kind: 'status',
    status: 400,
    body: {
      error: {
        message: 'This model’s maximum context length is 8192 tokens',
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    },
  });
  const e = openaiError(await call(fx, { path: '/v1/chat/completions', body: chat() }), 400) as {
    message: string;
    code: string;
    param?: string;
  };
  assert.equal(e.code, 'context_length_exceeded');
  assert.equal(e.param, 'messages');
  fx.up.enqueue({
    kind: 'status',
    status: 404,
    body: {
      error: {
        message: 'The model `upstream-gpt` does not exist',
        type: 'invalid_request_error',
        param: null,
        code: 'model_not_found',
      },
    },
  });
  const nf = openaiError(await call(fx, { path: '/v1/chat/completions', body: chat() }), 502);
  assert.match(nf.message, /does not exist/);
});

test('upstream 400 text reaches the caller (secrets masked); upstream 401 becomes 502, not the caller’s 401', async () => {
  fx.up.enqueue({
    kind: 'status',
    status: 400,
    body: {
      error: {
        message: `max_tokens is too large; your key ${UPSTREAM_SECRET} was used`,
        type: 'invalid_request_error',
        param: 'max_tokens',
        code: null,
      },
    },
  });
  const e = openaiError(await call(fx, { path: '/v1/chat/completions', body: chat() }), 400);
  assert.match(e.message, /max_tokens is too large/);
  assert.ok(!e.message.includes(UPSTREAM_SECRET), 'provider key is masked');
  fx.up.enqueue({
    kind: 'status',
    status: 400,
    body: {
      type: 'error',
      error: { type: 'invalid_request_error', message: 'prompt is too long: 300000 tokens > 200000 maximum' },
    },
  });
  const a = anthropicError(
    await call(fx, { path: '/v1/messages', body: msgs(), headers: AV }),
    400,
    'invalid_request_error',
  );
  assert.match(a.message, /prompt is too long/);
  fx.up.enqueue({ kind: 'status', status: 401 });
  const u = openaiError(await call(fx, { path: '/v1/chat/completions', body: chat() }), 502, 'upstream_error');
  assert.match(u.message, /credentials/);
});

test('keys made, disabled, enabled, expired and deleted with the CLI take effect on the running server', async () => {
  const { key, id } = await fx.gw.createKey({ name: 'lifecycle' });
  const ok = async (): Promise<number> =>
    (await call(fx, { path: '/v1/chat/completions', body: chat('gpt-mock'), auth: key })).status;
  assert.equal(await ok(), 200);
  await fx.gw.cli(['keys', 'disable', id]);
  const t0 = Date.now();
  while ((await ok()) !== 401) assert.ok(Date.now() - t0 < 1000, 'disable took effect within one second');
  await fx.gw.cli(['keys', 'enable', id]);
  // Timed from the CLI's return, as the other two: its start-up on a loaded machine is not the server's doing.
  const tEnabled = Date.now();
  while ((await ok()) !== 200) assert.ok(Date.now() - tEnabled < 1000, 'enable took effect within one second');
  await fx.gw.cli(['keys', 'update', id, '--expires', '2000-01-01T00:00:00Z']);
  const t1 = Date.now();
  let r = await call(fx, { path: '/v1/chat/completions', body: chat('gpt-mock'), auth: key });
  while (r.status !== 401) {
    assert.ok(Date.now() - t1 < 1000);
    r = await call(fx, { path: '/v1/chat/completions', body: chat('gpt-mock'), auth: key });
  }
  assert.equal(openaiError(r, 401, 'key_expired').code, 'key_expired');
  await fx.gw.cli(['keys', 'delete', id]);
  const list = await fx.gw.cli(['keys', 'list', '--json']);
  assert.ok(!list.includes(id));
  assert.ok(!list.includes(key), 'listing never shows a whole key');
});

test('a whole key never appears in the server log, even after errors', async () => {
  await call(fx, { path: '/v1/chat/completions', body: chat('gpt-nope') });
  await call(fx, { path: '/v1/chat/completions', body: '{bad' });
  await call(fx, { path: '/v1/messages', body: msgs(), headers: { 'x-api-key': fx.key } });
  fx.up.enqueue({ kind: 'status', status: 500, body: `internal: ${UPSTREAM_SECRET}` });
  await call(fx, { path: '/v1/chat/completions', body: chat() });
  const logs = fx.gw.logs();
  assert.ok(logs.length > 0);
  assert.ok(!logs.includes(fx.key), 'caller key not in logs');
  assert.ok(!logs.includes(UPSTREAM_SECRET), 'provider key not in logs');
  const show = await fx.gw.cli(['keys', 'show', fx.keyId]);
  assert.ok(!show.includes(fx.key));
  assert.ok(show.includes(fx.key.slice(0, 4)) && show.includes(fx.key.slice(-4)), 'masked form is first 4 + last 4');
});

test('every request writes a usage row; `modelgate usage` summarises per key and model', async () => {
  await call(fx, { path: '/v1/chat/completions', body: chat() });
  const rows = JSON.parse(await waitForUsage(fx)) as {
    model: string;
    requests: number;
    inputTokens: number;
    outputTokens: number;
    costUsd: number;
    keyName: string;
  }[];
  const gpt = rows.find((r) => r.model === 'gpt-up' && r.keyName === 'e2e');
  assert.ok(gpt && gpt.requests >= 1 && gpt.outputTokens > 0 && gpt.costUsd > 0, JSON.stringify(rows));
  const text = await fx.gw.cli(['usage']);
  assert.match(text, /gpt-up/);
});

async function waitForUsage(f: Fixture): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const out = await f.gw.cli(['usage', '--json']);
    if (out.includes('gpt-up')) return out;
  }
  throw new Error('no usage rows');
}

test('an unknown model name reaches the usage rows masked, without control characters and cut to 100 characters', async () => {
  const { key } = await fx.gw.createKey({ name: 'odd-model' });
  const pasted = 'sk-abcdefghijklmnopqrstuvwxyz0123456789ABCD';
  const model = `${pasted}\n2026-11-22  alice  gpt-up  41\u001b[8m${'x'.repeat(5000)}`;
  const r = await call(fx, { path: '/v1/chat/completions', body: chat(model), auth: key });
  assert.equal(r.status, 404);
  let rows: Array<{ keyName: string; model: string }> = [];
  for (let i = 0; i < 100 && !rows.some((row) => row.keyName === 'odd-model'); i++)
    rows = JSON.parse(await fx.gw.cli(['usage', '--json'])) as typeof rows;
  const row = rows.find((x) => x.keyName === 'odd-model');
  assert.ok(row, 'the refused request has its row');
  assert.ok(!row.model.includes(pasted) && !row.model.includes('abcdefghijklmnop'), row.model);
  assert.ok(!/[\u0000-\u001f]/.test(row.model), 'no control characters');
  assert.ok(row.model.length <= 101, `${row.model.length} characters`);
  assert.ok(!(await fx.gw.cli(['usage'])).includes('abcdefghijklmnop'));
});

// Issue 5: every upstream fault, per client dialect and per route (pass-through and translated), through a
// real gateway: status and body the client sees, deployments tried in order, time, sockets, usage row.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import {
  startRoutingFixture,
  ROUTES,
  SECRET,
  TIMEOUTS,
  type RoutingFixture,
  type Route,
} from '../routing/e2e-fixture.ts';
import {
  parseSseText,
  validateAnthropicError,
  validateOpenAIError,
  validateChatCompletion,
  validateMessage,
} from '../helpers/schemas.ts';
import type { Fault } from '../helpers/mock-upstream-types.ts';

let fx: RoutingFixture;
before(async () => {
  fx = await startRoutingFixture();
  // The first request of a process pays for lazy loading (translators, tokenizer); time bounds below must not.
  for (const route of ROUTES) await (await fx.send(route, { stream: true })).text();
});

/** The upstream saw the request end from our side (aborted), and nothing is left in flight on it. */
async function upstreamAborted(i: number, timeoutMs = 2_000): Promise<void> {
  const up = fx.ups[i];
  await up.waitFor(
    () => up.inFlight() === 0 && up.requests.at(-1)?.outcome === 'aborted',
    'the upstream request to be aborted',
    { timeoutMs },
  );
}
after(async () => fx.close());
beforeEach(() => fx.faults({}));

const OK_JSON = (route: Route, body: unknown): void =>
  route.client === 'openai' ? validateChatCompletion(body) : validateMessage(body);

function validateError(route: Route, body: unknown): { message: string } {
  if (route.client === 'openai') validateOpenAIError(body);
  else validateAnthropicError(body);
  return (body as { error: { message: string } }).error;
}

async function expectError(route: Route, res: Response, status: number): Promise<string> {
  const text = await res.text();
  assert.equal(res.status, status, text);
  assert.ok(!text.includes(SECRET) && !text.includes(SECRET.slice(8, 24)), 'no provider key in the error');
  assert.ok(res.headers.get('x-request-id'));
  return validateError(route, JSON.parse(text)).message;
}

/** The stream's last event is a well-formed error in the client's dialect, and the stream ended. */
function expectStreamError(route: Route, text: string): void {
  const events = parseSseText(text);
  const last = events.at(-1)!;
  if (route.client === 'anthropic') assert.equal(last.event, 'error');
  validateError(route, JSON.parse(last.data));
  assert.ok(events.length > 1, 'some content arrived before the failure');
}

for (const route of ROUTES) {
  test(`${route.label}: 429 with retry-after and 5xx/529 fail over in priority order without waiting`, async () => {
    fx.faults({
      A: [{ kind: 'status', status: 429, headers: { 'retry-after': '30' } }],
      B: [{ kind: 'status', status: 529 }],
    });
    const started = performance.now();
    const res = await fx.send(route);
    const body: unknown = await res.json();
    // Measured before validation: the first schema compile in this process takes seconds.
    const took = performance.now() - started;
    assert.equal(res.status, 200);
    OK_JSON(route, body);
    assert.deepEqual(fx.tried(), ['A', 'B', 'C']);
    assert.ok(took < 900, `failover to a fresh deployment does not back off (took ${took} ms)`);
    const row = await fx.usageRow(res.headers.get('x-request-id')!);
    assert.equal(row.attempts, 3);
    assert.equal(row.deployment, `${route.model}#2`);
    assert.equal(row.status, 200);
    assert.ok(row.output_tokens > 0);
    // A's retry-after now steers later requests to B and C: the next tests start from a rested A.
    await fx.resetHealth();
  });

  test(`${route.label}: reset and non-JSON 200 fail over`, async () => {
    fx.faults({ A: [{ kind: 'reset' }], B: [{ kind: 'non-json-200' }] });
    const res = await fx.send(route);
    assert.equal(res.status, 200, await res.clone().text());
    OK_JSON(route, await res.json());
    assert.deepEqual(fx.tried(), ['A', 'B', 'C']);
  });

  test(`${route.label}: a 103 Early Hints before the answer is skipped, streamed or not`, async () => {
    for (const stream of [false, true]) {
      fx.faults({ A: [{ kind: 'early-hints' }] });
      const res = await fx.send(route, { stream });
      const text = await res.text();
      assert.equal(res.status, 200, text);
      if (stream) assert.ok(!text.includes('"error"'), text);
      else OK_JSON(route, JSON.parse(text));
      assert.deepEqual(fx.tried(), ['A']);
      const row = await fx.usageRow(res.headers.get('x-request-id')!);
      assert.equal(row.status, 200);
      assert.ok(row.output_tokens > 0);
    }
  });

  test(`${route.label}: an answer compressed unasked, or a whole JSON body for a stream, fails over`, async () => {
    const cases: Array<{ stream: boolean; faults: Fault[] }> = [
      { stream: false, faults: [{ kind: 'encoded', encoding: 'gzip' }] },
      { stream: true, faults: [{ kind: 'encoded', encoding: 'br' }] },
      { stream: true, faults: [{ kind: 'ignore-stream' }] },
    ];
    for (const { stream, faults } of cases) {
      fx.faults({ A: faults });
      const res = await fx.send(route, { stream });
      const text = await res.text();
      assert.equal(res.status, 200, text);
      assert.ok(!text.includes('"error"'), `${JSON.stringify(faults)}: ${text.slice(0, 300)}`);
      if (stream) assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
      assert.deepEqual(fx.tried(), ['A', 'B'], JSON.stringify(faults));
    }
    // The upstream is asked for identity, so a compliant one never compresses.
    assert.equal(fx.ups[0].requests.at(-1)?.headers['accept-encoding'], 'identity');
  });

  test(`${route.label}: hang before headers → first-byte timeout → next deployment; upstream socket closed`, async () => {
    fx.faults({ A: [{ kind: 'hang-before-headers' }] });
    const started = performance.now();
    const res = await fx.send(route, { stream: true });
    const text = await res.text();
    const took = performance.now() - started;
    assert.equal(res.status, 200);
    assert.ok(!text.includes('"error"'), text);
    assert.deepEqual(fx.tried(), ['A', 'B']);
    assert.ok(took >= TIMEOUTS.firstByteMs - 20 && took < TIMEOUTS.firstByteMs + 1_500, `took ${took} ms`);
    await upstreamAborted(0);
  });

  test(`${route.label}: headers then silence (stream) → first-byte timeout before any byte → fails over`, async () => {
    fx.faults({ A: [{ kind: 'hang-after-headers', afterEvents: 0 }] });
    const res = await fx.send(route, { stream: true });
    assert.equal(res.status, 200);
    await res.text();
    assert.deepEqual(fx.tried(), ['A', 'B']);
  });

  // undici's own socket timers are off (http-provider.ts): the attempt's first-byte clock alone must stop
  // a non-streamed body that stalls after its first bytes.
  test(`${route.label}: a non-streamed body that stops halfway → first-byte timeout → next deployment; upstream socket closed`, async () => {
    fx.faults({ A: [{ kind: 'hang-after-headers', afterEvents: 1 }] });
    const started = performance.now();
    const res = await fx.send(route);
    const text = await res.text();
    const took = performance.now() - started;
    assert.equal(res.status, 200, text);
    OK_JSON(route, JSON.parse(text));
    assert.deepEqual(fx.tried(), ['A', 'B']);
    assert.ok(took >= TIMEOUTS.firstByteMs - 20 && took < TIMEOUTS.firstByteMs + 1_000, `took ${took} ms`);
    await upstreamAborted(0);
  });

  test(`${route.label}: every deployment 5xx → 502 naming the attempts`, async () => {
    fx.faults({
      A: [{ kind: 'status', status: 500 }],
      B: [{ kind: 'status', status: 502 }],
      C: [{ kind: 'status', status: 503 }],
    });
    const res = await fx.send(route);
    const message = await expectError(route, res, 502);
    assert.match(message, /3 attempts/);
    assert.deepEqual(fx.tried(), ['A', 'B', 'C']);
    const row = await fx.usageRow(res.headers.get('x-request-id')!);
    assert.equal(row.attempts, 3);
    assert.equal(row.status, 502);
  });

  test(`${route.label}: an overloaded upstream reads as overloaded_error to Anthropic callers; x-should-retry: false is honoured and passed on`, async () => {
    fx.faults({
      A: [{ kind: 'status', status: 500 }],
      B: [{ kind: 'status', status: 502 }],
      C: [{ kind: 'status', status: 529 }],
    });
    const res = await fx.send(route);
    const text = await res.text();
    assert.equal(res.status, 502, text);
    const type = (JSON.parse(text) as { error: { type: string } }).error.type;
    assert.equal(type, route.client === 'anthropic' ? 'overloaded_error' : 'server_error');
    assert.equal(res.headers.get('x-should-retry'), null, 'a 5xx may pass: the SDK may retry');
    fx.faults({ A: [{ kind: 'status', status: 500, headers: { 'x-should-retry': 'false' } }] });
    const stop = await fx.send(route);
    await expectError(route, stop, 502);
    assert.deepEqual(fx.tried(), ['A'], 'the upstream said a retry cannot help');
    assert.equal(stop.headers.get('x-should-retry'), 'false');
  });

  test(`${route.label}: every deployment rate-limited → 429 with the smallest retry-after`, async () => {
    fx.faults({
      A: [{ kind: 'status', status: 429, headers: { 'retry-after': '30' } }],
      B: [{ kind: 'status', status: 429, headers: { 'retry-after': '20' } }],
      C: [{ kind: 'status', status: 429, headers: { 'retry-after': '40' } }],
    });
    const res = await fx.send(route);
    const message = await expectError(route, res, 429);
    assert.equal(res.headers.get('retry-after'), '20');
    assert.match(message, /3 attempts/);
    await fx.resetHealth();
  });

  test(`${route.label}: 400 is not retried and its text reaches the caller`, async () => {
    const upstreamError =
      route.model.includes('-ant') || route.model === 'claude-r-ant'
        ? { type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: too large for this model' } }
        : {
            error: {
              message: 'max_tokens: too large for this model',
              type: 'invalid_request_error',
              param: 'max_tokens',
              code: null,
            },
          };
    // The second form: a proxy in front of the upstream gzips its error although identity was asked for.
    const gzipped: Fault = {
      kind: 'custom',
      handle: ({ res }) => {
        res.writeHead(400, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(gzipSync(JSON.stringify(upstreamError)));
      },
    };
    for (const fault of [{ kind: 'status', status: 400, body: upstreamError } satisfies Fault, gzipped]) {
      fx.faults({ A: [fault] });
      const res = await fx.send(route);
      const message = await expectError(route, res, 400);
      assert.match(message, /too large for this model/, fault.kind);
      assert.deepEqual(fx.tried(), ['A']);
    }
  });

  test(`${route.label}: an upstream 403 about the request (moderation, a WAF) is the caller's 403; the key stays in rotation`, async () => {
    for (let i = 0; i < 3; i++) {
      fx.faults({
        A: [
          {
            kind: 'status',
            status: 403,
            body: {
              error: { message: 'Input flagged by moderation', type: 'invalid_request_error', code: 'moderation' },
            },
          },
        ],
      });
      const message = await expectError(route, await fx.send(route), 403);
      assert.match(message, /refused the request: Input flagged by moderation/);
      assert.deepEqual(fx.tried(), ['A'], 'not retried: another attempt would be refused the same way');
    }
    // Were a 403 taken for bad credentials, the key would be out of rotation now, for every caller.
    fx.faults({});
    const res = await fx.send(route);
    await res.text();
    assert.equal(res.status, 200);
    assert.deepEqual(fx.tried(), ['A']);
  });

  test(`${route.label}: stream cut after some events → in-stream error event, ended stream, usage so far settled`, async () => {
    fx.faults({ A: [{ kind: 'cut-stream', afterEvents: 4 }] });
    const res = await fx.send(route, { stream: true });
    assert.equal(res.status, 200);
    expectStreamError(route, await res.text());
    assert.deepEqual(fx.tried(), ['A'], 'no retry after the first byte');
    const row = await fx.usageRow(res.headers.get('x-request-id')!);
    assert.equal(row.status, 502);
    assert.equal(row.deployment, `${route.model}#0`);
    assert.ok(row.input_tokens > 0 && row.output_tokens > 0, JSON.stringify(row));
  });

  test(`${route.label}: the upstream's own error event mid-stream → one error event for the caller, a 502 row`, async () => {
    fx.faults({ A: [{ kind: 'stream-error', afterEvents: 2 }] });
    const res = await fx.send(route, { stream: true });
    assert.equal(res.status, 200);
    const text = await res.text();
    const events = parseSseText(text).filter((e) => e.data !== '[DONE]');
    const errors = events.filter((e) =>
      route.client === 'anthropic'
        ? e.event === 'error'
        : (JSON.parse(e.data) as { error?: unknown }).error !== undefined,
    );
    assert.equal(errors.length, 1, `one error event: ${text}`);
    assert.equal(events.at(-1), errors[0], 'and it is the last');
    validateError(route, JSON.parse(errors[0].data));
    const row = await fx.usageRow(res.headers.get('x-request-id')!);
    // Translated streams end with the translator's own error event; they read 200 before.
    assert.equal(row.status, 502);
    assert.equal(row.error_code, 'upstream_error');
  });

  test(`${route.label}: idle timeout mid-stream → in-stream timeout error within bounds`, async () => {
    fx.faults({ A: [{ kind: 'hang-after-headers', afterEvents: 3 }] });
    const started = performance.now();
    const res = await fx.send(route, { stream: true });
    const text = await res.text();
    const took = performance.now() - started;
    expectStreamError(route, text);
    assert.match(text, /stalled|timed out|timeout/i);
    assert.ok(took >= TIMEOUTS.idleMs - 20 && took < TIMEOUTS.idleMs + 1_500, `took ${took} ms`);
    await upstreamAborted(0);
    const row = await fx.usageRow(res.headers.get('x-request-id')!);
    assert.equal(row.status, 504);
  });

  test(`${route.label}: client leaves mid-stream → upstream aborted at once, usage so far settled`, async () => {
    fx.faults({ A: [{ kind: 'hang-after-headers', afterEvents: 3 }] });
    const ac = new AbortController();
    const res = await fx.send(route, { stream: true, signal: ac.signal });
    const reader = res.body!.getReader();
    await reader.read();
    ac.abort();
    await upstreamAborted(0, TIMEOUTS.idleMs - 100);
    const row = await fx.usageRow(res.headers.get('x-request-id')!);
    assert.equal(row.status, 499);
    assert.equal(row.attempts, 1);
  });
}

test('malformed SSE mid-stream ends the stream well-formed', async () => {
  const route = ROUTES[0];
  fx.faults({ A: [{ kind: 'malformed-sse', afterEvents: 3 }] });
  const res = await fx.send(route, { stream: true });
  const text = await res.text();
  assert.equal(res.status, 200);
  const events = parseSseText(text);
  assert.ok(events.length > 0);
  const last = events.at(-1)!;
  assert.ok(last.data === '[DONE]' || 'error' in (JSON.parse(last.data) as object), text);
});

test('a slow trickle within the idle timeout is relayed whole', async () => {
  const route = ROUTES[0];
  fx.faults({ A: [{ kind: 'trickle', intervalMs: 5, chunkBytes: 64 }] });
  const res = await fx.send(route, { stream: true });
  const text = await res.text();
  assert.equal(res.status, 200);
  assert.ok(text.trimEnd().endsWith('data: [DONE]'), text);
  assert.deepEqual(fx.tried(), ['A']);
});

test('a client that stops reading for longer than the idle timeout holds the upstream paused, and the stream then arrives whole', async () => {
  const route = ROUTES[0];
  const content = 'x'.repeat(16 * 1024);
  const event = (i: number): string =>
    `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"up-A","choices":[{"index":0,"delta":{"content":"${i} ${content}"},"finish_reason":null}]}\n\n`;
  let sent = 0;
  let waiting = false;
  let released = false;
  fx.faults({
    A: [
      {
        kind: 'custom',
        handle: async ({ res }) => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          // As fast as the gateway takes them, until the test lets the stream end.
          while (!released && !res.destroyed) {
            if (res.write(event(sent++))) continue;
            waiting = true;
            await new Promise((resolve) => {
              res.once('drain', resolve);
              res.once('close', resolve);
            });
            waiting = false;
          }
          if (res.destroyed) return;
          res.write(
            'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"up-A","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n',
          );
          res.write(
            'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"up-A","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":5,"total_tokens":8}}\n\n',
          );
          res.end('data: [DONE]\n\n');
        },
      },
    ],
  });
  const res = await fx.send(route, { stream: true });
  assert.equal(res.status, 200);
  const reader = res.body!.getReader();
  await fx.ups[0].waitFor(() => waiting && sent >= 64, 'the upstream to be waiting with a megabyte sent', {
    timeoutMs: 10_000,
  });
  // The client's pause, not a clock under test: three idle timeouts without reading a byte. Every
  // buffer on the way fills within it, and the gateway must not take the silence it caused for a stall.
  await new Promise((resolve) => setTimeout(resolve, 3 * TIMEOUTS.idleMs));
  assert.ok(waiting, 'the upstream is still paused by the gateway, not cut off');
  released = true;
  const decoder = new TextDecoder();
  let text = '';
  for (let r = await reader.read(); !r.done; r = await reader.read()) text += decoder.decode(r.value, { stream: true });
  const events = parseSseText(text);
  assert.equal(events.at(-1)?.data, '[DONE]', 'the stream ended normally, not with an idle-timeout error');
  const chunks = events
    .slice(0, -1)
    .map((e) => JSON.parse(e.data) as { model: string; choices: Array<{ delta: { content?: string } }> });
  assert.equal(
    chunks.length,
    sent + 1,
    'every event and the finish chunk; the usage chunk the client did not ask for is gone',
  );
  chunks.slice(0, sent).forEach((c, i) => assert.equal(c.choices[0].delta.content, `${i} ${content}`));
  assert.ok(chunks.every((c) => c.model === route.model));
  const row = await fx.usageRow(res.headers.get('x-request-id')!);
  assert.equal(row.status, 200);
  assert.equal(row.output_tokens, 5);
});

test('every deployment hangs → 504 once the whole-request deadline is near, within bounds', async () => {
  const route = ROUTES[0];
  fx.faults({
    A: [{ kind: 'hang-before-headers' }],
    B: [{ kind: 'hang-before-headers' }],
    C: [{ kind: 'hang-before-headers' }],
  });
  const started = performance.now();
  const res = await fx.send(route);
  const took = performance.now() - started;
  const message = await expectError(route, res, 504);
  assert.match(message, /3 attempts/);
  assert.ok(took >= 3 * TIMEOUTS.firstByteMs - 50 && took < TIMEOUTS.totalMs, `took ${took} ms`);
  for (const i of [0, 1, 2]) await upstreamAborted(i);
});

test('the same deployment is retried after a backoff that honours retry-after', async () => {
  const route: Route = { label: 'single', model: 'r-single', path: '/v1/chat/completions', client: 'openai' };
  fx.faults({ A: [{ kind: 'status', status: 503, headers: { 'retry-after-ms': '1500' } }] });
  const started = performance.now();
  const res = await fx.send(route);
  const took = performance.now() - started;
  assert.equal(res.status, 200, await res.clone().text());
  assert.deepEqual(fx.tried(), ['A', 'A']);
  assert.ok(took >= 1_450 && took < 2_500, `took ${took} ms`);
  const row = await fx.usageRow(res.headers.get('x-request-id')!);
  assert.equal(row.attempts, 2);
});

test('client leaves while the upstream hangs before headers → upstream aborted, row 499', async () => {
  const route = ROUTES[0];
  fx.faults({ A: [{ kind: 'hang-before-headers' }] });
  const ac = new AbortController();
  const before = fx.ups[0].requests.length;
  const pending = fx.send(route, { signal: ac.signal }).catch((err: unknown) => err);
  await fx.ups[0].waitForRequests(before + 1);
  ac.abort();
  await pending;
  await upstreamAborted(0, TIMEOUTS.firstByteMs - 100);
  assert.deepEqual(fx.tried(), ['A']);
});

test('a non-streamed answer past the 64 MB buffer limit is stopped, not buffered, and fails over', async () => {
  const route = ROUTES[0];
  const mb = Buffer.alloc(1024 * 1024, 0x61);
  let written = 0;
  fx.faults({
    A: [
      {
        kind: 'custom',
        handle: async ({ res }) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write('{"id":"big","pad":"');
          // 80 MB if nobody stops it; the gateway must hang up at 64 MB.
          for (let i = 0; i < 80 && !res.destroyed; i++) {
            written += mb.length;
            if (!res.write(mb))
              await new Promise((resolve) => {
                res.once('drain', resolve);
                res.once('close', resolve);
              });
          }
          if (!res.destroyed) res.end('"}');
        },
      },
    ],
  });
  const res = await fx.send(route);
  assert.equal(res.status, 200, await res.clone().text());
  OK_JSON(route, await res.json());
  assert.deepEqual(fx.tried(), ['A', 'B']);
  await upstreamAborted(0);
  assert.ok(written < 80 * mb.length, `the upstream was cut off (${written} bytes written)`);
});

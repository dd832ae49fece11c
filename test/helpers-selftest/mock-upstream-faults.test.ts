// Self-test: each mock upstream fault does what its name says, and the observability helpers
// (openSockets, waitFor…, reset, close) are reliable. No fixed sleeps: ordering comes from events.

import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { startMockUpstream } from '../helpers/mock-upstream.ts';
import type { MockUpstream } from '../helpers/mock-upstream.ts';
import {
  parseSseText,
  validateAnthropicError,
  validateChatCompletionChunk,
  validateOpenAIError,
} from '../helpers/schemas.ts';

let mock: MockUpstream;

before(async () => {
  mock = await startMockUpstream();
});
after(() => mock.close());
beforeEach(() => mock.reset());

const chatBody = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };

function postChat(body: unknown = chatBody, signal?: AbortSignal): Promise<Response> {
  return fetch(`${mock.url}/v1/chat/completions`, { method: 'POST', body: JSON.stringify(body), signal });
}

function postMessages(body: unknown): Promise<Response> {
  return fetch(`${mock.url}/v1/messages`, { method: 'POST', body: JSON.stringify(body) });
}

/** Reads a body to its end or its failure, keeping whatever arrived. */
async function readAll(res: Response): Promise<{ text: string; error: unknown; reads: number }> {
  const reader = res.body?.getReader();
  assert.ok(reader);
  const decoder = new TextDecoder();
  let text = '';
  let reads = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text: text + decoder.decode(), error: undefined, reads };
      reads++;
      text += decoder.decode(value, { stream: true });
    }
  } catch (error) {
    return { text, error, reads };
  }
}

test('status: 429 with retry-after reaches the OpenAI SDK as RateLimitError with a schema-valid body', async () => {
  mock.enqueue({ kind: 'status', status: 429, headers: { 'retry-after': '7' } });
  const client = new OpenAI({ baseURL: `${mock.url}/v1`, apiKey: 'x', maxRetries: 0 });
  await assert.rejects(client.chat.completions.create({ model: 'm', messages: [] }), (err: unknown) => {
    assert.ok(err instanceof OpenAI.RateLimitError);
    assert.equal(err.headers?.get('retry-after'), '7');
    assert.equal(err.code, 'rate_limit_exceeded');
    return true;
  });
  for (const status of [500, 502, 503, 401, 400]) {
    mock.enqueue({ kind: 'status', status });
    const res = await postChat();
    assert.equal(res.status, status);
    assert.equal(res.headers.get('x-request-id') !== null, true);
    validateOpenAIError(await res.json());
  }
});

test('status: 529 and 500 on /v1/messages are Anthropic-shaped; the SDK sees overloaded_error', async () => {
  mock.enqueue({ kind: 'status', status: 529 });
  const client = new Anthropic({ baseURL: mock.url, apiKey: 'x', maxRetries: 0 });
  await assert.rejects(client.messages.create({ model: 'c', max_tokens: 5, messages: [] }), (err: unknown) => {
    assert.ok(err instanceof Anthropic.APIError);
    assert.equal(err.status, 529);
    assert.equal((err.error as { error: { type: string } }).error.type, 'overloaded_error');
    return true;
  });
  mock.enqueue({ kind: 'status', status: 500 });
  const res = await postMessages({ model: 'c' });
  const body = (await res.json()) as { request_id: string };
  validateAnthropicError(body);
  assert.equal(body.request_id, res.headers.get('request-id'));
});

test('status: a string body goes out as text/plain, an object as JSON', async () => {
  mock.enqueue(
    { kind: 'status', status: 400, body: 'plain upstream complaint' },
    { kind: 'status', status: 418, body: { odd: true } },
  );
  const text = await postChat();
  assert.equal(text.headers.get('content-type'), 'text/plain; charset=utf-8');
  assert.equal(await text.text(), 'plain upstream complaint');
  const json = await postChat();
  assert.deepEqual([json.status, await json.json()], [418, { odd: true }]);
});

test('the queue is consumed one fault per request, then behaviour is normal again', async () => {
  mock.enqueue({ kind: 'status', status: 503 }, { kind: 'status', status: 502 });
  assert.deepEqual([(await postChat()).status, (await postChat()).status, (await postChat()).status], [503, 502, 200]);
});

test('setBehaviour picks faults per request; the queue takes precedence; reset clears both', async () => {
  mock.setBehaviour((req) =>
    (req.json as { model?: string }).model === 'bad' ? { kind: 'status', status: 500 } : undefined,
  );
  assert.equal((await postChat({ model: 'bad', messages: [] })).status, 500);
  assert.equal((await postChat({ model: 'good', messages: [] })).status, 200);
  mock.enqueue({ kind: 'status', status: 401 });
  assert.equal((await postChat({ model: 'good', messages: [] })).status, 401);
  mock.reset();
  assert.equal((await postChat({ model: 'bad', messages: [] })).status, 200);
  assert.equal(mock.requests.length, 1);
});

test('reset: the connection is reset before any header', async () => {
  mock.enqueue({ kind: 'reset' });
  await assert.rejects(postChat(), (err: Error) => {
    assert.match(String((err.cause as { code?: string } | undefined)?.code), /ECONNRESET|UND_ERR_SOCKET/);
    return true;
  });
  assert.equal(mock.requests.length, 1);
});

test('hang-before-headers: no response while other requests complete; a client abort is recorded', async () => {
  mock.enqueue({ kind: 'hang-before-headers' });
  const controller = new AbortController();
  let answered = false;
  const hanging = postChat(chatBody, controller.signal).then(() => {
    answered = true;
  });
  await mock.waitForRequests(1);
  assert.equal((await postChat()).status, 200);
  assert.equal(answered, false);
  // The finished request's server-side 'close' may land just after the client has its response.
  await mock.waitFor(() => mock.inFlight() === 1, 'only the hanging request in flight');
  controller.abort();
  await assert.rejects(hanging, { name: 'AbortError' });
  await mock.waitFor(() => mock.requests[0].outcome === 'aborted', 'the hanging request to be aborted');
  assert.equal(mock.inFlight(), 0);
});

test('hang-after-headers: status 200 and the first events arrive, then nothing', async () => {
  mock.enqueue({ kind: 'hang-after-headers', afterEvents: 1 });
  const controller = new AbortController();
  const res = await postChat({ ...chatBody, stream: true }, controller.signal);
  assert.equal(res.status, 200);
  const reader = res.body?.getReader();
  assert.ok(reader);
  const first = await reader.read();
  assert.equal(parseSseText(new TextDecoder().decode(first.value)).length, 1);
  let more = false;
  const rest = reader.read().then(
    () => {
      more = true;
    },
    () => undefined,
  );
  assert.equal((await postChat()).status, 200);
  assert.equal(more, false);
  controller.abort();
  await rest;
  await mock.waitFor(() => mock.requests[0].outcome === 'aborted', 'the stalled stream to be aborted');
});

test('cut-stream: exactly N events, then the socket is destroyed mid-body', async () => {
  mock.enqueue({ kind: 'cut-stream', afterEvents: 2 });
  const { text, error } = await readAll(await postChat({ ...chatBody, stream: true }));
  assert.ok(error !== undefined, 'the body must fail, not end cleanly');
  const events = parseSseText(text);
  assert.equal(events.length, 2);
  for (const e of events) validateChatCompletionChunk(JSON.parse(e.data));
  await mock.waitFor(() => mock.requests[0].outcome === 'aborted', 'the cut response to close');
  mock.enqueue({ kind: 'cut-stream', afterEvents: 1 });
  const plain = await readAll(await postChat());
  assert.ok(plain.error !== undefined);
  assert.throws(() => JSON.parse(plain.text));
});

test('malformed-sse: good events, then a data line that is not JSON; the OpenAI SDK throws', async () => {
  mock.enqueue({ kind: 'malformed-sse', afterEvents: 2 });
  const { text, error } = await readAll(await postChat({ ...chatBody, stream: true }));
  assert.equal(error, undefined);
  const events = parseSseText(text);
  assert.equal(events.length, 3);
  JSON.parse(events[1].data);
  assert.throws(() => JSON.parse(events[2].data));
  mock.enqueue({ kind: 'malformed-sse' });
  const client = new OpenAI({ baseURL: `${mock.url}/v1`, apiKey: 'x', maxRetries: 0 });
  const stream = await client.chat.completions.create({ ...chatBody, messages: [], stream: true });
  await assert.rejects(async () => {
    for await (const _chunk of stream) {
      // drain
    }
  }, SyntaxError);
});

test('stream-error: an in-stream error in each dialect after N events; both SDKs raise APIError', async () => {
  mock.enqueue({ kind: 'stream-error', afterEvents: 2 });
  const raw = parseSseText(await (await postChat({ ...chatBody, stream: true })).text());
  assert.equal(raw.length, 3);
  validateOpenAIError(JSON.parse(raw[2].data));

  mock.enqueue({ kind: 'stream-error', afterEvents: 3 });
  const events = parseSseText(
    await (await postMessages({ model: 'c', max_tokens: 5, stream: true, messages: [] })).text(),
  );
  assert.deepEqual(
    events.map((e) => e.event),
    ['message_start', 'content_block_start', 'ping', 'error'],
  );
  const error = JSON.parse(events[3].data) as { error: { type: string } };
  validateAnthropicError(error);
  assert.equal(error.error.type, 'overloaded_error');

  mock.enqueue({ kind: 'stream-error', message: 'boom' });
  const openai = new OpenAI({ baseURL: `${mock.url}/v1`, apiKey: 'x', maxRetries: 0 });
  const stream = await openai.chat.completions.create({ model: 'm', messages: [], stream: true });
  await assert.rejects(
    async () => {
      for await (const _chunk of stream) {
        // drain
      }
    },
    (err: unknown) => err instanceof OpenAI.APIError && /boom/.test(err.message),
  );

  mock.enqueue({ kind: 'stream-error' });
  const anthropic = new Anthropic({ baseURL: mock.url, apiKey: 'x', maxRetries: 0 });
  await assert.rejects(
    anthropic.messages.stream({ model: 'c', max_tokens: 5, messages: [] }).finalMessage(),
    (err: unknown) => err instanceof Anthropic.APIError && /overloaded_error/.test(err.message),
  );

  mock.enqueue({ kind: 'stream-error' });
  const plain = await postMessages({ model: 'c', max_tokens: 5, messages: [] });
  assert.equal(plain.status, 529);
});

test('non-json-200: status 200 with an HTML body', async () => {
  mock.enqueue({ kind: 'non-json-200' });
  const res = await postMessages({ model: 'c', max_tokens: 5, messages: [] });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
  const text = await res.text();
  assert.match(text, /^<html>/);
});

test('trickle: the same bytes, paced: at least intervalMs between each slice', async () => {
  const normal = await (await postMessages({ model: 'c', max_tokens: 50, stream: true, messages: [] })).text();
  mock.enqueue({ kind: 'trickle', intervalMs: 2, chunkBytes: 64 });
  const started = performance.now();
  const slow = await readAll(await postMessages({ model: 'c', max_tokens: 50, stream: true, messages: [] }));
  const elapsed = performance.now() - started;
  assert.equal(slow.error, undefined);
  const normalize = (s: string): string => s.replaceAll(/msg_mock_\d+/g, 'msg');
  assert.equal(normalize(slow.text), normalize(normal));
  const slices = Math.ceil(Buffer.byteLength(normal) / 64);
  assert.ok(elapsed >= (slices - 1) * 2, `${slices} slices took only ${elapsed} ms`);
  assert.ok(slow.reads >= 2);
});

test('latencyMs and chunkDelayMs delay the answer at least that long', async () => {
  mock.configure({ latencyMs: 40, chunkDelayMs: 10 });
  const started = performance.now();
  const res = await postChat({ ...chatBody, stream: true });
  const headersAt = performance.now();
  await res.text();
  assert.ok(headersAt - started >= 35, `headers after ${headersAt - started} ms`);
  assert.ok(performance.now() - headersAt >= 10 * 4, 'five chunk gaps of 10 ms');
});

test('custom: the handler owns the response', async () => {
  mock.enqueue({
    kind: 'custom',
    handle: ({ res, dialect, recorded }) => {
      res.writeHead(299, { 'content-type': 'text/plain' });
      res.end(`${dialect} ${recorded.path}`);
    },
  });
  const res = await postChat();
  assert.deepEqual([res.status, await res.text()], [299, 'openai /v1/chat/completions']);
});

test('waitFor… rejects after its timeout with a message that says what it waited for', async () => {
  await assert.rejects(
    mock.waitForRequests(3, { timeoutMs: 20 }),
    /mock upstream: timed out after 20 ms waiting for 3 request\(s\) \(requests=0/,
  );
});

test('openSockets counts server-side sockets; close() destroys them and hanging clients fail', async () => {
  const other = await startMockUpstream();
  other.enqueue({ kind: 'hang-before-headers' });
  const hanging = fetch(`${other.url}/v1/models`);
  await other.waitForRequests(1);
  assert.equal(other.openSockets(), 1);
  await other.close();
  await assert.rejects(hanging);
  assert.equal(other.openSockets(), 0);
  await other.waitForSocketsClosed({ timeoutMs: 50 });
});

test('a client that aborts mid-body, or a throwing custom handler, leaves the mock serving', async () => {
  const partial = request(`${mock.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-length': '100' } });
  partial.on('error', () => undefined);
  await new Promise<void>((resolve) => partial.write('{"model":', () => resolve()));
  partial.destroy();
  mock.enqueue({
    kind: 'custom',
    handle: () => {
      throw new Error('handler bug');
    },
  });
  await assert.rejects(postChat());
  assert.equal((await postChat()).status, 200);
  assert.equal(mock.requests.length, 2);
});

// A request whose key is refused (unknown key 401, no right to the model 403, spent window 429) is answered
// from its headers, before its large body is read, and its connection closes instead of draining the rest
// of the upload; so is a body whose first bytes name a model the key may not use. Each upload here declares
// 20 MB and sends one 64 kB part: the answer and the close must come
// while the client has sent that part only.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { once } from 'node:events';
import { startGateway, configYaml, type GatewayProcess } from '../helpers/gateway-process.ts';
import { validateAnthropicError, validateOpenAIError } from '../helpers/schemas.ts';

const DECLARED = 20 * 1024 * 1024;
const PART = 64 * 1024;

let gw: GatewayProcess;
before(async () => {
  gw = await startGateway({
    configYaml: configYaml({
      models:
        '  - { name: gpt-mock, deployments: [ { provider: mock, model: gpt-mock } ] }\n  - { name: gpt-other, deployments: [ { provider: mock, model: gpt-mock } ] }',
      extra: 'body_limit_mb: 32',
    }),
  });
});
after(async () => gw.cleanup());

interface Upload {
  status: number;
  headers: string;
  body: string;
  /** Bytes of the body the client had sent when the connection closed. */
  sent: number;
}

/**
 * Opens a connection, sends the head and the body's first part, then sends no more: the gateway must answer
 * and close on what it has. `chunked` sends the part as one chunk of a chunked body (no declared length).
 */
async function upload(path: string, head: Record<string, string>, opts: { chunked?: boolean } = {}): Promise<Upload> {
  const socket = net.connect(gw.port, '127.0.0.1');
  await once(socket, 'connect');
  let received = '';
  socket.on('data', (d: Buffer) => {
    received += d.toString('latin1');
  });
  // A reset after the answer (the gateway closing on unread bytes) is a close like any other here.
  socket.on('error', () => {});
  const lines = Object.entries(head).map(([k, v]) => `${k}: ${v}\r\n`);
  const length = opts.chunked === true ? 'transfer-encoding: chunked\r\n' : `content-length: ${DECLARED}\r\n`;
  socket.write(`POST ${path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n${lines.join('')}${length}\r\n`);
  const part = Buffer.alloc(PART, 0x20);
  part.write('{"model":"gpt-mock","messages":[{"role":"user","content":"');
  socket.write(
    opts.chunked === true ? Buffer.concat([Buffer.from(`${PART.toString(16)}\r\n`), part, Buffer.from('\r\n')]) : part,
  );
  await once(socket, 'close');
  const [headText, ...rest] = received.split('\r\n\r\n');
  return {
    status: Number(/^HTTP\/1\.1 (\d+)/.exec(headText)?.[1]),
    headers: headText,
    body: rest.join('\r\n\r\n'),
    sent: PART,
  };
}

function assertClosedEarly(r: Upload): void {
  assert.match(r.headers, /\r\nconnection: close/i);
  assert.ok(r.sent < DECLARED, `sent ${r.sent} of ${DECLARED}`);
}

test('an unknown key gets its 401 before its 20 MB body is read, and the connection closes', async () => {
  const r = await upload('/v1/chat/completions', { authorization: 'Bearer sk-mg-not-a-key-at-all' });
  assert.equal(r.status, 401, r.body);
  const err = JSON.parse(r.body) as { error: { code: string } };
  validateOpenAIError(err);
  assert.equal(err.error.code, 'invalid_api_key');
  assertClosedEarly(r);
});

test('an unknown key on /v1/messages: an Anthropic-shaped 401, unread', async () => {
  const r = await upload('/v1/messages', {
    authorization: 'Bearer sk-mg-revoked-or-never-was',
    'anthropic-version': '2023-06-01',
  });
  assert.equal(r.status, 401, r.body);
  validateAnthropicError(JSON.parse(r.body));
  assertClosedEarly(r);
});

test('a Gemini path naming a model the key may not use: 403 before the body is read', async () => {
  const { key } = await gw.createKey({ name: 'gemini-narrow', flags: ['--models', 'gpt-mock'] });
  const r = await upload('/v1beta/models/gpt-other:generateContent', { 'x-goog-api-key': key });
  assert.equal(r.status, 403, r.body);
  const err = JSON.parse(r.body) as { error: { code: number; status: string } };
  assert.equal(err.error.code, 403);
  assertClosedEarly(r);
});

test('a key that may use no model on the route: 403 before a chunked body is read', async () => {
  const { key } = await gw.createKey({ name: 'no-rights', flags: ['--models', 'nothing-here-*'] });
  const r = await upload('/v1/chat/completions', { authorization: `Bearer ${key}` }, { chunked: true });
  assert.equal(r.status, 403, r.body);
  assert.match(r.body, /may not use any model/);
  assertClosedEarly(r);
});

test('a body that names a model the key may not use in its first bytes: 403 with the rest unread', async () => {
  // The key may use gpt-other, not the gpt-mock the body names: only the body's head can say so.
  const { key } = await gw.createKey({ name: 'other-only', flags: ['--models', 'gpt-other'] });
  for (const chunked of [false, true]) {
    const r = await upload('/v1/chat/completions', { authorization: `Bearer ${key}` }, { chunked });
    assert.equal(r.status, 403, r.body);
    const err = JSON.parse(r.body) as { error: { message: string } };
    validateOpenAIError(err);
    assert.match(err.error.message, /gpt-mock/);
    assertClosedEarly(r);
  }
});

test('a key whose rate window is full: 429 with retry-after before its large body is read', async () => {
  const { key } = await gw.createKey({ name: 'rpm-one', flags: ['--models', 'gpt-mock', '--rpm', '1'] });
  const first = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-mock', messages: [{ role: 'user', content: 'hi' }] }),
  });
  assert.equal(first.status, 200, await first.text());
  const r = await upload('/v1/chat/completions', { authorization: `Bearer ${key}` });
  assert.equal(r.status, 429, r.body);
  assert.match(r.headers, /\r\nretry-after: \d+/i);
  assertClosedEarly(r);
});

test('a good key still has its large body read and answered, on a connection that stays open', async () => {
  const { key } = await gw.createKey({ name: 'good', flags: ['--models', 'gpt-mock'] });
  const big = JSON.stringify({ model: 'gpt-mock', messages: [{ role: 'user', content: 'x'.repeat(2_000_000) }] });
  const r = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: big,
  });
  assert.equal(r.status, 200, await r.text());
  assert.notEqual(r.headers.get('connection'), 'close');
});

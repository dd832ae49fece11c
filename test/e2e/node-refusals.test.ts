// Issue 39 item 6: what Node's parser refuses (431 headers too large, 400 malformed HTTP, 408 a request
// not in time) is answered with an error body in the caller's dialect where the path says it, JSON
// otherwise, and the connection is closed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { once } from 'node:events';
import { startGateway, configYaml, type GatewayProcess } from '../helpers/gateway-process.ts';
import { validateAnthropicError, validateOpenAIError } from '../helpers/schemas.ts';

let gw: GatewayProcess;
before(async () => {
  gw = await startGateway({
    configYaml: configYaml({
      models: '  - { name: gpt-mock, deployments: [ { provider: mock, model: gpt-mock } ] }',
      extra: 'client_request_timeout_ms: 1000',
    }),
  });
});
after(async () => gw.cleanup());

/** Writes `parts` to a fresh connection (the last part left unfinished is fine) and reads until it closes. */
async function raw(...parts: string[]): Promise<{ status: number; headers: string; body: string }> {
  const socket = net.connect(gw.port, '127.0.0.1');
  await once(socket, 'connect');
  let received = '';
  socket.on('data', (d: Buffer) => {
    received += d.toString('latin1');
  });
  for (const p of parts) socket.write(p);
  await once(socket, 'close');
  const [head, ...rest] = received.split('\r\n\r\n');
  return { status: Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1]), headers: head, body: rest.join('\r\n\r\n') };
}

const bigHeader = `x-big: ${'a'.repeat(20_000)}\r\n`;

test('431 for oversized headers: Anthropic-shaped on /v1/messages, OpenAI-shaped on /v1/chat/completions', async () => {
  const msg = await raw(`POST /v1/messages HTTP/1.1\r\nhost: x\r\nanthropic-version: 2023-06-01\r\n${bigHeader}\r\n`);
  assert.equal(msg.status, 431);
  assert.match(msg.headers, /content-type: application\/json/);
  assert.match(msg.headers, /x-request-id: req_/);
  const anthropic = JSON.parse(msg.body) as { type: string; error: { type: string; message: string } };
  validateAnthropicError(anthropic);
  assert.equal(anthropic.error.type, 'invalid_request_error');
  assert.match(anthropic.error.message, /headers/);

  const chat = await raw(`POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\n${bigHeader}\r\n`);
  assert.equal(chat.status, 431);
  const openai = JSON.parse(chat.body) as { error: { code: string } };
  validateOpenAIError(openai);
  assert.equal(openai.error.code, 'header_too_large');
});

test('400 for malformed HTTP: a JSON error body', async () => {
  const res = await raw(
    'POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-length: 5\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n',
  );
  assert.equal(res.status, 400);
  validateOpenAIError(JSON.parse(res.body));
  const garbage = await raw('\x01\x02 nonsense\r\n\r\n');
  assert.equal(garbage.status, 400);
  assert.equal((JSON.parse(garbage.body) as { error: { code: string } }).error.code, 'malformed_http');
});

test('408 for a body that does not arrive in time: in the dialect of the request in progress', async () => {
  const { key } = await gw.createKey({ name: 'slow' });
  const res = await raw(
    `POST /v1/messages HTTP/1.1\r\nhost: x\r\nanthropic-version: 2023-06-01\r\nauthorization: Bearer ${key}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"model":`,
  );
  assert.equal(res.status, 408);
  const body = JSON.parse(res.body) as { type: string; error: { type: string } };
  validateAnthropicError(body);
  assert.equal(body.type, 'error');
});

// A client that stalls while sending its request gets a 408 and loses the connection after
// `client_request_timeout_ms`; a response is not under that clock, so a stream longer than it completes.
// Malformed HTTP is answered with the status Node would give it, never a crash.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { once } from 'node:events';
import { startGateway, configYaml, type GatewayProcess } from '../helpers/gateway-process.ts';

let gw: GatewayProcess;
let key: string;
before(async () => {
  gw = await startGateway({
    configYaml: configYaml({
      providers: '  - { name: slow, kind: mock, mock: { chunk_delay_ms: 100 } }',
      models: '  - { name: gpt-slow, deployments: [ { provider: slow, model: gpt-slow } ] }',
      extra: 'client_request_timeout_ms: 1000',
    }),
  });
  ({ key } = await gw.createKey({ name: 'timeouts' }));
});
after(async () => gw.cleanup());

test('a stream that lasts longer than the request timeout is delivered whole', async () => {
  const started = Date.now();
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-slow', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });
  assert.equal(res.status, 200);
  const text = await res.text();
  assert.ok(Date.now() - started > 1_000, `the stream outlived the 1 s request timeout (${Date.now() - started} ms)`);
  assert.ok(text.trimEnd().endsWith('data: [DONE]'), text.slice(-200));
});

test('a request body that stops arriving is answered 408 and the connection closed', async () => {
  const started = Date.now();
  const received = await rawExchange(`POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${key}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"model":`);
  assert.match(received, /^HTTP\/1\.1 408 /);
  assert.ok(Date.now() - started < 10_000, 'closed within a few checking intervals of the timeout');
  // The gateway is still serving.
  const ok = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(ok.status, 200);
});

/** Sends `raw` on a new connection and returns everything the gateway wrote before it closed. */
async function rawExchange(raw: string): Promise<string> {
  const socket = connect(Number(new URL(gw.url).port), '127.0.0.1');
  await once(socket, 'connect');
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (received += chunk));
  socket.on('error', () => {});
  socket.write(raw);
  await once(socket, 'close');
  return received;
}

test('malformed HTTP is answered in kind and closed: 431 for oversized headers, 400 for garbage', async () => {
  assert.match(await rawExchange(`GET /v1/models HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`), /^HTTP\/1\.1 431 /);
  assert.match(await rawExchange('NOT-HTTP at all\r\n\r\n'), /^HTTP\/1\.1 400 /);
});

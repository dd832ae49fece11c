// A client that stalls while sending its request gets a 408 and loses the connection after
// `client_request_timeout_ms`; a response is not under that clock, so a stream longer than it completes.
// Malformed HTTP is answered with the status Node would give it, never a crash.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { once } from 'node:events';
import { startGateway, configYaml, waitUntil, type GatewayProcess } from '../helpers/gateway-process.ts';
import { usageRows } from '../admission/usage-db.ts';

let gw: GatewayProcess;
let key: string;
let keyId: string;
before(async () => {
  gw = await startGateway({
    configYaml: configYaml({
      providers: '  - { name: slow, kind: mock, mock: { chunk_delay_ms: 100 } }',
      models: '  - { name: gpt-slow, deployments: [ { provider: slow, model: gpt-slow } ] }',
      extra: 'client_request_timeout_ms: 1000',
    }),
  });
  ({ key, id: keyId } = await gw.createKey({ name: 'timeouts' }));
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
  const received = await rawExchange(
    `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${key}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"model":`,
  );
  assert.match(received, /^HTTP\/1\.1 408 /);
  assert.ok(Date.now() - started < 10_000, 'closed within a few checking intervals of the timeout');
  // Its usage row says 408 as well, and no gateway error is logged for it.
  await waitUntil(() => usageRows(gw.dbPath, keyId).some((r) => r.status === 408), 'the 408 request row');
  assert.equal(usageRows(gw.dbPath, keyId).find((r) => r.status === 408)?.error_code, 'request_timeout');
  assert.doesNotMatch(gw.logs(), /unexpected error|request failed/);
  // The gateway is still serving.
  const ok = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(ok.status, 200);
});

test('a client that leaves mid-body is a 499 row, one that breaks its chunking a 400 row, never a logged gateway error', async () => {
  const head = (path: string, framing: string): string =>
    `POST ${path} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${key}\r\ncontent-type: application/json\r\nanthropic-version: 2023-06-01\r\n${framing}\r\n`;
  const rowsBefore = usageRows(gw.dbPath, keyId).length;
  const logsBefore = gw.logs().length;
  for (const path of ['/v1/chat/completions', '/v1/messages', '/v1/messages/count_tokens']) {
    // Half a body, then the client goes away.
    const socket = connect(Number(new URL(gw.url).port), '127.0.0.1');
    await once(socket, 'connect');
    socket.on('error', () => {});
    socket.write(`${head(path, 'content-length: 200\r\n')}{"model":"gpt-slow","messages":[`);
    // The gateway has the headers once it answers the same request on another socket: no timing guess.
    await fetch(`${gw.url}/healthz`);
    socket.destroy();
    await once(socket, 'close');
    // A chunk whose size is not hex: Node answers 400 itself.
    assert.match(
      await rawExchange(`${head(path, 'transfer-encoding: chunked\r\n')}zz\r\n{}\r\n0\r\n\r\n`),
      /^HTTP\/1\.1 400 /,
    );
  }
  // The two generation routes write a row for each; count_tokens writes none.
  await waitUntil(
    () => usageRows(gw.dbPath, keyId).length >= rowsBefore + 4,
    'a usage row for each generation request',
  );
  // (The 408 test's request, whose body never came, may be written in the same batch.)
  const rows = usageRows(gw.dbPath, keyId)
    .slice(rowsBefore)
    .filter((r) => r.status !== 408);
  // The key may use no model on /v1/messages: a chunked body there is refused from the headers (403)
  // before its broken chunking is read; on chat completions the broken chunk is the 400.
  assert.deepEqual(rows.map((r) => `${r.status} ${r.error_code}`).sort(), [
    '400 malformed_http',
    '403 model_not_allowed',
    '499 client_disconnected',
    '499 client_disconnected',
  ]);
  const logs = gw.logs().slice(logsBefore);
  assert.doesNotMatch(logs, /unexpected error|handler failed|request failed|"level":"error"/, logs);
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
  assert.match(
    await rawExchange(`GET /v1/models HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`),
    /^HTTP\/1\.1 431 /,
  );
  assert.match(await rawExchange('NOT-HTTP at all\r\n\r\n'), /^HTTP\/1\.1 400 /);
});

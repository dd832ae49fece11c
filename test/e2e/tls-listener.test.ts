// TLS on the gateway's port (`listen.tls`): HTTP/1.1 and HTTP/2 chosen by ALPN on one port, the same
// routes, keys and answers as over plain HTTP; the Responses WebSocket works over it (wss), its bridge
// calling the gateway on its own loopback port.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import https from 'node:https';
import http2 from 'node:http2';
import WebSocket from 'ws';
import { startGateway, configYaml, type GatewayProcess } from '../helpers/gateway-process.ts';

let gw: GatewayProcess;
let key: string;
let ca: Buffer;
const dir = mkdtempSync(join(tmpdir(), 'modelgate-tls-'));

before(async () => {
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyFile]
      .concat(['-out', certFile, '-days', '1', '-subj', '/CN=localhost'])
      .concat(['-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1']),
    { stdio: 'ignore' },
  );
  ca = readFileSync(certFile);
  gw = await startGateway({
    configYaml: configYaml({
      models: '  - { name: gpt-mock, deployments: [ { provider: mock, model: gpt-mock } ] }',
      extra: `listen:\n  tls: { cert_file: "${certFile}", key_file: "${keyFile}" }`,
    }),
  });
  // Created with the CLI: createKey's readiness probe speaks plain HTTP, which a TLS port refuses.
  key = (JSON.parse(await gw.cli(['keys', 'create', '--name', 'tls', '--json'])) as { key: string }).key;
});
after(async () => {
  await gw?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const CHAT = JSON.stringify({ model: 'gpt-mock', messages: [{ role: 'user', content: 'hello over tls' }] });

test('HTTP/1.1 over TLS: a client that offers no h2 is served HTTP/1.1', async () => {
  const { status, body, alpn } = await new Promise<{ status: number; body: string; alpn: string | false | null }>(
    (resolve, reject) => {
      const req = https.request(
        {
          host: '127.0.0.1',
          port: gw.port,
          path: '/v1/chat/completions',
          method: 'POST',
          ca,
          servername: 'localhost',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        },
        (res) => {
          const alpn = (res.socket as import('node:tls').TLSSocket).alpnProtocol;
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, alpn }));
        },
      );
      req.on('error', reject);
      req.end(CHAT);
    },
  );
  assert.equal(status, 200, body);
  assert.ok(alpn === 'http/1.1' || alpn === false, String(alpn));
  assert.equal((JSON.parse(body) as { object: string }).object, 'chat.completion');
});

test('HTTP/2 over TLS: ALPN picks h2; two requests share the session', async () => {
  const session = http2.connect(`https://localhost:${gw.port}`, { ca });
  try {
    await once(session, 'connect');
    assert.equal(session.alpnProtocol, 'h2');
    for (let i = 0; i < 2; i++) {
      const stream = session.request({
        ':method': 'POST',
        ':path': '/v1/chat/completions',
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
      });
      stream.end(CHAT);
      const [headers] = (await once(stream, 'response')) as [http2.IncomingHttpHeaders];
      let text = '';
      stream.setEncoding('utf8');
      for await (const d of stream) text += d;
      assert.equal(headers[':status'], 200, text);
      assert.equal((JSON.parse(text) as { object: string }).object, 'chat.completion');
    }
    const refused = session.request({ ':method': 'GET', ':path': '/v1/models', authorization: 'Bearer sk-not-a-key' });
    refused.end();
    const [h] = (await once(refused, 'response')) as [http2.IncomingHttpHeaders];
    refused.resume();
    assert.equal(h[':status'], 401);
  } finally {
    session.close();
  }
});

test('plain HTTP on the TLS port is refused at the handshake, and the gateway keeps serving', async () => {
  const r = await fetch(`http://127.0.0.1:${gw.port}/healthz`).then(
    (res) => res.status,
    () => 'refused',
  );
  assert.notEqual(r, 200);
  const again = await new Promise<number>((resolve, reject) => {
    https
      .get({ host: '127.0.0.1', port: gw.port, path: '/healthz', ca, servername: 'localhost' }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .on('error', reject);
  });
  assert.equal(again, 200);
});

test('the Responses WebSocket over TLS (wss) answers a response.create', async () => {
  const ws = new WebSocket(`wss://localhost:${gw.port}/v1/responses`, {
    ca,
    headers: { authorization: `Bearer ${key}`, 'openai-beta': 'responses_websockets=2026-02-06' },
  });
  await once(ws, 'open');
  const done = new Promise<string>((resolve) => {
    ws.on('message', (data: WebSocket.RawData) => {
      const ev = JSON.parse(data.toString()) as { type: string };
      if (ev.type === 'response.completed' || ev.type === 'response.failed' || ev.type === 'error') resolve(ev.type);
    });
  });
  ws.send(JSON.stringify({ type: 'response.create', model: 'gpt-mock', input: 'hi', store: false }));
  assert.equal(await done, 'response.completed');
  ws.close();
});

// The gateway's port speaks HTTP/2 with prior knowledge (h2c) beside HTTP/1.1: node:http2's client on the
// same port as fetch, the same routes, keys and answers, a streamed reply as SSE frames, several requests
// multiplexed on one connection, and an error in the caller's dialect; HTTP/1.1 keeps its keep-alive.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2';
import { startGateway, configYaml, type GatewayProcess } from '../helpers/gateway-process.ts';

let gw: GatewayProcess;
let key: string;

before(async () => {
  gw = await startGateway({
    configYaml: configYaml({ models: '  - { name: m, deployments: [ { provider: mock, model: mock-model } ] }' }),
  });
  ({ key } = await gw.createKey({ name: 'h2' }));
});
after(async () => {
  await gw?.cleanup();
});

interface H2Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

function h2(
  session: ClientHttp2Session,
  path: string,
  opts: { method?: string; body?: unknown } = {},
): Promise<H2Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {
      ':method': opts.method ?? (opts.body === undefined ? 'GET' : 'POST'),
      ':path': path,
      authorization: `Bearer ${key}`,
    };
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    const stream = session.request(headers);
    let answer: IncomingHttpHeaders = {};
    let text = '';
    stream.setEncoding('utf8');
    stream.on('response', (h) => {
      answer = h;
    });
    stream.on('data', (d: string) => {
      text += d;
    });
    stream.on('end', () => resolve({ status: Number(answer[':status']), headers: answer, text }));
    stream.on('error', reject);
    stream.end(opts.body === undefined ? undefined : JSON.stringify(opts.body));
  });
}

test('h2c: chat completions, a stream, a listing and an error on one multiplexed connection', async () => {
  const session = connect(gw.url);
  try {
    const chat = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };
    const [one, streamed, models, missing] = await Promise.all([
      h2(session, '/v1/chat/completions', { body: chat }),
      h2(session, '/v1/chat/completions', { body: { ...chat, stream: true } }),
      h2(session, '/v1/models'),
      h2(session, '/v1/nope', { body: chat }),
    ]);
    assert.equal(one.status, 200);
    assert.equal((JSON.parse(one.text) as { object: string }).object, 'chat.completion');
    assert.ok(one.headers['x-request-id']);
    assert.equal(one.headers.connection, undefined, 'no connection-specific header on HTTP/2');
    assert.equal(streamed.status, 200);
    assert.match(String(streamed.headers['content-type']), /^text\/event-stream/);
    assert.match(streamed.text, /data: \[DONE\]/);
    assert.equal(models.status, 200);
    assert.ok((JSON.parse(models.text) as { data: { id: string }[] }).data.some((m) => m.id === 'm'));
    assert.equal(missing.status, 404);
    assert.match(
      (JSON.parse(missing.text) as { error: { message: string } }).error.message,
      /^No route for POST \/v1\/nope/,
    );
  } finally {
    session.close();
  }
});

test('HTTP/1.1 on the same port is unchanged: keep-alive, and a bad key still a 401', async () => {
  const ok = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
  });
  assert.equal(ok.status, 200);
  assert.equal(ok.headers.get('connection'), 'keep-alive');
  await ok.text();
  const session = connect(gw.url);
  try {
    const listed = await h2(session, '/v1/models', {});
    assert.equal(listed.status, 200);
    const refused = await new Promise<number>((resolve, reject) => {
      const s = session.request({ ':path': '/v1/models', authorization: 'Bearer mg-wrong' });
      s.on('response', (h) => resolve(Number(h[':status'])));
      s.on('error', reject);
      s.resume();
      s.end();
    });
    assert.equal(refused, 401);
  } finally {
    session.close();
  }
});

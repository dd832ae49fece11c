// HTTP/2 to upstreams: an HTTPS upstream that offers h2 by ALPN carries many streams a connection;
// GOAWAY while streams are open loses none of them; a reset stream is a failed attempt that fails over;
// a caller that leaves resets only its own stream; `http2: true` over plain HTTP is h2c; `http2: false`
// speaks HTTP/1.1 to an upstream that offers h2.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { once } from 'node:events';
import OpenAI from 'openai';
import { startGateway, configYaml, waitUntil, type GatewayProcess } from '../helpers/gateway-process.ts';
import { startH2Mock, H2_REPLY_TEXT, type H2Mock } from '../helpers/mock-h2-upstream.ts';
import { usageRows } from '../admission/usage-db.ts';

let held: H2Mock;
let draining: H2Mock;
let resetting: H2Mock;
let plainH2c: H2Mock;
let leaving: H2Mock;
let declined: H2Mock;
let gw: GatewayProcess;
let key: { key: string; id: string };
let caDir: string;
/** An HTTPS upstream that speaks HTTP/1.1 only (its ALPN offers no h2), and the versions it was asked in. */
let http1Only: HttpsServer;
const http1Versions: string[] = [];

before(async () => {
  held = await startH2Mock();
  draining = await startH2Mock();
  resetting = await startH2Mock({ resetStreams: true });
  plainH2c = await startH2Mock({ tls: false, hold: false });
  leaving = await startH2Mock();
  declined = await startH2Mock({ hold: false });
  http1Only = createHttpsServer(
    { key: readFileSync(join(dirname(held.caFile), 'key.pem')), cert: readFileSync(held.caFile) },
    (req, res) => {
      http1Versions.push(req.httpVersion);
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const chunk = (delta: object, finish: string | null): string =>
          `data: ${JSON.stringify({ id: 'h1', object: 'chat.completion.chunk', created: 1, model: 'upstream-h2', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
        res.write(chunk({ role: 'assistant', content: 'hello' }, null));
        res.write(chunk({ content: ' world' }, 'stop'));
        res.end('data: [DONE]\n\n');
      });
    },
  );
  http1Only.listen(0, '127.0.0.1');
  await once(http1Only, 'listening');
  const http1Port = (http1Only.address() as { port: number }).port;
  // The gateway trusts the test's certificates the way an operator adds a private CA: NODE_EXTRA_CA_CERTS.
  caDir = mkdtempSync(join(tmpdir(), 'modelgate-h2-ca-'));
  const bundle = join(caDir, 'ca.pem');
  writeFileSync(
    bundle,
    [held, draining, resetting, leaving, declined].map((m) => readFileSync(m.caFile, 'utf8')).join(''),
  );
  const provider = (name: string, m: H2Mock, extra = ''): string =>
    `  - { name: ${name}, kind: openai, base_url: "${m.baseUrl}", api_key: "sk-upstream-h2-0123456789"${extra} }`;
  gw = await startGateway({
    configYaml: configYaml({
      providers: [
        provider('held', held),
        provider('draining', draining),
        provider('resetting', resetting),
        provider('h2c', plainH2c, ', http2: true'),
        provider('leaving', leaving),
        provider('declined', declined, ', http2: false'),
        `  - { name: http1, kind: openai, base_url: "https://localhost:${http1Port}/v1", api_key: "sk-upstream-h1-0123456789" }`,
      ].join('\n'),
      models: [
        '  - { name: gpt-held, deployments: [ { provider: held, model: upstream-h2 } ] }',
        '  - { name: gpt-draining, deployments: [ { provider: draining, model: upstream-h2 } ] }',
        '  - name: gpt-failover',
        '    deployments:',
        '      - { provider: resetting, model: upstream-h2, priority: 0 }',
        '      - { provider: held, model: upstream-h2, priority: 1 }',
        '  - { name: gpt-h2c, deployments: [ { provider: h2c, model: upstream-h2 } ] }',
        '  - { name: gpt-leaving, deployments: [ { provider: leaving, model: upstream-h2 } ] }',
        '  - { name: gpt-declined, deployments: [ { provider: declined, model: upstream-h2 } ] }',
        '  - { name: gpt-http1, deployments: [ { provider: http1, model: upstream-h2 } ] }',
      ].join('\n'),
      extra: 'max_connections_per_address: 1000',
    }),
    env: { NODE_EXTRA_CA_CERTS: bundle },
  });
  key = await gw.createKey();
});

after(async () => {
  await gw?.cleanup();
  for (const m of [held, draining, resetting, plainH2c, leaving, declined]) await m?.close();
  http1Only?.close();
  rmSync(caDir, { recursive: true, force: true });
});

/** One streamed chat through the OpenAI SDK: the text it delivered and whether `[DONE]` ended it. */
async function streamText(model: string): Promise<string> {
  const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key.key, maxRetries: 0 });
  const stream = await client.chat.completions.create({
    model,
    messages: [{ role: 'user', content: 'hi' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = '';
  for await (const c of stream) text += c.choices[0]?.delta?.content ?? '';
  return text;
}

async function metric(name: string, provider: string): Promise<number> {
  const body = await (await fetch(`${gw.url}/metrics`)).text();
  const m = new RegExp(`^${name}\\{provider="${provider}"\\} (\\d+)`, 'm').exec(body);
  return m === null ? 0 : Number(m[1]);
}

function rowsOf(model: string) {
  return usageRows(gw.dbPath, key.id).filter((r) => (r as unknown as { model: string }).model === model);
}

test('300 concurrent streams to an HTTPS upstream offering h2 share at most 300/100 + 4 connections, each whole and billed', async () => {
  const before = usageRows(gw.dbPath, key.id).length;
  const streams = Array.from({ length: 300 }, () => streamText('gpt-held'));
  await held.streamsAtLeast(300);
  assert.ok(held.connections <= 300 / 100 + 4, `${held.connections} upstream connections for 300 streams`);
  assert.equal(await metric('modelgate_upstream_streams', 'held'), 300);
  const connections = await metric('modelgate_upstream_connections', 'held');
  assert.ok(connections >= 1 && connections <= 7, `modelgate_upstream_connections says ${connections}`);
  held.release();
  const texts = await Promise.all(streams);
  assert.deepEqual(new Set(texts), new Set([H2_REPLY_TEXT]));
  await waitUntil(() => usageRows(gw.dbPath, key.id).length >= before + 300, '300 usage rows');
  const rows = usageRows(gw.dbPath, key.id).slice(before);
  assert.equal(rows.length, 300);
  // Billed whole: the SDK may close its connection as soon as it reads `[DONE]`, before the answer's
  // last chunk, which the row records as the client's leaving (499) with the same tokens.
  for (const r of rows) {
    assert.ok(r.status === 200 || r.status === 499, `status ${r.status}`);
    assert.equal(r.input_tokens, 5);
    assert.equal(r.output_tokens, 2);
  }
});

test('GOAWAY while streams are open: they finish, new streams take a fresh connection, no usage row missing', async () => {
  const before = usageRows(gw.dbPath, key.id).length;
  const first = Array.from({ length: 20 }, () => streamText('gpt-draining'));
  await draining.streamsAtLeast(20);
  const connectionsBefore = draining.connections;
  draining.goaway();
  const later = Array.from({ length: 10 }, () => streamText('gpt-draining'));
  await draining.streamsAtLeast(30);
  assert.ok(draining.connections > connectionsBefore, 'the streams after GOAWAY went to a new connection');
  draining.release();
  const texts = await Promise.all([...first, ...later]);
  assert.equal(texts.length, 30);
  assert.deepEqual(new Set(texts), new Set([H2_REPLY_TEXT]));
  await waitUntil(() => usageRows(gw.dbPath, key.id).length >= before + 30, '30 usage rows');
  const rows = usageRows(gw.dbPath, key.id).slice(before);
  assert.equal(rows.length, 30);
  assert.ok(rows.every((r) => (r.status === 200 || r.status === 499) && r.output_tokens === 2));
});

test('a reset stream is one failed attempt: the request fails over to the next deployment', async () => {
  held.release();
  const seen = resetting.requests;
  const text = await streamText('gpt-failover');
  assert.equal(text, H2_REPLY_TEXT);
  assert.ok(resetting.requests > seen, 'the first deployment was tried and reset the stream');
  const errors = await (await fetch(`${gw.url}/metrics`)).text();
  assert.match(errors, /modelgate_upstream_errors_total\{deployment="gpt-failover#0"[^}]*\} [1-9]/);
});

test('http2: true over plain HTTP speaks h2c by prior knowledge', async () => {
  const text = await streamText('gpt-h2c');
  assert.equal(text, H2_REPLY_TEXT);
  assert.ok(plainH2c.connections >= 1 && plainH2c.requests >= 1);
});

test('a caller that goes away resets only its own stream', async () => {
  const controllers = Array.from({ length: 3 }, () => new AbortController());
  const bodies = controllers.map(async (c) => {
    const r = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-leaving', messages: [{ role: 'user', content: 'hi' }], stream: true }),
      signal: c.signal,
    });
    return r.text();
  });
  await leaving.streamsAtLeast(3);
  const connections = leaving.connections;
  controllers[0].abort();
  await assert.rejects(bodies[0]);
  await waitUntil(() => leaving.cancelled === 1 && leaving.streamsOpen === 2, 'the left stream cancelled upstream');
  leaving.release();
  for (const body of bodies.slice(1)) assert.match(await body, /data: \[DONE\]/);
  assert.equal(leaving.connections, connections, 'the connection outlived the cancelled stream');
  assert.equal(leaving.cancelled, 1);
});

test('http2: auto over TLS to an upstream that offers only HTTP/1.1 speaks HTTP/1.1', async () => {
  const texts = await Promise.all(Array.from({ length: 3 }, () => streamText('gpt-http1')));
  assert.deepEqual(new Set(texts), new Set([H2_REPLY_TEXT]));
  assert.deepEqual(new Set(http1Versions), new Set(['1.1']));
  assert.equal(http1Versions.length, 3);
});

test('http2: false over TLS speaks HTTP/1.1 to an upstream that offers h2', async () => {
  assert.equal(await streamText('gpt-declined'), 'hello world');
  assert.equal(await streamText('gpt-declined'), 'hello world');
  assert.equal(declined.http1Requests, 2);
  assert.equal(declined.connections, 0, 'no HTTP/2 session was opened');
});

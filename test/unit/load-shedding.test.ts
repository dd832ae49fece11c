// Shedding on event-loop delay, with an injected delay source and mocked timers instead of real overload.
import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { LoadShedder } from '../../src/http/load-shedding.ts';
import { createGatewayServer } from '../../src/http/server.ts';
import { endpoint, Router } from '../../src/http/endpoint.ts';
import type { AddressInfo } from 'node:net';

test('a late event loop turns shedding on; it goes off once the delay is under half the threshold', () => {
  mock.timers.enable({ apis: ['setInterval'] });
  try {
    let delay = 10;
    const shedder = new LoadShedder({ thresholdMs: 200, delayMs: () => delay, sampleMs: 100 });
    mock.timers.tick(100);
    assert.equal(shedder.shedding, false);
    delay = 350;
    mock.timers.tick(100);
    assert.equal(shedder.shedding, true);
    delay = 150;
    mock.timers.tick(100);
    assert.equal(shedder.shedding, true, 'under the threshold but not yet under half of it');
    delay = 50;
    mock.timers.tick(100);
    assert.equal(shedder.shedding, false);
    shedder.stop();
  } finally {
    mock.timers.reset();
  }
});

test('while shedding, an API request gets a fast 503 overloaded with retry-after in its dialect; health is still served', async () => {
  const shedder = { shedding: true };
  let dispatched = 0;
  const server = createGatewayServer({
    config: {
      clientHeaderTimeoutMs: 10_000,
      clientRequestTimeoutMs: 300_000,
      corsOrigins: [],
      maxConnections: 100,
      maxConnectionsPerAddress: 16,
    },
    metrics: { connectionsDropped: 0, contentType: 'text/plain', render: async () => '', unrouted: () => undefined },
    log: { error: () => undefined, warn: () => undefined, isLevelEnabled: () => false } as never,
    masker: { mask: (s: string) => s } as never,
    metricsAuthorized: null,
    router: new Router([
      endpoint({
        name: 'chat',
        template: '/v1/chat/completions',
        methods: ['POST'],
        dialect: 'openai',
        serve: async (_req, res) => {
          dispatched++;
          res.end('{}');
        },
      }),
      endpoint({
        name: 'messages',
        template: '/v1/messages',
        methods: ['POST'],
        dialect: 'anthropic',
        serve: async () => {},
      }),
      endpoint({
        name: 'healthz',
        template: '/healthz',
        methods: ['GET'],
        dialect: 'openai',
        own: 'healthz',
        serve: async () => {},
      }),
    ]),
    admin: null,
    ui: null,
    readiness: { draining: false, reasons: () => [] },
    shedder,
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const post = (path: string, headers: Record<string, string> = {}) =>
      fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: '{}',
      });
    const openai = await post('/v1/chat/completions');
    assert.equal(openai.status, 503);
    assert.equal(openai.headers.get('retry-after'), '1');
    assert.equal(((await openai.json()) as { error: { code: string } }).error.code, 'overloaded');
    const anthropic = await post('/v1/messages', { 'anthropic-version': '2023-06-01' });
    assert.equal(anthropic.status, 503);
    assert.equal(
      ((await anthropic.json()) as { type: string; error: { type: string } }).error.type,
      'overloaded_error',
    );
    assert.equal((await fetch(`${url}/healthz`)).status, 200);
    assert.equal(dispatched, 0);
    shedder.shedding = false;
    assert.equal((await post('/v1/chat/completions')).status, 200);
    assert.equal(dispatched, 1);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
});

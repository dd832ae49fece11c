// The bare reference proxy forwards bytes unchanged, JSON and SSE, and reports a dead upstream as 502.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { createBareProxy } from '../bare-proxy.ts';
import { probe } from '../lib/measure.ts';
import { createMockUpstream } from '../mock-upstream.ts';

const mock = createMockUpstream({ chunks: 3, chunkSize: 5, pacing: 'none', latencyMs: 0 }).server;
let proxy: Server;
let mockUrl = '';
let proxyUrl = '';

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

before(async () => {
  mockUrl = await listen(mock);
  proxy = createBareProxy(mockUrl);
  proxyUrl = await listen(proxy);
});
after(() => {
  for (const server of [proxy, mock]) {
    server.closeAllConnections();
    server.close();
  }
});

describe('bare proxy', () => {
  for (const body of ['{"model":"m"}', '{"model":"m","stream":true}']) {
    it(`forwards ${body} byte for byte`, async () => {
      const request = { method: 'POST' as const, headers: { 'content-type': 'application/json' }, body };
      const direct = await probe({ ...request, url: `${mockUrl}/v1/chat/completions` });
      const proxied = await probe({ ...request, url: `${proxyUrl}/v1/chat/completions` });
      assert.equal(proxied.status, 200);
      assert.equal(proxied.body, direct.body);
    });
  }

  it('answers 502 when the upstream is down', async () => {
    const dead = createBareProxy('http://127.0.0.1:1');
    const url = await listen(dead);
    const res = await probe({ url: `${url}/v1/chat/completions`, method: 'POST', headers: {}, body: '{}' });
    dead.closeAllConnections();
    dead.close();
    assert.equal(res.status, 502);
  });
});

// OAuth client credentials for a remote MCP server: one token request serves concurrent callers, the
// token is kept until a minute before it expires, a refused token is replaced, and a refusal from the
// token endpoint names its error code without the secret.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ClientCredentials } from '../../src/mcp/oauth.ts';

let server: Server;
let url: string;
let issued = 0;
let refuse = false;

before(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (refuse) {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end('{"error":"invalid_client","error_description":"unknown client"}');
        return;
      }
      issued++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ access_token: `tok-${issued}`, expires_in: 600 }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

test('one request for concurrent callers; kept until a minute before expiry; replaced when refused', async () => {
  issued = 0;
  const cc = new ClientCredentials({ tokenUrl: url, clientId: 'id', clientSecret: 'very-secret' }, 2000);
  const now = Date.now();
  const [a, b] = await Promise.all([cc.token(now), cc.token(now)]);
  assert.equal(a, 'tok-1');
  assert.equal(b, 'tok-1');
  assert.equal(issued, 1);
  assert.equal(await cc.token(now + 500_000), 'tok-1', 'still 100 s left');
  assert.equal(await cc.token(now + 560_000), 'tok-2', 'under a minute left: a new one');
  cc.invalidate('tok-1');
  assert.equal(await cc.token(), 'tok-2', 'an old token refused changes nothing');
  cc.invalidate('tok-2');
  assert.equal(await cc.token(), 'tok-3');
});

test('a refusal names the endpoint’s error, never the secret', async () => {
  refuse = true;
  try {
    const cc = new ClientCredentials({ tokenUrl: url, clientId: 'id', clientSecret: 'very-secret' }, 2000);
    await assert.rejects(cc.token(), (err: Error) => {
      assert.match(err.message, /invalid_client: unknown client/);
      assert.ok(!err.message.includes('very-secret'));
      return true;
    });
  } finally {
    refuse = false;
  }
});

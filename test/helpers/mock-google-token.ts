// A local OAuth 2.0 token endpoint standing in for Google's: it checks the service account's signed
// assertion (RS256 with the account's public key, its issuer and scope) and hands out access tokens that
// `isIssued` recognises, so a Vertex mock can check the Bearer token it is sent. A service-account file
// whose `token_uri` points here is written by `serviceAccountFile`.
import { generateKeyPairSync, createVerify, randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface MockGoogleToken {
  /** The token endpoint's URL (a service-account file's `token_uri`). */
  readonly tokenUri: string;
  /** Token exchanges answered so far. */
  readonly exchanges: number;
  /** Whether this endpoint issued the token. */
  isIssued(token: string): boolean;
  /** A service-account JSON file for the account this endpoint knows; its path. */
  serviceAccountFile(): Promise<string>;
  close(): Promise<void>;
}

const CLIENT_EMAIL = 'gateway@test-project.iam.gserviceaccount.com';

export async function startMockGoogleToken(expiresIn = 3600): Promise<MockGoogleToken> {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const issued = new Set<string>();
  let exchanges = 0;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString('utf8');
    });
    req.on('end', () => {
      const params = new URLSearchParams(body);
      const assertion = params.get('assertion') ?? '';
      const [h, p, s] = assertion.split('.');
      const ok =
        req.method === 'POST' &&
        req.url === '/token' &&
        params.get('grant_type') === 'urn:ietf:params:oauth:grant-type:jwt-bearer' &&
        s !== undefined &&
        createVerify('RSA-SHA256').update(`${h}.${p}`).verify(publicKey, Buffer.from(s, 'base64url'));
      const claims = ok ? (JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as Record<string, unknown>) : {};
      if (!ok || claims.iss !== CLIENT_EMAIL || !String(claims.scope).includes('cloud-platform')) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end('{"error":"invalid_grant"}');
        return;
      }
      exchanges++;
      const token = `ya29.mock-${randomBytes(8).toString('hex')}`;
      issued.add(token);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: expiresIn }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const tokenUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
  return {
    tokenUri,
    get exchanges() {
      return exchanges;
    },
    isIssued: (t) => issued.has(t),
    async serviceAccountFile() {
      const dir = await mkdtemp(join(tmpdir(), 'modelgate-sa-'));
      const path = join(dir, 'service-account.json');
      await writeFile(
        path,
        JSON.stringify({
          type: 'service_account',
          project_id: 'test-project',
          private_key_id: 'k1',
          private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
          client_email: CLIENT_EMAIL,
          token_uri: tokenUri,
        }),
      );
      return path;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

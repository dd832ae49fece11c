import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import {
  AwsSigner,
  bearerHeaders,
  cachedCredentials,
  credentialSource,
  REFRESH_BEFORE_MS,
} from '../../../src/providers/aws/sigv4.ts';

const creds = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const date = new Date('2026-11-28T12:00:00Z');
const url = 'https://bedrock-runtime.us-east-1.amazonaws.com/model/us.anthropic.claude-sonnet-4-6:0/converse';
const body = '{"messages":[{"role":"user","content":[{"text":"hi"}]}]}';

async function expectedAuthorization(headers: Record<string, string>, secret = creds.secretAccessKey) {
  const u = new URL(url);
  const { authorization: _a, ...rest } = headers;
  const v = new SignatureV4({
    region: 'us-east-1',
    service: 'bedrock',
    credentials: { ...creds, secretAccessKey: secret },
    sha256: Sha256,
  });
  const again = await v.sign(
    { method: 'POST', protocol: 'https:', hostname: u.hostname, path: u.pathname, headers: rest, body },
    { signingDate: date },
  );
  return again.headers.authorization;
}

test('a signed request carries a signature the same credentials reproduce, and no secret', async () => {
  const signer = new AwsSigner(
    'us-east-1',
    'bedrock',
    credentialSource({
      aws_access_key_id: creds.accessKeyId,
      aws_secret_access_key: creds.secretAccessKey,
    }),
  );
  const h = await signer.sign({ method: 'POST', url, headers: { 'content-type': 'application/json' }, body }, date);
  assert.equal(h.host, 'bedrock-runtime.us-east-1.amazonaws.com');
  assert.equal(h['x-amz-date'], '20261128T120000Z');
  assert.match(
    h.authorization,
    /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/20261128\/us-east-1\/bedrock\/aws4_request, SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$/,
  );
  assert.equal(h.authorization, await expectedAuthorization(h));
  assert.notEqual(h.authorization, await expectedAuthorization(h, 'wrong-secret'));
  assert.ok(!JSON.stringify(h).includes(creds.secretAccessKey));
  assert.equal(h['x-amz-security-token'], undefined);
});

test('session credentials add x-amz-security-token', async () => {
  const signer = new AwsSigner(
    'eu-west-1',
    'bedrock',
    credentialSource({
      aws_access_key_id: 'ASIAEXAMPLE',
      aws_secret_access_key: 's',
      aws_session_token: 'tok',
    }),
  );
  const h = await signer.sign({ method: 'POST', url, headers: {}, body }, date);
  assert.equal(h['x-amz-security-token'], 'tok');
  assert.match(h.authorization, /\/eu-west-1\/bedrock\//);
});

test('chain credentials are reused until five minutes before expiry, then fetched again, once', async () => {
  let now = 0;
  let fetches = 0;
  const src = cachedCredentials(
    async () => {
      fetches++;
      return { ...creds, accessKeyId: `K${fetches}`, expiration: new Date(now + 60 * 60 * 1000) };
    },
    () => now,
  );
  const [a, b] = await Promise.all([src(), src()]);
  assert.equal(fetches, 1);
  assert.equal(a, b);
  now = 60 * 60 * 1000 - REFRESH_BEFORE_MS - 1;
  assert.equal((await src()).accessKeyId, 'K1');
  now += 2;
  assert.equal((await src()).accessKeyId, 'K2');
  assert.equal(fetches, 2);
});

test('a failed credential fetch is not cached', async () => {
  let fail = true;
  const src = cachedCredentials(async () => {
    if (fail) throw new Error('no credentials');
    return creds;
  });
  await assert.rejects(src(), /no credentials/);
  fail = false;
  assert.equal((await src()).accessKeyId, creds.accessKeyId);
});

test('a Bedrock API key goes as a Bearer token', () => {
  assert.deepEqual(bearerHeaders({ accept: 'application/json' }, 'ABSK-key'), {
    accept: 'application/json',
    authorization: 'Bearer ABSK-key',
  });
});

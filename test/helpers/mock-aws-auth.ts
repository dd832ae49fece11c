// The credential check of the AWS mocks (Bedrock, Claude Platform on AWS), as the services do it: a SigV4
// signature that the known test credentials reproduce (recomputed with @smithy/signature-v4 over the
// method, path, signed headers and body, at the request's own x-amz-date), or the service's API key as a
// Bearer token.
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const MOCK_AWS_CREDENTIALS = {
  accessKeyId: 'AKIAMOCKBEDROCK00001',
  secretAccessKey: 'mock/bedrock/secret/key/for/tests/only0000',
};
/** Whether a request's SigV4 signature is the one MOCK_AWS_CREDENTIALS give for `region` and `service`. */
export async function verifySigV4(
  req: IncomingMessage,
  body: string,
  region: string,
  service = 'bedrock',
): Promise<boolean> {
  const auth = req.headers.authorization ?? '';
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=[0-9a-f]{64}$/.exec(
      auth,
    );
  const amzDate = req.headers['x-amz-date'];
  if (
    m === null ||
    typeof amzDate !== 'string' ||
    m[1] !== MOCK_AWS_CREDENTIALS.accessKeyId ||
    m[3] !== region ||
    m[4] !== service
  )
    return false;
  // A signed payload hash must be the body's own: the signature only covers the header.
  const payloadHash = req.headers['x-amz-content-sha256'];
  if (payloadHash !== undefined && payloadHash !== createHash('sha256').update(body).digest('hex')) return false;
  const headers: Record<string, string> = {};
  for (const name of m[5].split(';')) {
    const v = req.headers[name];
    if (typeof v !== 'string') return false;
    headers[name] = v;
  }
  const url = new URL(req.url ?? '/', 'http://x');
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) query[k] = v;
  const signingDate = new Date(
    `${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`,
  );
  const signer = new SignatureV4({ region, service, credentials: MOCK_AWS_CREDENTIALS, sha256: Sha256 });
  const again = await signer.sign(
    {
      method: req.method ?? 'POST',
      protocol: 'http:',
      hostname: headers.host ?? '',
      path: url.pathname,
      query,
      headers,
      body,
    },
    { signingDate },
  );
  return again.headers.authorization === auth;
}

/** How a request proved itself: a valid signature, the API key, or not at all (null). */
export async function awsCaller(
  req: IncomingMessage,
  body: string,
  expect: { region: string; service: string; apiKey: string },
): Promise<'sigv4' | 'bearer' | null> {
  if (req.headers.authorization === `Bearer ${expect.apiKey}`) return 'bearer';
  return (await verifySigV4(req, body, expect.region, expect.service)) ? 'sigv4' : null;
}

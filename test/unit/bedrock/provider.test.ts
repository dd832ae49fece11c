// kind bedrock without the network: its config keys, the host of a region, the path of each operation for
// Claude and other models, the InvokeModel body, the signature each request carries, Bedrock's beta
// table and the reading of its error bodies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import { parseConfigText } from '../../../src/config/load.ts';
import { providerSpec } from '../../../src/registry.ts';
import { generationQuery } from '../../../src/spec/provider.ts';
import { readBedrockError } from '../../../src/providers/bedrock/errors.ts';

const CLAUDE = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const NOVA = 'amazon.nova-pro-v1:0';
const KEYS = 'aws_access_key_id: AKIDUNITTEST, aws_secret_access_key: unit/secret';

const config = (keys: string) =>
  parseConfigText(
    `providers:\n  - { name: br, kind: bedrock, ${keys} }\nmodels:\n  - { name: c, deployments: [ { provider: br, model: "${CLAUDE}" } ] }\n  - { name: n, deployments: [ { provider: br, model: "${NOVA}" } ] }\n`,
    { source: 'x.yaml', env: {} },
  );

test('config: region required and checked, keys in pairs, an API key or AWS keys, another kind’s key refused', () => {
  assert.throws(() => config(''), /providers\[0\]\.region/);
  assert.throws(() => config('region: "US East"'), /providers\[0\]\.region/);
  assert.throws(() => config('region: us-east-1, aws_access_key_id: AKID'), /aws_secret_access_key/);
  assert.throws(() => config('region: us-east-1, aws_session_token: t'), /aws_session_token/);
  assert.throws(() => config(`region: us-east-1, api_key: k, ${KEYS}`), /not both/);
  assert.throws(() => config('region: us-east-1, project: p'), /not a setting of kind bedrock/);
  assert.equal(config('region: eu-west-3').providers[0].baseUrl, 'https://bedrock-runtime.eu-west-3.amazonaws.com');
});

test('targets: Claude to InvokeModel(-WithResponseStream), other models to Converse(Stream), the id escaped', () => {
  const c = config('region: us-west-2');
  const p = c.providers[0];
  const [claude, nova] = [c.models[0].deployments[0], c.models[1].deployments[0]];
  const spec = providerSpec(p);
  const origin = 'https://bedrock-runtime.us-west-2.amazonaws.com';
  const id = encodeURIComponent(CLAUDE);
  assert.deepEqual(spec.target(p, claude, generationQuery('anthropic', false)), {
    origin,
    path: `/model/${id}/invoke`,
  });
  assert.equal(
    spec.target(p, claude, generationQuery('anthropic', true)).path,
    `/model/${id}/invoke-with-response-stream`,
  );
  assert.equal(
    spec.target(p, nova, generationQuery('anthropic', false)).path,
    `/model/amazon.nova-pro-v1%3A0/converse`,
  );
  assert.equal(
    spec.target(p, nova, generationQuery('anthropic', true)).path,
    `/model/amazon.nova-pro-v1%3A0/converse-stream`,
  );
  assert.equal(spec.upstreamSide?.(p, claude), null, 'Claude speaks Anthropic’s wire');
  assert.notEqual(spec.upstreamSide?.(p, nova), null, 'the others Converse');
  assert.throws(() => spec.target(p, claude, generationQuery('openai', false)), /no endpoint/);
  const overridden = config(
    'region: us-west-2, base_url: "https://vpce-1.bedrock-runtime.us-west-2.vpce.amazonaws.com/"',
  );
  assert.equal(
    spec.target(overridden.providers[0], overridden.models[0].deployments[0], generationQuery('anthropic', false))
      .origin,
    'https://vpce-1.bedrock-runtime.us-west-2.vpce.amazonaws.com',
  );
});

test('the InvokeModel body: version in, model and stream out, the fitted betas as a list; Converse bodies untouched', () => {
  const c = config('region: us-east-1');
  const p = c.providers[0];
  const [claude, nova] = [c.models[0].deployments[0], c.models[1].deployments[0]];
  const spec = providerSpec(p);
  const body = JSON.stringify({ model: 'x', stream: true, max_tokens: 5, messages: [] });
  const out = JSON.parse(
    spec.wireBody!({
      provider: p,
      deployment: claude,
      query: generationQuery('anthropic', true),
      body,
      forward: { 'anthropic-beta': 'context-1m-2025-08-07' },
    }) as string,
  );
  assert.deepEqual(out, {
    anthropic_version: 'bedrock-2023-05-31',
    max_tokens: 5,
    messages: [],
    anthropic_beta: ['context-1m-2025-08-07'],
  });
  const converse = '{"messages":[]}';
  assert.equal(
    spec.wireBody!({
      provider: p,
      deployment: nova,
      query: generationQuery('anthropic', false),
      body: converse,
      forward: {},
    }),
    converse,
  );
  assert.ok(spec.betas!(p, claude)!.accepted.has('interleaved-thinking-2025-05-14'));
  assert.equal(spec.betas!(p, claude)!.accepted.has('files-api-2025-04-14'), false);
  assert.equal(spec.betas!(p, nova)!.accepted.size, 0, 'Converse takes no betas');
});

test('sign: SigV4 for the region and service bedrock, reproducible with the same keys; an API key is a Bearer header', async () => {
  const c = config(`region: eu-central-1, ${KEYS}`);
  const p = c.providers[0];
  const d = c.models[0].deployments[0];
  const spec = providerSpec(p);
  const target = spec.target(p, d, generationQuery('anthropic', false));
  const headers = { ...spec.headers(p, { apiKey: null, forward: {} }) };
  const body = '{"anthropic_version":"bedrock-2023-05-31","messages":[]}';
  await spec.sign!({ provider: p, deployment: d, target, headers, body });
  const auth = headers.authorization;
  assert.match(auth, /^AWS4-HMAC-SHA256 Credential=AKIDUNITTEST\/\d{8}\/eu-central-1\/bedrock\/aws4_request, /);
  assert.equal(auth.includes('unit/secret'), false, 'the secret never goes');
  const amz = headers['x-amz-date'];
  const signedNames = /SignedHeaders=([^,]+)/.exec(auth)![1].split(';');
  const signedHeaders: Record<string, string> = {};
  for (const n of signedNames) signedHeaders[n] = headers[n];
  const again = await new SignatureV4({
    region: 'eu-central-1',
    service: 'bedrock',
    credentials: { accessKeyId: 'AKIDUNITTEST', secretAccessKey: 'unit/secret' },
    sha256: Sha256,
  }).sign(
    {
      method: 'POST',
      protocol: 'https:',
      hostname: 'bedrock-runtime.eu-central-1.amazonaws.com',
      path: target.path,
      query: {},
      headers: signedHeaders,
      body,
    },
    {
      signingDate: new Date(
        `${amz.slice(0, 4)}-${amz.slice(4, 6)}-${amz.slice(6, 8)}T${amz.slice(9, 11)}:${amz.slice(11, 13)}:${amz.slice(13, 15)}Z`,
      ),
    },
  );
  assert.equal(again.headers.authorization, auth);

  const keyed = config('region: us-east-1, api_key: ABSKkey');
  const kp = keyed.providers[0];
  const kh = { ...providerSpec(kp).headers(kp, { apiKey: 'ABSKkey', forward: {} }) };
  await providerSpec(kp).sign!({ provider: kp, deployment: keyed.models[0].deployments[0], target, headers: kh, body });
  assert.equal(kh.authorization, 'Bearer ABSKkey');
  assert.equal(kh['x-amz-date'], undefined);
});

test('errors: the type in the body decides the status, the message is kept; other bodies are left to the dialect', () => {
  assert.deepEqual(
    readBedrockError(400, '{"__type":"com.amazon.coral.validate#ThrottlingException","message":"slow down"}'),
    {
      from: 'messages',
      status: 429,
      message: 'slow down',
      type: 'ThrottlingException',
    },
  );
  assert.equal(readBedrockError(400, '{"message":"bad input"}')?.status, 400);
  assert.equal(readBedrockError(400, '{"message":"bad input"}')?.message, 'bad input');
  assert.equal(readBedrockError(503, '{"__type":"ModelNotReadyException","message":"warming"}')?.status, 503);
  assert.equal(readBedrockError(400, '{"type":"error","error":{"type":"invalid_request_error","message":"x"}}'), null);
  assert.equal(readBedrockError(502, 'Bad Gateway'), null);
});

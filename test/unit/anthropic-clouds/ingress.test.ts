// The cloud routes' pieces without a server: which paths are Bedrock's and Vertex's, how a cloud model id
// finds the gateway's model, the body reshaped into /v1/messages', and Bedrock's error shape.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bedrockCallOf, vertexCallOf } from '../../../src/dialects/anthropic-clouds/paths.ts';
import { cloudModelCandidates, gatewayModelOf } from '../../../src/dialects/anthropic-clouds/model-id.ts';
import { cloudMessagesBody } from '../../../src/dialects/anthropic-clouds/request.ts';
import { bedrockErrorType, renderBedrockError } from '../../../src/dialects/anthropic-clouds/errors.ts';
import { GatewayError } from '../../../src/core/errors.ts';
import { findRoute } from '../../helpers/routes.ts';

test('Bedrock paths: invoke, converse and their streams, the model decoded; anything else is not one', () => {
  assert.deepEqual(bedrockCallOf('/model/us.anthropic.claude-sonnet-4-5-20250929-v1:0/invoke'), {
    model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
    stream: false,
    api: 'invoke',
  });
  assert.deepEqual(bedrockCallOf('/model/us.anthropic.claude-x-v1%3A0/invoke-with-response-stream'), {
    model: 'us.anthropic.claude-x-v1:0',
    stream: true,
    api: 'invoke',
  });
  assert.deepEqual(bedrockCallOf('/model/amazon.nova-pro-v1%3A0/converse'), {
    model: 'amazon.nova-pro-v1:0',
    stream: false,
    api: 'converse',
  });
  assert.deepEqual(bedrockCallOf('/model/m/converse-stream'), { model: 'm', stream: true, api: 'converse' });
  assert.equal(findRoute('/model/m/converse')?.name, 'bedrock_converse');
  assert.equal(findRoute('/model/m/converse-stream')?.name, 'bedrock_converse_stream');
  assert.equal(bedrockCallOf('/model/a/converse-streams'), null);
  assert.equal(bedrockCallOf('/model//invoke'), null);
  assert.equal(bedrockCallOf('/model/a/b/invoke'), null);
  assert.equal(bedrockCallOf('/model/%E0%A4%A/invoke'), null);
  assert.equal(findRoute('/model/m/invoke')?.name, 'bedrock_invoke');
  assert.equal(findRoute('/model/m/invoke-with-response-stream')?.name, 'bedrock_invoke_stream');
  assert.equal(findRoute('/inference-profiles')?.name, 'bedrock_inference_profiles');
});

test('Vertex paths: rawPredict, streamRawPredict and count-tokens, with or without /v1', () => {
  const base = '/v1/projects/p-1/locations/us-east5/publishers/anthropic/models';
  assert.deepEqual(vertexCallOf(`${base}/claude-sonnet-4-5@20250929:rawPredict`), {
    project: 'p-1',
    location: 'us-east5',
    model: 'claude-sonnet-4-5@20250929',
    method: 'rawPredict',
  });
  assert.equal(vertexCallOf(`${base}/claude-x:streamRawPredict`)?.method, 'streamRawPredict');
  assert.equal(vertexCallOf(`${base}/count-tokens:rawPredict`)?.method, 'count-tokens');
  assert.equal(vertexCallOf(`/projects/p/locations/l/publishers/anthropic/models/m:rawPredict`)?.model, 'm');
  assert.equal(vertexCallOf(`${base}/claude-x:predict`), null);
  assert.equal(vertexCallOf('/v1/projects/p/locations/l/publishers/google/models/g:generateContent'), null);
  assert.equal(findRoute(`${base}/m:rawPredict`)?.name, 'vertex_raw_predict');
  assert.equal(findRoute(`${base}/m:streamRawPredict`)?.name, 'vertex_stream_raw_predict');
  assert.equal(findRoute(`${base}/count-tokens:rawPredict`)?.name, 'vertex_count_tokens');
  assert.equal(findRoute('/v1beta/models/gemini:generateContent')?.name, 'gemini_generate', 'Gemini paths stay');
});

test('cloud model ids: the id first, then without ARN, region, anthropic. and the version suffix', () => {
  assert.deepEqual(cloudModelCandidates('us.anthropic.claude-sonnet-4-5-20250929-v1:0'), [
    'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
    'anthropic.claude-sonnet-4-5-20250929-v1:0',
    'claude-sonnet-4-5-20250929-v1:0',
    'claude-sonnet-4-5-20250929',
  ]);
  assert.deepEqual(cloudModelCandidates('global.anthropic.claude-opus-4-6-v1'), [
    'global.anthropic.claude-opus-4-6-v1',
    'anthropic.claude-opus-4-6-v1',
    'claude-opus-4-6-v1',
    'claude-opus-4-6',
  ]);
  assert.equal(
    cloudModelCandidates('arn:aws:bedrock:us-east-1:123:inference-profile/us.anthropic.claude-x').at(-1),
    'claude-x',
  );
  assert.deepEqual(cloudModelCandidates('claude-sonnet-4-5@20250929'), [
    'claude-sonnet-4-5@20250929',
    'claude-sonnet-4-5',
  ]);
  assert.deepEqual(cloudModelCandidates('gpt-4o-mini'), ['gpt-4o-mini']);
  const known = new Set(['claude-sonnet-4-6', 'us.anthropic.claude-opus-5']);
  assert.equal(
    gatewayModelOf('us.anthropic.claude-sonnet-4-6', (n) => known.has(n)),
    'claude-sonnet-4-6',
  );
  assert.equal(
    gatewayModelOf('us.anthropic.claude-opus-5', (n) => known.has(n)),
    'us.anthropic.claude-opus-5',
  );
  assert.equal(
    gatewayModelOf('eu.anthropic.claude-nope-v1:0', (n) => known.has(n)),
    'eu.anthropic.claude-nope-v1:0',
  );
});

test('the body: model from the path, stream from the route, version and betas read and handed on', () => {
  const out = cloudMessagesBody(
    {
      anthropic_version: 'bedrock-2023-05-31',
      anthropic_beta: ['context-1m-2025-08-07', 'claude-code-20250219'],
      model: 'ignored',
      stream: false,
      max_tokens: 9,
      messages: [{ role: 'user', content: 'hi' }],
    },
    { model: 'claude-sonnet-4-6', stream: true, betaHeader: 'claude-code-20250219' },
  );
  assert.deepEqual(out.body, {
    model: 'claude-sonnet-4-6',
    max_tokens: 9,
    messages: [{ role: 'user', content: 'hi' }],
    stream: true,
  });
  assert.equal(out.version, '2023-06-01');
  assert.deepEqual(out.forward, {
    'anthropic-version': '2023-06-01',
    'anthropic-beta': 'claude-code-20250219,context-1m-2025-08-07',
  });
  assert.equal(
    cloudMessagesBody({ anthropic_version: '2026-10-21' }, { model: 'm', stream: false, betaHeader: undefined })
      .version,
    '2026-10-21',
  );
  assert.equal(
    'stream' in cloudMessagesBody({ stream: true }, { model: 'm', stream: false, betaHeader: undefined }).body,
    false,
  );
  assert.throws(() => cloudMessagesBody([], { model: 'm', stream: false, betaHeader: undefined }), /JSON object/);
  assert.throws(
    () =>
      cloudMessagesBody({ anthropic_version: 'bedrock-1999' }, { model: 'm', stream: false, betaHeader: undefined }),
    (e: GatewayError) => e.status === 400 && e.param === 'anthropic_version',
  );
  assert.throws(
    () => cloudMessagesBody({ anthropic_beta: 'x' }, { model: 'm', stream: false, betaHeader: undefined }),
    /anthropic_beta: must be a list of strings/,
  );
});

test("Bedrock's error shape: {message}, the type in x-amzn-errortype, keys masked", () => {
  assert.equal(bedrockErrorType(429), 'ThrottlingException');
  assert.equal(bedrockErrorType(400), 'ValidationException');
  assert.equal(bedrockErrorType(503), 'ServiceUnavailableException');
  const shaped = renderBedrockError(
    new GatewayError('model_not_found', { message: 'no model for sk-abcdefghijklmnopqrstuvwxyz123456' }),
    'req_1',
  );
  assert.equal(shaped.headers['x-amzn-errortype'], 'ResourceNotFoundException');
  assert.equal(shaped.headers['x-amzn-requestid'], 'req_1');
  assert.doesNotMatch(JSON.parse(shaped.body).message, /abcdefghijklmnopqrstuvwxyz123456/);
});

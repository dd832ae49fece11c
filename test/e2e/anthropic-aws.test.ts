// kind anthropic-aws end to end: a Claude Platform on AWS mock that checks the workspace header and a
// SigV4 signature (service aws-external-anthropic) or the workspace key as a Bearer token. Messages
// callers pass through (their betas as headers, untouched), chat callers are translated; costs computed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { MOCK_AWS_CREDENTIALS } from '../helpers/mock-bedrock.ts';
import {
  MOCK_ANTHROPIC_AWS_KEY,
  MOCK_WORKSPACE_ID,
  startMockAnthropicAws,
  type MockAnthropicAws,
} from '../helpers/mock-anthropic-aws.ts';
import { startGateway, configYaml, type GatewayProcess } from '../helpers/gateway-process.ts';

let aws: MockAnthropicAws;
let gw: GatewayProcess;
let key: string;

before(async () => {
  aws = await startMockAnthropicAws();
  const keys = `aws_access_key_id: ${MOCK_AWS_CREDENTIALS.accessKeyId}, aws_secret_access_key: "${MOCK_AWS_CREDENTIALS.secretAccessKey}"`;
  gw = await startGateway({
    configYaml: configYaml({
      providers: `  - { name: cpa, kind: anthropic-aws, region: us-west-2, workspace_id: ${MOCK_WORKSPACE_ID}, base_url: "${aws.url}", ${keys} }
  - { name: cpa-key, kind: anthropic-aws, region: us-west-2, workspace_id: ${MOCK_WORKSPACE_ID}, base_url: "${aws.url}", api_key: ${MOCK_ANTHROPIC_AWS_KEY} }`,
      models: `  - { name: claude-cpa, deployments: [ { provider: cpa, model: claude-sonnet-4-5-20250929 } ] }
  - { name: claude-cpa-key, deployments: [ { provider: cpa-key, model: claude-sonnet-4-5-20250929 } ] }`,
    }),
  });
  ({ key } = await gw.createKey({ name: 'cpa' }));
});
after(async () => {
  await gw?.cleanup();
  await aws?.close();
});

test('@anthropic-ai/sdk, streamed: signed with SigV4, the workspace named, betas passed as they came, a cost', async () => {
  const client = new Anthropic({ baseURL: gw.url, authToken: key, apiKey: null, maxRetries: 0 });
  const stream = client.beta.messages.stream({
    model: 'claude-cpa',
    max_tokens: 64,
    messages: [{ role: 'user', content: 'hi' }],
    betas: ['files-api-2025-04-14'],
  });
  const { response } = await stream.withResponse();
  const final = await stream.finalMessage();
  assert.equal(final.content[0].type === 'text' ? final.content[0].text : '', 'Hello from Claude Platform on AWS');
  const call = aws.calls.at(-1)!;
  assert.equal(call.auth, 'sigv4');
  assert.equal(call.headers['anthropic-workspace-id'], MOCK_WORKSPACE_ID);
  assert.equal(call.headers['anthropic-beta'], 'files-api-2025-04-14', 'the first-party betas all go');
  assert.equal(call.headers['x-api-key'], undefined);
  assert.equal(call.body.model, 'claude-sonnet-4-5-20250929');
  assert.equal(aws.refused, 0);
  assert.equal(response.headers.get('x-modelgate-adjusted'), null);
  const plain = await client.messages
    .create({ model: 'claude-cpa', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] })
    .withResponse();
  assert.ok(Number(plain.response.headers.get('x-modelgate-cost')) > 0);
});

test('openai SDK with a workspace API key: translated to Messages, the key as a Bearer token', async () => {
  const oai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
  const reply = await oai.chat.completions.create({
    model: 'claude-cpa-key',
    messages: [{ role: 'user', content: 'hi' }],
  });
  assert.equal(reply.choices[0].message.content, 'Hello from Claude Platform on AWS');
  const call = aws.calls.at(-1)!;
  assert.equal(call.auth, 'bearer');
  assert.equal(call.headers['anthropic-workspace-id'], MOCK_WORKSPACE_ID);
  assert.equal(call.headers['x-amz-date'], undefined);
  assert.equal(aws.refused, 0);
});

test('no AWS secret or workspace key reaches the log', () => {
  const logs = gw.logs();
  assert.equal(logs.includes(MOCK_AWS_CREDENTIALS.secretAccessKey), false);
  assert.equal(logs.includes(MOCK_ANTHROPIC_AWS_KEY), false);
});

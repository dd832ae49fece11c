import assert from 'node:assert/strict';
import { test } from 'node:test';
import { request } from 'undici';
import {
  anthropicFrameOfChunk,
  cloudAnthropicBody,
  BEDROCK_ANTHROPIC_VERSION,
} from '../../src/providers/bedrock/anthropic-body.ts';
import { ConverseStreamDecoder } from '../../src/providers/bedrock/converse-stream.ts';
import { EventStreamDecoder } from '../../src/providers/aws/event-stream.ts';
import { AwsSigner, credentialSource } from '../../src/providers/aws/sigv4.ts';
import { MOCK_AWS_CREDENTIALS, MOCK_BEDROCK_API_KEY, startMockBedrock } from '../helpers/mock-bedrock.ts';

const good = new AwsSigner(
  'us-east-1',
  'bedrock',
  credentialSource({
    aws_access_key_id: MOCK_AWS_CREDENTIALS.accessKeyId,
    aws_secret_access_key: MOCK_AWS_CREDENTIALS.secretAccessKey,
  }),
);
const wrong = new AwsSigner(
  'us-east-1',
  'bedrock',
  credentialSource({
    aws_access_key_id: MOCK_AWS_CREDENTIALS.accessKeyId,
    aws_secret_access_key: 'not-the-secret',
  }),
);

async function send(url: string, body: string, headers: Record<string, string>) {
  const res = await request(url, { method: 'POST', headers, body });
  return { status: res.statusCode, headers: res.headers, bytes: Buffer.from(await res.body.arrayBuffer()) };
}

test('the mock verifies SigV4: a signed Converse call is answered, a wrong secret is refused', async (t) => {
  const mock = await startMockBedrock();
  t.after(() => mock.close());
  const url = `${mock.url}/model/us.amazon.nova-pro-v1:0/converse`;
  const body = JSON.stringify({ messages: [{ role: 'user', content: [{ text: 'hi' }] }] });
  const base = { 'content-type': 'application/json' };
  const ok = await send(url, body, await good.sign({ method: 'POST', url, headers: base, body }));
  assert.equal(ok.status, 200);
  assert.equal(JSON.parse(ok.bytes.toString()).output.message.content[0].text, 'Hello from Bedrock');
  assert.equal(mock.calls[0].model, 'us.amazon.nova-pro-v1:0');
  const bad = await send(url, body, await wrong.sign({ method: 'POST', url, headers: base, body }));
  assert.equal(bad.status, 403);
  assert.equal(bad.headers['x-amzn-errortype'], 'InvalidSignatureException');
  // A body changed after signing is refused too.
  const signed = await good.sign({ method: 'POST', url, headers: base, body });
  assert.equal((await send(url, `${body} `, signed)).status, 403);
  assert.equal(mock.refused, 2);
});

test('ConverseStream answers in the binary event stream', async (t) => {
  const mock = await startMockBedrock();
  t.after(() => mock.close());
  const url = `${mock.url}/model/m/converse-stream`;
  const body = '{"messages":[]}';
  const res = await send(url, body, { authorization: `Bearer ${MOCK_BEDROCK_API_KEY}` });
  assert.equal(res.headers['content-type'], 'application/vnd.amazon.eventstream');
  const d = new ConverseStreamDecoder();
  const events = new EventStreamDecoder().push(res.bytes).flatMap((f) => d.push(f));
  const text = events.flatMap((e) => (e.type === 'text-delta' ? [e.text] : [])).join('');
  assert.equal(text, 'Hello from Bedrock');
  assert.equal(events.at(-1)?.type, 'finish');
  assert.equal(mock.calls[0].auth, 'bearer');
});

test('InvokeModelWithResponseStream wraps Anthropic events; a body with model is refused', async (t) => {
  const mock = await startMockBedrock();
  t.after(() => mock.close());
  const url = `${mock.url}/model/us.anthropic.claude-sonnet-4-6/invoke-with-response-stream`;
  const body = cloudAnthropicBody(
    { model: 'x', max_tokens: 5, messages: [] },
    BEDROCK_ANTHROPIC_VERSION,
    undefined,
    false,
  );
  const res = await send(url, body, await good.sign({ method: 'POST', url, headers: {}, body }));
  const types = new EventStreamDecoder().push(res.bytes).map((f) => anthropicFrameOfChunk(f.data).event);
  assert.deepEqual(types, [
    'message_start',
    'content_block_start',
    'content_block_delta',
    'content_block_stop',
    'message_delta',
    'message_stop',
  ]);
  const invokeUrl = `${mock.url}/model/m/invoke`;
  const withModel = '{"model":"m","anthropic_version":"bedrock-2023-05-31"}';
  const refused = await send(
    invokeUrl,
    withModel,
    await good.sign({ method: 'POST', url: invokeUrl, headers: {}, body: withModel }),
  );
  assert.equal(refused.status, 400);
  assert.equal(refused.headers['x-amzn-errortype'], 'ValidationException');
});

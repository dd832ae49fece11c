import assert from 'node:assert/strict';
import { test } from 'node:test';
import { request } from 'undici';
import { cloudAnthropicBody, VERTEX_ANTHROPIC_VERSION } from '../../src/providers/bedrock/anthropic-body.ts';
import { vertexTokenSource } from '../../src/providers/vertex/token.ts';
import { vertexOrigin, vertexPath } from '../../src/providers/vertex/urls.ts';
import { startMockGoogleToken } from '../helpers/mock-google-token.ts';
import { startMockVertex } from '../helpers/mock-vertex.ts';

test('the Vertex mock takes only tokens its token endpoint issued, for Gemini and Claude methods', async (t) => {
  const google = await startMockGoogleToken();
  const vertex = await startMockVertex(google);
  t.after(async () => {
    await vertex.close();
    await google.close();
  });
  const token = await (await vertexTokenSource(await google.serviceAccountFile(), {}))();
  const origin = vertexOrigin('us-east5', vertex.url);
  const post = async (path: string, body: string, bearer: string) => {
    const res = await request(`${origin}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}` },
      body,
    });
    return { status: res.statusCode, text: await res.body.text() };
  };
  const gemini = await post(vertexPath('p', 'us-east5', 'gemini-2.5-flash', false), '{"contents":[]}', token);
  assert.equal(gemini.status, 200);
  assert.equal(JSON.parse(gemini.text).candidates[0].content.parts[0].text, 'Hello from Vertex');
  const sse = await post(vertexPath('p', 'us-east5', 'gemini-2.5-flash', true), '{"contents":[]}', token);
  assert.match(sse.text, /^data: /);
  const claudeBody = cloudAnthropicBody(
    { model: 'x', max_tokens: 5, stream: true, messages: [] },
    VERTEX_ANTHROPIC_VERSION,
    undefined,
    true,
  );
  const claude = await post(vertexPath('p', 'us-east5', 'claude-sonnet-4-6', true), claudeBody, token);
  assert.match(claude.text, /^event: message_start\n/);
  assert.equal(vertex.calls.at(-1)?.method, 'streamRawPredict');
  assert.equal((await post(vertexPath('p', 'us-east5', 'gemini-2.5-flash', false), '{}', 'ya29.forged')).status, 401);
});

// Anthropic's cloud routes as gateway ingress: @anthropic-ai/bedrock-sdk and @anthropic-ai/vertex-sdk with
// their base URL set to the gateway and the gateway's key as their credential, and Claude Code (newest)
// in its Bedrock and Vertex modes, `claude -p` with a shell tool round trip to a Claude model (served by
// kind vertex) and to a GPT model (an OpenAI-style upstream, translated). Bedrock's streams come back in
// AWS's event stream, its errors in Bedrock's shape; usage rows name the route.
import { test, before, after, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import AnthropicBedrock from '@anthropic-ai/bedrock-sdk';
import { AnthropicVertex } from '@anthropic-ai/vertex-sdk';
import type { MockUpstream, RecordedRequest } from '../helpers/mock-upstream-types.ts';
import type { MockGoogleToken } from '../helpers/mock-google-token.ts';
import type { MockVertex } from '../helpers/mock-vertex.ts';
import { waitUntil, type GatewayProcess } from '../helpers/gateway-process.ts';
import { startCloudFixture, type CloudFixture } from '../helpers/cloud-fixture.ts';
import { claudeOrSkip, runClaude } from '../helpers/claude-code.ts';
import { usageRows } from '../admission/usage-db.ts';

let fx: CloudFixture;
let up: MockUpstream;
let google: MockGoogleToken;
let vx: MockVertex;
let gw: GatewayProcess;
let key: string;
let keyId: string;

before(async () => {
  fx = await startCloudFixture({
    vertex: true,
    keyName: 'cloud-ingress',
    providers: (
      m,
    ) => `  - { name: vx, kind: vertex, project: proj-1, location: us-east5, base_url: "${m.vx!.url}", credentials_file: "${m.serviceAccount}" }
  - { name: oa, kind: openai, base_url: "${m.up!.url}/v1", api_key: "sk-upstream-secret-0123456789abcdefXYZ" }
  - { name: upa, kind: anthropic, base_url: "${m.up!.url}", api_key: "sk-upstream-secret-0123456789abcdefXYZ" }`,
    models: `  - { name: claude-sonnet-4-6, price: { input: 3, output: 15 }, deployments: [ { provider: vx, model: claude-sonnet-4-6 } ] }
  - { name: claude-direct, deployments: [ { provider: upa, model: claude-upstream-1 } ] }
  - { name: gpt-4o-mini, price: { input: 1, output: 2 }, deployments: [ { provider: oa, model: gpt-4o-mini } ] }`,
  });
  ({ gw, key, keyId } = fx);
  up = fx.up!;
  google = fx.google!;
  vx = fx.vx!;
});
after(async () => {
  await fx?.close();
});

const bedrock = (): AnthropicBedrock =>
  new AnthropicBedrock({ baseURL: gw.url, apiKey: key, awsRegion: 'us-east-1', maxRetries: 0 });

/** A Google auth client that hands the SDK the gateway's key as its access token. */
const gatewayAuth = () =>
  ({
    projectId: 'proj-1',
    getRequestHeaders: async () => new Headers({ authorization: `Bearer ${key}` }),
  }) as unknown as ConstructorParameters<typeof AnthropicVertex>[0] extends infer O
    ? O extends { authClient?: infer A }
      ? A
      : never
    : never;

const vertex = (): AnthropicVertex =>
  new AnthropicVertex({
    baseURL: `${gw.url}/v1`,
    region: 'us-east5',
    projectId: 'proj-1',
    authClient: gatewayAuth(),
    maxRetries: 0,
  });

test('bedrock-sdk: a Bedrock inference-profile id reaches the gateway model by its first-party name', async () => {
  up.reset();
  up.configure({ replyText: 'hello from the bedrock route' });
  const reply = await bedrock().messages.create({
    model: 'us.anthropic.claude-sonnet-4-6',
    max_tokens: 64,
    messages: [{ role: 'user', content: 'hi' }],
  });
  assert.equal(reply.content[0].type === 'text' ? reply.content[0].text : '', 'hello from the bedrock route');
  const call = vx.calls.at(-1)!;
  assert.equal(call.model, 'claude-sonnet-4-6');
  assert.equal(call.method, 'rawPredict');
  const rows = () => usageRows(gw.dbPath, keyId) as unknown as Record<string, unknown>[];
  await waitUntil(() => rows().some((r) => r.endpoint === '/model/{model}/invoke'), 'a usage row');
  const row = rows().find((r) => r.endpoint === '/model/{model}/invoke')!;
  assert.equal(row.model, 'claude-sonnet-4-6');
  assert.equal(row.status, 200);
  assert.ok(Number(row.input_tokens) > 0);
  assert.ok(Number(row.cost_nanos) > 0, 'priced as the model says');
});

test('bedrock-sdk, streamed: the event stream carries a GPT model translated from the Anthropic body', async () => {
  up.reset();
  up.configure({ replyText: 'GPT answers through Bedrock framing' });
  const stream = bedrock().messages.stream({
    model: 'gpt-4o-mini',
    max_tokens: 64,
    messages: [{ role: 'user', content: 'hi' }],
  });
  const { response } = await stream.withResponse();
  assert.equal(response.headers.get('content-type'), 'text/event-stream; charset=utf-8', 'the SDK re-framed it');
  const final = await stream.finalMessage();
  assert.equal(final.content[0].type === 'text' ? final.content[0].text : '', 'GPT answers through Bedrock framing');
  assert.ok(final.usage.output_tokens > 0);
  assert.equal(up.requests.at(-1)!.path, '/v1/chat/completions');
});

test('bedrock-sdk: betas travel as the body list and reach an Anthropic upstream as its header', async () => {
  up.reset();
  await bedrock().beta.messages.create({
    model: 'claude-direct',
    max_tokens: 16,
    messages: [{ role: 'user', content: 'hi' }],
    betas: ['interleaved-thinking-2025-05-14'],
  });
  const sent = up.requests.at(-1)!;
  assert.equal(sent.path, '/v1/messages');
  assert.equal(sent.headers['anthropic-beta'], 'interleaved-thinking-2025-05-14');
  const body = sent.json as Record<string, unknown>;
  assert.equal(body.model, 'claude-upstream-1');
  assert.equal('anthropic_beta' in body || 'anthropic_version' in body, false);
});

test('Bedrock routes: the raw event stream, Bedrock-shaped errors, and the inference-profile listing', async () => {
  const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const body = JSON.stringify({
    anthropic_version: 'bedrock-2023-05-31',
    max_tokens: 16,
    messages: [{ role: 'user', content: 'hi' }],
  });
  const streamed = await fetch(`${gw.url}/model/claude-direct/invoke-with-response-stream`, {
    method: 'POST',
    headers: auth,
    body,
  });
  assert.equal(streamed.status, 200);
  assert.equal(streamed.headers.get('content-type'), 'application/vnd.amazon.eventstream');
  const bytes = Buffer.from(await streamed.arrayBuffer());
  assert.ok(bytes.includes(Buffer.from(':event-type')) && bytes.includes(Buffer.from('chunk')));

  const missing = await fetch(`${gw.url}/model/us.anthropic.claude-nope-9/invoke`, {
    method: 'POST',
    headers: auth,
    body,
  });
  assert.equal(missing.status, 404);
  assert.equal(missing.headers.get('x-amzn-errortype'), 'ResourceNotFoundException');
  assert.match(((await missing.json()) as { message: string }).message, /us\.anthropic\.claude-nope-9/);

  const anonymous = await fetch(`${gw.url}/model/claude-direct/invoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  assert.equal(anonymous.status, 401);
  assert.equal(anonymous.headers.get('x-amzn-errortype'), 'UnrecognizedClientException');

  const badVersion = await fetch(`${gw.url}/model/claude-direct/invoke`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ anthropic_version: 'bedrock-1999', max_tokens: 1, messages: [] }),
  });
  assert.equal(badVersion.status, 400);
  assert.equal(badVersion.headers.get('x-amzn-errortype'), 'ValidationException');

  const profiles = await fetch(`${gw.url}/inference-profiles?type=SYSTEM_DEFINED`, { headers: auth });
  assert.equal(profiles.status, 200);
  assert.deepEqual(await profiles.json(), { inferenceProfileSummaries: [] });
});

test('vertex-sdk: rawPredict, streamRawPredict and count-tokens with the gateway key as the access token', async () => {
  up.reset();
  up.configure({ replyText: 'vertex route reply' });
  const client = vertex();
  const reply = await client.messages.create({
    model: 'claude-sonnet-4-6@20250929',
    max_tokens: 64,
    messages: [{ role: 'user', content: 'hi' }],
  });
  assert.equal(reply.content[0].type === 'text' ? reply.content[0].text : '', 'vertex route reply');
  assert.equal(vx.calls.at(-1)!.model, 'claude-sonnet-4-6', "the '@version' is looked past");

  const stream = client.messages.stream({
    model: 'gpt-4o-mini',
    max_tokens: 64,
    messages: [{ role: 'user', content: 'hi' }],
  });
  const final = await stream.finalMessage();
  assert.equal(final.content[0].type === 'text' ? final.content[0].text : '', 'vertex route reply');
  assert.equal(up.requests.at(-1)!.path, '/v1/chat/completions');

  const counted = await client.messages.countTokens({
    model: 'claude-sonnet-4-6',
    messages: [{ role: 'user', content: 'hi' }],
  });
  assert.equal(counted.input_tokens, 17, 'counted by the Vertex deployment');
});

/** Every text a tool result carries, in either dialect. */
function toolResults(req: RecordedRequest): string[] {
  const messages = (req.json as { messages?: unknown[] } | undefined)?.messages ?? [];
  const out: string[] = [];
  for (const m of messages as { role?: string; content?: unknown }[]) {
    if (m.role === 'tool') out.push(typeof m.content === 'string' ? m.content : JSON.stringify(m.content));
    if (!Array.isArray(m.content)) continue;
    for (const b of m.content as { type?: string; content?: unknown }[])
      if (b.type === 'tool_result') out.push(typeof b.content === 'string' ? b.content : JSON.stringify(b.content));
  }
  return out;
}

async function claudeCloudRoundTrip(
  t: TestContext,
  o: { mode: 'bedrock' | 'bedrock-skip-auth' | 'vertex'; model: string; upstreamPath: string },
): Promise<void> {
  if (!(await claudeOrSkip(t))) return;
  const token = randomBytes(6).toString('hex');
  const printed = `mg-42-${token}`;
  up.reset();
  up.configure({
    toolName: 'Bash',
    toolArguments: { command: `echo mg-$((6*7))-${token}`, description: 'Print the test token' },
    replyText: `All done ${token}.`,
  });
  const bedrockBase = { CLAUDE_CODE_USE_BEDROCK: '1', ANTHROPIC_BEDROCK_BASE_URL: gw.url, AWS_REGION: 'us-east-1' };
  const cloud: Record<string, string> =
    o.mode === 'bedrock'
      ? { ...bedrockBase, AWS_BEARER_TOKEN_BEDROCK: key }
      : o.mode === 'bedrock-skip-auth'
        ? {
            ...bedrockBase,
            CLAUDE_CODE_SKIP_BEDROCK_AUTH: '1',
            ANTHROPIC_CUSTOM_HEADERS: `Authorization: Bearer ${key}`,
          }
        : {
            CLAUDE_CODE_USE_VERTEX: '1',
            CLAUDE_CODE_SKIP_VERTEX_AUTH: '1',
            ANTHROPIC_CUSTOM_HEADERS: `Authorization: Bearer ${key}`,
            ANTHROPIC_VERTEX_BASE_URL: `${gw.url}/v1`,
            CLOUD_ML_REGION: 'us-east5',
            ANTHROPIC_VERTEX_PROJECT_ID: 'proj-1',
          };
  const run = await runClaude({
    gateway: { url: gw.url, key },
    cloud,
    prompt: 'Run the shell command that prints the token, then tell me what it printed.',
    allowedTools: 'Bash',
    model: o.model,
  });
  const generations = up.requests.filter((r) => r.path === o.upstreamPath);
  const diagnosis = `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr.slice(0, 2000)}\nupstream saw: ${up.requests.map((r) => r.path).join(', ')}\ngateway: ${gw.logs().slice(-3000)}`;
  assert.equal(run.code, 0, diagnosis);
  assert.ok(
    generations.some((r) => toolResults(r).some((text) => text.includes(printed))),
    `the upstream saw the command's output\n${diagnosis}`,
  );
  assert.match(run.stdout, new RegExp(`All done ${token}`), diagnosis);
  // The conversation came in on the cloud route, streamed, and was billed there.
  const route =
    o.mode === 'vertex'
      ? '/v1/projects/{project}/locations/{location}/publishers/anthropic/models/{model}:streamRawPredict'
      : '/model/{model}/invoke-with-response-stream';
  const rows = () => usageRows(gw.dbPath, keyId) as unknown as Record<string, unknown>[];
  await waitUntil(
    () => rows().some((r) => r.endpoint === route && r.model === o.model && r.status === 200),
    'usage rows',
  );
}

test('Claude Code, CLAUDE_CODE_USE_BEDROCK=1 with AWS_BEARER_TOKEN_BEDROCK: a Claude model (served by kind vertex)', {
  timeout: 240_000,
}, async (t) => {
  await claudeCloudRoundTrip(t, { mode: 'bedrock', model: 'claude-sonnet-4-6', upstreamPath: '/v1/messages' });
});

test('Claude Code, CLAUDE_CODE_USE_BEDROCK=1 with CLAUDE_CODE_SKIP_BEDROCK_AUTH and the key in ANTHROPIC_CUSTOM_HEADERS: a GPT model behind the gateway', {
  timeout: 240_000,
}, async (t) => {
  await claudeCloudRoundTrip(t, {
    mode: 'bedrock-skip-auth',
    model: 'gpt-4o-mini',
    upstreamPath: '/v1/chat/completions',
  });
});

test('Claude Code, CLAUDE_CODE_USE_VERTEX=1 with CLAUDE_CODE_SKIP_VERTEX_AUTH and the key in ANTHROPIC_CUSTOM_HEADERS: a Claude model', {
  timeout: 240_000,
}, async (t) => {
  await claudeCloudRoundTrip(t, { mode: 'vertex', model: 'claude-sonnet-4-6', upstreamPath: '/v1/messages' });
});

test('Claude Code, CLAUDE_CODE_USE_VERTEX=1: a GPT model behind the gateway', { timeout: 240_000 }, async (t) => {
  await claudeCloudRoundTrip(t, { mode: 'vertex', model: 'gpt-4o-mini', upstreamPath: '/v1/chat/completions' });
});

test('bedrock-sdk: a failure after the stream started is an error event in a chunk, which the SDK raises', async () => {
  up.reset();
  up.setBehaviour((r) =>
    r.path === '/v1/chat/completions'
      ? { kind: 'stream-error', afterEvents: 2, message: 'upstream fell over' }
      : undefined,
  );
  try {
    const stream = bedrock().messages.stream({
      model: 'gpt-4o-mini',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'hi' }],
    });
    await assert.rejects(stream.finalMessage(), (err: Error) => /upstream fell over/.test(err.message));
  } finally {
    up.setBehaviour(undefined);
  }
  const rows = () => usageRows(gw.dbPath, keyId) as unknown as Record<string, unknown>[];
  await waitUntil(
    () => rows().some((r) => r.endpoint === '/model/{model}/invoke-with-response-stream' && r.status === 502),
    'the failed stream billed and marked',
  );
});

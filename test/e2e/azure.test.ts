// kind azure end to end: callers use the gateway as usual (openai SDK, Anthropic SDK), and a mock Azure
// OpenAI resource checks what Azure checks: the path of the configured api_version's style, the
// `api-version` query, and an `api-key` or a Bearer token from a mock Microsoft Entra ID (reached by
// @azure/identity's ClientSecretCredential). Chat, streamed chat, Responses and embeddings pass through;
// an Anthropic caller is translated; an Entra token is reused, and refreshed before it expires without
// holding requests up; no credential reaches a caller.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { startMockUpstream } from '../helpers/mock-upstream.ts';
import type { MockUpstream } from '../helpers/mock-upstream-types.ts';
import { startMockAzure, AZURE_SCOPE, type MockAzure } from '../helpers/mock-azure.ts';
import { startGateway, configYaml, waitUntil, type GatewayProcess } from '../helpers/gateway-process.ts';

const API_KEY = 'azure-resource-key-0123456789abcdef';
const CLIENT_SECRET = 'entra-client-secret-0123456789abcdef';
let up: MockUpstream;
let az: MockAzure;
let gw: GatewayProcess;
let key: string;

before(async () => {
  up = await startMockUpstream();
  az = await startMockAzure({ upstream: up, apiKey: API_KEY, clientSecret: CLIENT_SECRET });
  // Tokens of the `short-lived` client expire in two minutes: already inside the five-minute refresh window.
  az.setTokenLifetime('short-lived', 120);
  const entra = (client: string): string =>
    `entra_id: { tenant_id: contoso, client_id: ${client}, client_secret: "${CLIENT_SECRET}", authority_host: "${az.authorityHost}" }`;
  gw = await startGateway({
    configYaml: configYaml({
      providers: `  - { name: az-dated, kind: azure, base_url: "${az.url}", api_version: "2024-10-21", api_key: "${API_KEY}", apis: [chat, responses, embeddings] }
  - { name: az-v1, kind: azure, base_url: "${az.url}", api_version: v1, ${entra('gateway-app')}, apis: [chat, responses] }
  - { name: az-short, kind: azure, base_url: "${az.url}", ${entra('short-lived')} }
  - { name: az-refused, kind: azure, base_url: "${az.url}", entra_id: { tenant_id: contoso, client_id: refused-app, client_secret: "wrong-secret-0123456789", authority_host: "${az.authorityHost}" } }`,
      models: `  - { name: gpt-dated, price: { input: 1, output: 2 }, deployments: [ { provider: az-dated, model: gpt4o-prod } ] }
  - { name: gpt-v1, price: { input: 1, output: 2 }, deployments: [ { provider: az-v1, model: gpt4o-v1 } ] }
  - { name: gpt-short, deployments: [ { provider: az-short, model: gpt4o-short } ] }
  - { name: claude-on-azure, family: anthropic, deployments: [ { provider: az-dated, model: gpt4o-prod } ] }
  - { name: gpt-failover, deployments: [ { provider: az-refused, model: gpt4o-prod }, { provider: az-dated, model: gpt4o-prod, priority: 1 } ] }
  - { name: emb, mode: embedding, price: { input: 1, output: 0 }, deployments: [ { provider: az-dated, model: emb-prod } ] }`,
    }),
    env: { NODE_EXTRA_CA_CERTS: az.caFile },
  });
  ({ key } = await gw.createKey({ name: 'azure' }));
});
after(async () => {
  await gw?.cleanup();
  await az?.close();
  await up?.close();
});

const oai = (): OpenAI => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });

test('chat (openai SDK), dated api_version: the deployment path, api-version and api-key', async () => {
  const reply = await oai().chat.completions.create({
    model: 'gpt-dated',
    messages: [{ role: 'user', content: 'hello azure' }],
  });
  assert.equal(reply.model, 'gpt-dated');
  assert.ok((reply.choices[0].message.content ?? '').length > 0);
  const sent = az.requests.at(-1)!;
  assert.equal(sent.refused, null);
  assert.equal(sent.path, '/openai/deployments/gpt4o-prod/chat/completions');
  assert.equal(sent.apiVersion, '2024-10-21');
  assert.equal(sent.deployment, 'gpt4o-prod');
  assert.equal(sent.auth, 'api-key');
  assert.equal(sent.headers['api-key'], API_KEY);
  assert.equal(sent.headers.authorization, undefined, 'no OpenAI-style Authorization header');
  assert.equal((JSON.parse(sent.body) as { model: string }).model, 'gpt4o-prod');
});

test('streamed chat, v1 api_version with Entra ID: /openai/v1 path, a Bearer token from the token endpoint', async () => {
  const stream = await oai().chat.completions.create({
    model: 'gpt-v1',
    messages: [{ role: 'user', content: 'stream please' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = '';
  let usage: OpenAI.CompletionUsage | null | undefined;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta.content ?? '';
    if (chunk.usage) usage = chunk.usage;
    assert.equal(chunk.model, 'gpt-v1');
  }
  assert.ok(text.length > 0);
  assert.ok(usage !== undefined && usage !== null && usage.completion_tokens > 0);
  const sent = az.requests.at(-1)!;
  assert.equal(sent.refused, null);
  assert.equal(sent.path, '/openai/v1/chat/completions');
  assert.equal(sent.apiVersion, null);
  assert.equal(sent.auth, 'bearer');
  assert.equal(sent.headers['api-key'], undefined);
  assert.equal((JSON.parse(sent.body) as { model: string }).model, 'gpt4o-v1', 'v1 names the deployment in the body');
  const grants = az.tokenRequests.filter((t) => t.clientId === 'gateway-app');
  assert.equal(grants.length, 1);
  assert.equal(grants[0].tenant, 'contoso');
  assert.equal(grants[0].scope.split(' ').includes(AZURE_SCOPE), true);
  assert.equal(sent.token, grants[0].token);
});

test('an Entra token is reused: no token request per request', async () => {
  const before = az.tokenRequests.length;
  for (let i = 0; i < 3; i++)
    await oai().chat.completions.create({ model: 'gpt-v1', messages: [{ role: 'user', content: `again ${i}` }] });
  assert.equal(az.tokenRequests.length, before, 'the cached token served');
  const tokens = az.requests.slice(-3).map((r) => r.token);
  assert.equal(new Set(tokens).size, 1);
});

test('Responses: passed through to /openai/v1/responses (v1) and /openai/responses?api-version (dated)', async () => {
  const v1 = await oai().responses.create({ model: 'gpt-v1', input: 'hi there' });
  assert.equal(v1.model, 'gpt-v1');
  assert.ok(v1.output_text.length > 0);
  let sent = az.requests.at(-1)!;
  assert.equal(sent.path, '/openai/v1/responses');
  assert.equal((JSON.parse(sent.body) as { model: string }).model, 'gpt4o-v1');

  const dated = await oai().responses.create({ model: 'gpt-dated', input: 'hi there' });
  assert.ok(dated.output_text.length > 0);
  sent = az.requests.at(-1)!;
  assert.equal(sent.path, '/openai/responses');
  assert.equal(sent.apiVersion, '2024-10-21');
  assert.equal(sent.auth, 'api-key');
  assert.equal((JSON.parse(sent.body) as { model: string }).model, 'gpt4o-prod', 'the deployment in the body');
});

test('embeddings: the deployment path with api-version', async () => {
  const res = await oai().embeddings.create({ model: 'emb', input: ['one', 'two'], encoding_format: 'float' });
  assert.equal(res.data.length, 2);
  assert.equal(res.model, 'emb');
  const sent = az.requests.at(-1)!;
  assert.equal(sent.path, '/openai/deployments/emb-prod/embeddings');
  assert.equal(sent.apiVersion, '2024-10-21');
  assert.equal(sent.auth, 'api-key');
});

test('an Anthropic SDK caller is translated to the Azure deployment, whole and streamed', async () => {
  const ant = new Anthropic({ baseURL: gw.url, authToken: key, apiKey: null, maxRetries: 0 });
  const msg = await ant.messages.create({
    model: 'claude-on-azure',
    max_tokens: 50,
    messages: [{ role: 'user', content: 'hello from claude code' }],
  });
  assert.equal(msg.type, 'message');
  assert.equal(msg.model, 'claude-on-azure');
  assert.ok(msg.content.some((b) => b.type === 'text' && b.text.length > 0));
  let sent = az.requests.at(-1)!;
  assert.equal(sent.path, '/openai/deployments/gpt4o-prod/chat/completions');
  const body = JSON.parse(sent.body) as { messages: { role: string; content: unknown }[] };
  assert.equal(body.messages.at(-1)?.role, 'user', 'the request arrives in chat-completions form');

  const stream = ant.messages.stream({
    model: 'claude-on-azure',
    max_tokens: 50,
    messages: [{ role: 'user', content: 'stream from claude code' }],
  });
  const final = await stream.finalMessage();
  assert.ok(final.content.some((b) => b.type === 'text' && b.text.length > 0));
  assert.equal(final.stop_reason, 'end_turn');
  sent = az.requests.at(-1)!;
  assert.equal(sent.path, '/openai/deployments/gpt4o-prod/chat/completions');
  assert.equal((JSON.parse(sent.body) as { stream?: boolean }).stream, true);
});

test('a token inside its last five minutes is refreshed before it expires, while it still serves', async () => {
  const grants = () => az.tokenRequests.filter((t) => t.clientId === 'short-lived');
  const ask = (content: string) =>
    oai().chat.completions.create({ model: 'gpt-short', messages: [{ role: 'user', content }] });
  await ask('first');
  assert.equal(grants().length, 1, 'the first request waits for a token');
  const first = grants()[0].token;
  assert.equal(az.requests.at(-1)!.token, first);
  // The token expires in two minutes: the next request still carries it, and starts a refresh.
  await ask('second');
  assert.equal(az.requests.at(-1)!.token, first, 'the old token serves while the refresh runs');
  await waitUntil(() => grants().length === 2 && grants()[1].token !== null, 'the refreshed token');
  await ask('third');
  assert.equal(az.requests.at(-1)!.token, grants()[1].token, 'the refreshed token is used');
  assert.notEqual(grants()[1].token, first);
});

test('no credential reaches the caller: an upstream error echoing the api-key or the Bearer token is masked', async () => {
  az.echoCredentialsOnce();
  const keyed = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-dated', messages: [{ role: 'user', content: 'x' }] }),
  });
  const keyedText = await keyed.text();
  assert.equal(keyed.status, 400);
  assert.match(keyedText, /Rejected the request/);
  assert.ok(!keyedText.includes(API_KEY), keyedText);

  az.echoCredentialsOnce();
  const bearer = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-v1', messages: [{ role: 'user', content: 'x' }] }),
  });
  const bearerText = await bearer.text();
  assert.equal(bearer.status, 400);
  const token = az.requests.at(-1)!.token!;
  assert.ok(token.length > 12);
  assert.ok(!bearerText.includes(token), bearerText);
  for (const r of az.requests)
    assert.ok(!r.body.includes(CLIENT_SECRET) && !JSON.stringify(r.headers).includes(CLIENT_SECRET));
});

test('Entra ID refusing the credentials sets the deployment aside: another deployment answers', async () => {
  const reply = await oai().chat.completions.create({
    model: 'gpt-failover',
    messages: [{ role: 'user', content: 'who answers?' }],
  });
  assert.ok((reply.choices[0].message.content ?? '').length > 0);
  const refused = az.tokenRequests.filter((t) => t.clientId === 'refused-app');
  assert.ok(refused.length >= 1);
  assert.ok(refused.every((t) => t.token === null));
  const sent = az.requests.at(-1)!;
  assert.equal(sent.auth, 'api-key', 'the keyed deployment answered');
  assert.ok(!az.requests.some((r) => r.auth === 'none'), 'nothing went upstream without a credential');
});

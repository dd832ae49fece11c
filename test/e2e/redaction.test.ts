// The redaction stage end to end: a card number, a key and an e-mail address in a prompt never reach
// the upstream (pass-through, translated, streamed); in a reply, split across stream chunks too, they
// reach the caller masked; `action: refuse` is a 400 in the caller's dialect naming the rule, never
// the text; the usage row and modelgate_redactions_total count what was masked.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { startFixture, call, CROSS_DIALECT_MODELS, type Fixture } from './fixture.ts';
import { waitUntil } from '../helpers/gateway-process.ts';
import { splitIntoChunks } from '../helpers/mock-reply.ts';

const CARD = '4111 1111 1111 1111';
const KEY = 'sk-proj-AbCdEf0123456789abcdefGHIJklmn';
const EMAIL = 'jane.doe@example.com';
const SECRETS = [CARD, '4111', KEY, 'sk-proj', EMAIL, 'jane.doe'];
const PROMPT = `My card is ${CARD}, my key ${KEY} and my mail ${EMAIL}. Summarise.`;
const MASKED_PROMPT =
  'My card is [REDACTED:card], my key [REDACTED:secret_key] and my mail [REDACTED:email]. Summarise.';
const REPLY = `Noted: card ${CARD}, key ${KEY}, mail ${EMAIL}, done.`;
const MASKED_REPLY = 'Noted: card [REDACTED:card], key [REDACTED:secret_key], mail [REDACTED:email], done.';
/** Streamed replies come in this many deltas: each secret lies across two of them. */
const CHUNKS = 12;

let fx: Fixture;
let openai: OpenAI;
let ant: Anthropic;
let allKey: string;

before(async () => {
  fx = await startFixture({
    extraProviders: (url) =>
      `  - { name: gem, kind: gemini, base_url: "${url}", api_key: "AIzaSyUpstreamGeminiKey0123456789abcdef" }`,
    extraModels: `${CROSS_DIALECT_MODELS}
  - { name: flash, deployments: [ { provider: gem, model: gemini-2.5-flash } ] }
  - { name: embed-up, deployments: [ { provider: up, model: text-embedding-3-small } ] }
  - name: gpt-refuse
    deployments: [ { provider: up, model: upstream-gpt } ]
    redact: { action: refuse, patterns: [ { name: project_code, regex: "PRJ-\\\\d{4}" } ] }
  - name: claude-refuse
    deployments: [ { provider: upa, model: claude-upstream-1 } ]
    redact: { action: refuse }
  - name: gpt-plain
    deployments: [ { provider: up, model: upstream-gpt } ]
    redact: { detectors: [] }`,
    extraConfig: `redact:
  detectors: [email, phone, card, iban, secret_key]
  replies: true`,
  });
  openai = new OpenAI({ baseURL: `${fx.gw.url}/v1`, apiKey: fx.key, maxRetries: 0 });
  ant = new Anthropic({ baseURL: fx.gw.url, authToken: fx.key, apiKey: null, maxRetries: 0 });
  allKey = (await fx.gw.createKey({ name: 'all', flags: ['--models', '*'] })).key;
  fx.up.configure({ replyText: REPLY, chunkCount: CHUNKS });
  // The test's premise: every secret of the reply is cut by a chunk boundary.
  const pieces = splitIntoChunks(REPLY, CHUNKS);
  for (const secret of [CARD, KEY, EMAIL]) assert.ok(!pieces.some((p) => p.includes(secret)), `${secret} is split`);
});
after(async () => fx.close());

function assertClean(text: string, what: string): void {
  for (const secret of SECRETS) assert.ok(!text.includes(secret), `${what} holds ${secret}`);
}

function lastUpstreamBody(): string {
  return fx.up.requests.at(-1)!.body.toString('utf8');
}

test('pass-through chat: the prompt reaches the upstream masked, and the reply reaches the caller masked', async () => {
  const res = await openai.chat.completions.create({
    model: 'gpt-up',
    messages: [
      { role: 'system', content: `Escalate to ${EMAIL}.` },
      { role: 'user', content: [{ type: 'text', text: PROMPT }] },
    ],
  });
  const sent = lastUpstreamBody();
  assertClean(sent, 'the upstream request');
  const json = JSON.parse(sent) as { model: string; messages: { content: unknown }[] };
  assert.equal(json.model, 'upstream-gpt');
  assert.equal(json.messages[0].content, 'Escalate to [REDACTED:email].');
  assert.deepEqual(json.messages[1].content, [{ type: 'text', text: MASKED_PROMPT }]);
  assert.equal(res.choices[0].message.content, MASKED_REPLY);
});

test('translated: an Anthropic SDK caller to an OpenAI upstream sends the prompt masked', async () => {
  const res = await ant.messages.create({
    model: 'claude-via-openai',
    max_tokens: 100,
    system: `Owner: ${EMAIL}`,
    messages: [{ role: 'user', content: PROMPT }],
  });
  const seen = fx.up.requests.at(-1)!;
  assert.equal(seen.path, '/v1/chat/completions');
  assertClean(seen.body.toString('utf8'), 'the upstream request');
  assert.ok(seen.body.toString('utf8').includes('[REDACTED:card]'));
  const block = res.content[0];
  assert.equal(block.type === 'text' ? block.text : '', MASKED_REPLY);
});

test('streamed pass-through chat: prompt masked upstream; secrets split across chunks reach the caller masked', async () => {
  const stream = await openai.chat.completions.create({
    model: 'gpt-up',
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: 'user', content: PROMPT }],
  });
  let text = '';
  let finish: string | null = null;
  let usage = false;
  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta?.content ?? '';
    assertClean(delta, 'a streamed delta');
    text += delta;
    finish = chunk.choices[0]?.finish_reason ?? finish;
    if (chunk.usage) usage = true;
  }
  assertClean(lastUpstreamBody(), 'the upstream request');
  assert.equal(text, MASKED_REPLY);
  assert.equal(finish, 'stop');
  assert.ok(usage, 'the usage chunk still ends the stream');
});

test('streamed Anthropic pass-through and translated streams mask the reply across chunks', async () => {
  for (const model of ['claude-up', 'claude-via-openai']) {
    const stream = ant.messages.stream({ model, max_tokens: 100, messages: [{ role: 'user', content: PROMPT }] });
    let text = '';
    for await (const event of stream)
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') {
        assertClean(event.delta.text, `${model}: a streamed delta`);
        text += event.delta.text;
      }
    const final = await stream.finalMessage();
    assertClean(lastUpstreamBody(), `${model}: the upstream request`);
    assert.equal(text, MASKED_REPLY, model);
    assert.equal(final.stop_reason, 'end_turn');
  }
});

test('a streamed Responses API reply is masked in its deltas and in its done events', async () => {
  const r = await call(fx, {
    path: '/v1/responses',
    body: { model: 'gpt-up', stream: true, input: PROMPT },
  });
  assert.equal(r.status, 200);
  assertClean(r.text, 'the Responses stream');
  assertClean(lastUpstreamBody(), 'the upstream request');
  assert.ok(r.text.includes('[REDACTED:card]'));
});

test('Gemini pass-through: prompt masked upstream; the reply masked, whole and streamed', async () => {
  const body = { contents: [{ role: 'user', parts: [{ text: PROMPT }] }] };
  const headers = { 'x-goog-api-key': allKey };
  const whole = await call(fx, { path: '/v1beta/models/flash:generateContent', body, headers, auth: null });
  assert.equal(whole.status, 200, whole.text);
  assertClean(lastUpstreamBody(), 'the upstream request');
  const reply = whole.json as { candidates: { content: { parts: { text: string }[] } }[] };
  assert.equal(reply.candidates[0].content.parts.map((p) => p.text).join(''), MASKED_REPLY);

  const streamed = await call(fx, {
    path: '/v1beta/models/flash:streamGenerateContent?alt=sse',
    body,
    headers,
    auth: null,
  });
  assert.equal(streamed.status, 200, streamed.text);
  assertClean(lastUpstreamBody(), 'the upstream request');
  assertClean(streamed.text, 'the Gemini stream');
  let text = '';
  for (const line of streamed.text.split(/\r?\n/))
    if (line.startsWith('data: ')) {
      const chunk = JSON.parse(line.slice(6)) as { candidates?: { content?: { parts?: { text?: string }[] } }[] };
      for (const part of chunk.candidates?.[0]?.content?.parts ?? []) text += part.text ?? '';
    }
  assert.equal(text, MASKED_REPLY);
});

test('embeddings: the input reaches the upstream masked', async () => {
  const r = await call(fx, {
    path: '/v1/embeddings',
    auth: allKey,
    body: { model: 'embed-up', input: [PROMPT, `mail ${EMAIL}`] },
  });
  assert.equal(r.status, 200, r.text);
  const seen = fx.up.requests.at(-1)!;
  assert.equal(seen.path, '/v1/embeddings');
  assertClean(seen.body.toString('utf8'), 'the upstream request');
  assert.deepEqual((seen.json as { input: string[] }).input, [MASKED_PROMPT, 'mail [REDACTED:email]']);
});

test("a token count sent on to the upstream's count endpoint carries the masked prompt", async () => {
  const counted = await ant.messages.countTokens({ model: 'claude-up', messages: [{ role: 'user', content: PROMPT }] });
  assert.ok(counted.input_tokens > 0);
  const seen = fx.up.requests.at(-1)!;
  assert.equal(seen.path, '/v1/messages/count_tokens');
  assertClean(seen.body.toString('utf8'), 'the count request');
});

test('action refuse: a 400 in the caller’s dialect that names the rule, not the text; nothing goes upstream', async () => {
  const before = fx.up.requests.length;
  const r = await call(fx, {
    path: '/v1/chat/completions',
    auth: allKey,
    body: { model: 'gpt-refuse', messages: [{ role: 'user', content: `Charge ${CARD} for PRJ-1234` }] },
  });
  assert.equal(r.status, 400);
  const error = (r.json as { error: { message: string; type: string; code: string } }).error;
  assert.equal(error.type, 'invalid_request_error');
  assert.equal(error.code, 'content_refused');
  assert.match(error.message, /`card`/);
  assert.match(error.message, /`project_code`/);
  assertClean(error.message, 'the refusal');
  assert.ok(!error.message.includes('PRJ-1234'));
  assert.equal(fx.up.requests.length, before, 'the upstream was not called');

  // An Anthropic SDK caller gets Anthropic's error shape, naming the rule.
  await assert.rejects(
    ant.messages.create({
      model: 'claude-refuse',
      max_tokens: 10,
      messages: [{ role: 'user', content: `Mail ${EMAIL}` }],
    }),
    (err: unknown) => {
      assert.ok(err instanceof Anthropic.BadRequestError);
      const body = err.error as { type: string; error: { type: string; message: string } };
      assert.equal(body.type, 'error');
      assert.equal(body.error.type, 'invalid_request_error');
      assert.match(body.error.message, /`email`/);
      assertClean(body.error.message, 'the refusal');
      return true;
    },
  );
  assert.equal(fx.up.requests.length, before, 'the upstream was not called');
});

test("a model's `detectors: []` leaves its traffic alone, byte for byte", async () => {
  const raw = `{"model":"gpt-plain","messages":[{"role":"user","content":"${PROMPT}"}]}`;
  const r = await call(fx, { path: '/v1/chat/completions', auth: allKey, body: raw });
  assert.equal(r.status, 200);
  assert.equal(lastUpstreamBody(), raw.replace('"gpt-plain"', '"upstream-gpt"'));
  assert.ok(r.text.includes(CARD));
});

test('the usage row and modelgate_redactions_total count what was masked', async () => {
  const r = await call(fx, {
    path: '/v1/chat/completions',
    body: { model: 'gpt-up', messages: [{ role: 'user', content: PROMPT }] },
  });
  assert.equal(r.status, 200);
  const requestId = r.headers.get('x-request-id')!;
  let row: { redactions: number } | undefined;
  await waitUntil(() => {
    const db = new DatabaseSync(fx.gw.dbPath);
    try {
      row = db.prepare('SELECT redactions FROM usage WHERE request_id = ?').get(requestId) as typeof row;
    } finally {
      db.close();
    }
    return row !== undefined;
  }, 'the usage row');
  // Three in the prompt, three in the reply.
  assert.equal(row!.redactions, 6);
  const metrics = await (await fetch(`${fx.gw.url}/metrics`)).text();
  for (const rule of ['card', 'email', 'secret_key', 'project_code']) {
    const line = metrics.split('\n').find((l) => l.startsWith(`modelgate_redactions_total{rule="${rule}"}`));
    assert.ok(line !== undefined && Number(line.split(' ').at(-1)) > 0, `a count for ${rule}`);
  }
});

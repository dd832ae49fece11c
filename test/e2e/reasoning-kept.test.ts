// Reasoning kept byte-exact across translated turns, end to end: real gateways, a mock upstream that signs
// its reasoning and refuses a turn whose signatures are not its own (mock-signing-upstream.ts).
// A chat and a Responses caller on an Anthropic upstream do a two-turn tool round trip with thinking and
// the second upstream request carries the original signature and text byte for byte; the same history
// sent to a Gemini model carries none of it. Chat and Messages callers on a Gemini upstream do the round
// trip across two gateways sharing PostgreSQL: the second gateway finds the call's thought signature the
// first one kept, and the thought's own signature comes back through the caller's history.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startGateway, configYaml, waitUntil, type GatewayProcess } from '../helpers/gateway-process.ts';
import { startSigningUpstream, THINKING_TEXT, type SigningUpstream } from '../helpers/mock-signing-upstream.ts';
import { dropSchema, freshSchema, pgOrSkip } from '../helpers/postgres.ts';
import { parseSseText, validateChatCompletion, validateResponse } from '../helpers/schemas.ts';

type Json = Record<string, unknown>;

const cleanups: Array<() => Promise<unknown>> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
];

function models(up: SigningUpstream): string {
  return configYaml({
    providers: `  - { name: ant, kind: anthropic, base_url: "${up.url}", api_key: "sk-ant-upstream-0123456789abcdef" }
  - { name: gem, kind: gemini, base_url: "${up.url}", api_key: "AIzaSyUpstreamGeminiKey0123456789abcdef" }`,
    models: `  - { name: claude-thinking, deployments: [ { provider: ant, model: claude-sonnet-4-5 } ] }
  - { name: gemini-thinking, deployments: [ { provider: gem, model: gemini-3-pro } ] }
  - { name: claude-on-gemini, deployments: [ { provider: gem, model: gemini-3-pro } ] }`,
  }).replace('database: "{{DB}}"', '$DATABASE');
}

async function post(url: string, key: string, body: Json, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

/** Waits until a key made through one gateway is served by another (its key cache reads the shared store). */
async function knownTo(gw: GatewayProcess, key: string): Promise<void> {
  await waitUntil(async () => {
    const r = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    await r.arrayBuffer();
    return r.status === 200;
  }, 'the second gateway to accept the key');
}

/** A streamed chat completion put back together as a client that keeps thinking_blocks does. */
async function streamedChatMessage(res: Response): Promise<Json> {
  assert.equal(res.status, 200, await res.clone().text());
  const message: Json = { role: 'assistant', content: null };
  const calls: Json[] = [];
  for (const ev of parseSseText(await res.text())) {
    if (ev.data === '[DONE]') continue;
    const delta = ((JSON.parse(ev.data) as { choices: Json[] }).choices[0]?.delta ?? {}) as Json;
    if (typeof delta.reasoning_content === 'string')
      message.reasoning_content = String(message.reasoning_content ?? '') + delta.reasoning_content;
    if (Array.isArray(delta.thinking_blocks)) message.thinking_blocks = delta.thinking_blocks;
    for (const tc of (delta.tool_calls ?? []) as Array<{ index: number; id?: string; function: Json }>) {
      calls[tc.index] ??= { id: tc.id, type: 'function', function: { name: tc.function.name, arguments: '' } };
      (calls[tc.index].function as Json).arguments += String(tc.function.arguments ?? '');
    }
  }
  message.tool_calls = calls;
  return message;
}

test('Anthropic upstream: chat and Responses callers keep the thinking signature across a tool round trip; a Gemini model never sees it', async () => {
  const up = await startSigningUpstream();
  cleanups.push(() => up.close());
  const gw: GatewayProcess = await startGateway({
    configYaml: models(up).replace('$DATABASE', 'database: "{{DB}}"'),
  });
  cleanups.push(() => gw.cleanup());
  const { key } = await gw.createKey({ name: 'thinking', flags: ['--models', '*'] });
  const question = { role: 'user', content: 'Weather in Paris?' };

  // Chat, the first turn streamed: the thinking block comes whole in thinking_blocks.
  const assistant = await streamedChatMessage(
    await post(`${gw.url}/v1/chat/completions`, key, {
      model: 'claude-thinking',
      stream: true,
      reasoning_effort: 'high',
      tools: TOOLS,
      messages: [question],
    }),
  );
  const [block] = assistant.thinking_blocks as Array<{ thinking: string; signature: string }>;
  assert.equal(block.thinking, THINKING_TEXT);
  assert.equal(up.issued.get(block.signature), THINKING_TEXT, 'the signature the upstream issued');
  const callId = String((assistant.tool_calls as Json[])[0].id);
  const second = await post(`${gw.url}/v1/chat/completions`, key, {
    model: 'claude-thinking',
    reasoning_effort: 'high',
    tools: TOOLS,
    messages: [question, assistant, { role: 'tool', tool_call_id: callId, content: 'sunny' }],
  });
  const done = (await second.json()) as Json;
  assert.equal(second.status, 200, JSON.stringify(done));
  validateChatCompletion(done);
  const sent = up.requests.at(-1)!;
  assert.equal(sent.status, 200, 'the upstream verified the signature');
  const raw = sent.body.toString('utf8');
  assert.ok(raw.includes(`"thinking":${JSON.stringify(THINKING_TEXT)},"signature":"${block.signature}"`), raw);

  // The same history to a Gemini model: Anthropic's thinking is left out, said in the header.
  const elsewhere = await post(`${gw.url}/v1/chat/completions`, key, {
    model: 'gemini-thinking',
    tools: TOOLS,
    messages: [question, assistant, { role: 'tool', tool_call_id: callId, content: 'sunny' }],
  });
  assert.equal(elsewhere.status, 200, await elsewhere.clone().text());
  assert.match(elsewhere.headers.get('x-modelgate-adjusted') ?? '', /reasoning from another model left out/);
  const toGemini = up.requests.at(-1)!.body.toString('utf8');
  assert.ok(!toGemini.includes(block.signature) && !toGemini.includes('mgw1.'), toGemini);

  // Responses as Codex sends it (store: false, encrypted reasoning included, its output items sent back).
  const codex = {
    model: 'claude-thinking',
    store: false,
    include: ['reasoning.encrypted_content'],
    reasoning: { effort: 'high', summary: 'auto' },
    tools: [{ type: 'function', ...TOOLS[0].function }],
  };
  const first = await post(`${gw.url}/v1/responses`, key, { ...codex, input: 'Weather in Paris?' });
  const res = (await first.json()) as { output: Json[] };
  assert.equal(first.status, 200, JSON.stringify(res));
  validateResponse(res);
  const reasoning = res.output.find((o) => o.type === 'reasoning')!;
  assert.match(String(reasoning.encrypted_content), /^mgw1\.anthropic\./);
  const call = res.output.find((o) => o.type === 'function_call')!;
  const issuedBefore = new Set(up.issued.keys());
  const next = await post(`${gw.url}/v1/responses`, key, {
    ...codex,
    input: [
      { role: 'user', content: 'Weather in Paris?' },
      ...res.output,
      { type: 'function_call_output', call_id: call.call_id, output: 'sunny' },
    ],
  });
  assert.equal(next.status, 200, await next.text());
  const back = up.requests.at(-1)!;
  assert.equal(back.status, 200, 'the upstream verified the signature');
  const thinking = ((back.json.messages as Json[])[1].content as Json[])[0];
  assert.equal(thinking.type, 'thinking');
  assert.ok(issuedBefore.has(String(thinking.signature)));
  assert.ok(back.body.toString('utf8').includes(`"signature":"${String(thinking.signature)}"`));
});

test('a Codex-shaped session of ten streamed turns on an Anthropic upstream: every thinking signature goes back byte-identical, every turn', async () => {
  const up = await startSigningUpstream();
  cleanups.push(() => up.close());
  const gw = await startGateway({ configYaml: models(up).replace('$DATABASE', 'database: "{{DB}}"') });
  cleanups.push(() => gw.cleanup());
  const { key } = await gw.createKey({ name: 'codex', flags: ['--models', '*'] });
  const TURNS = 10;
  const input: unknown[] = [{ role: 'user', content: 'Check the weather ten times.' }];
  for (let turn = 1; turn <= TURNS; turn++) {
    const res = await post(`${gw.url}/v1/responses`, key, {
      model: 'claude-thinking',
      stream: true,
      store: false,
      include: ['reasoning.encrypted_content'],
      reasoning: { effort: 'high', summary: 'auto' },
      tools: [{ type: 'function', ...TOOLS[0].function }],
      user: `tool-turns:${TURNS - 1}`,
      input,
    });
    const text = await res.text();
    assert.equal(res.status, 200, text);
    const sent = up.requests.at(-1)!;
    assert.equal(sent.status, 200, `turn ${turn}: the upstream verified every signature`);
    // Every thinking block the upstream issued so far comes back, signature and text to the byte.
    const raw = sent.body.toString('utf8');
    const thinking = (
      (sent.json.messages as Json[]).flatMap((m) => (Array.isArray(m.content) ? m.content : [])) as Json[]
    ).filter((b) => b.type === 'thinking');
    assert.equal(thinking.length, turn - 1, `turn ${turn}: every earlier thinking block`);
    for (const b of thinking) {
      assert.equal(up.issued.get(String(b.signature)), THINKING_TEXT);
      assert.ok(raw.includes(`"thinking":${JSON.stringify(THINKING_TEXT)},"signature":"${String(b.signature)}"`));
    }
    const completed = parseSseText(text)
      .map((e) => JSON.parse(e.data) as Json)
      .find((e) => e.type === 'response.completed')!;
    const output = (completed.response as { output: Json[] }).output;
    input.push(...output);
    const call = output.find((o) => o.type === 'function_call');
    if (turn < TURNS) {
      assert.ok(call !== undefined, `turn ${turn} calls the tool`);
      input.push({ type: 'function_call_output', call_id: call.call_id, output: 'sunny' });
    } else assert.equal(call, undefined, 'the last turn answers');
  }
});

test('Gemini upstream across two gateways sharing PostgreSQL: the call signature one kept, the other sends back', async (t) => {
  const sql = await pgOrSkip(t);
  if (sql === null) return;
  const { schema, url: database } = freshSchema('mg_reasoning');
  cleanups.push(async () => {
    await dropSchema(sql, schema);
    await sql.end();
  });
  const up = await startSigningUpstream();
  cleanups.push(() => up.close());
  const config = models(up).replace('$DATABASE', `database: "${database}"`);
  const a = await startGateway({ configYaml: config });
  cleanups.push(() => a.cleanup());
  const b = await startGateway({ configYaml: config });
  cleanups.push(() => b.cleanup());
  const { key } = await a.createKey({ name: 'gemini-agent', flags: ['--models', '*'] });
  await knownTo(b, key);
  const question = { role: 'user', content: 'Weather in Paris?' };

  // Chat: the first turn streamed through A, the tool's result through B.
  const assistant = await streamedChatMessage(
    await post(`${a.url}/v1/chat/completions`, key, {
      model: 'gemini-thinking',
      stream: true,
      tools: TOOLS,
      messages: [question],
    }),
  );
  const [thought] = assistant.thinking_blocks as Array<{ signature: string }>;
  assert.match(thought.signature, /^mgw1\.gemini\./, "the thought's signature rides in the gateway's token");
  const callId = String((assistant.tool_calls as Json[])[0].id);
  const second = await post(`${b.url}/v1/chat/completions`, key, {
    model: 'gemini-thinking',
    tools: TOOLS,
    messages: [question, assistant, { role: 'tool', tool_call_id: callId, content: 'sunny' }],
  });
  assert.equal(second.status, 200, await second.clone().text());
  const sent = up.requests.at(-1)!;
  assert.equal(sent.status, 200, 'the upstream found its own signature on the call');
  const model = (sent.json.contents as Json[]).find((c) => c.role === 'model')!;
  const [thoughtPart, callPart] = model.parts as Json[];
  assert.equal(thoughtPart.text, THINKING_TEXT);
  assert.equal(up.issued.get(String(thoughtPart.thoughtSignature)), THINKING_TEXT, "the thought's own signature");
  assert.equal(up.issued.get(String(callPart.thoughtSignature)), '', "the call's own signature, kept by A");
  const raw = sent.body.toString('utf8');
  assert.ok(raw.includes(`"thoughtSignature":"${String(callPart.thoughtSignature)}"`));

  // Messages (as Claude Code keeps its history: the content blocks as they came), A then B.
  const tools = [{ name: 'get_weather', input_schema: TOOLS[0].function.parameters }];
  const headers = { 'anthropic-version': '2023-06-01' };
  const first = await post(
    `${a.url}/v1/messages`,
    key,
    { model: 'claude-on-gemini', max_tokens: 500, tools, messages: [{ role: 'user', content: 'Weather?' }] },
    headers,
  );
  const msg = (await first.json()) as { content: Json[] };
  assert.equal(first.status, 200, JSON.stringify(msg));
  const use = msg.content.find((c) => c.type === 'tool_use')!;
  const next = await post(
    `${b.url}/v1/messages`,
    key,
    {
      model: 'claude-on-gemini',
      max_tokens: 500,
      tools,
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: msg.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'sunny' }] },
      ],
    },
    headers,
  );
  assert.equal(next.status, 200, await next.clone().text());
  assert.equal(up.requests.at(-1)!.status, 200, 'the upstream found its own signature on the call');
  const answer = (await next.json()) as { content: Json[] };

  // The session goes on with a Claude model (passed through to Anthropic): Gemini's thought, carried in
  // the thinking block's signature, is refused there, so the gateway sends the body once more without it.
  const before = up.requests.length;
  const switched = await post(
    `${b.url}/v1/messages`,
    key,
    {
      model: 'claude-thinking',
      max_tokens: 500,
      tools,
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: msg.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'sunny' }] },
        { role: 'assistant', content: answer.content },
        { role: 'user', content: 'And tomorrow?' },
      ],
    },
    headers,
  );
  assert.equal(switched.status, 200, await switched.clone().text());
  assert.match(switched.headers.get('x-modelgate-adjusted') ?? '', /1 reasoning block\(s\) another provider wrote/);
  const [refused, resent] = up.requests.slice(before);
  assert.equal(up.requests.length - before, 2);
  assert.equal(refused.status, 400, 'Anthropic refuses a signature it did not write');
  assert.ok(refused.body.toString('utf8').includes('"signature":"mgw1.gemini.'));
  assert.equal(resent.status, 200);
  assert.ok(!resent.body.toString('utf8').includes('mgw1.'), 'sent again without the token');
  assert.equal((resent.json.messages as Json[]).length, 5, 'nothing else of the history is touched');

  // Another key sending the same history gets Google's placeholder, never this key's signature.
  const { key: other } = await a.createKey({ name: 'stranger', flags: ['--models', '*'] });
  await knownTo(b, other);
  const stranger = await post(`${b.url}/v1/chat/completions`, other, {
    model: 'gemini-thinking',
    tools: TOOLS,
    messages: [question, assistant, { role: 'tool', tool_call_id: callId, content: 'sunny' }],
  });
  assert.equal(stranger.status, 200, await stranger.clone().text());
  assert.ok(
    up.requests.at(-1)!.body.toString('utf8').includes('"thoughtSignature":"skip_thought_signature_validator"'),
  );
});

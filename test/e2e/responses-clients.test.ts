// Issue 36, "how we will know": the newest clients that speak only the Responses API, through the gateway
// to every kind of upstream: one that serves /v1/responses itself (pass-through), one with chat
// completions only, and a Claude model on an Anthropic-style upstream (both translated by the hub).
// Each checks what the upstream saw, so a route that silently fell back would fail.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import OpenAI from 'openai';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, streamText, tool, isStepCount } from 'ai';
import { Agent, run, tool as agentTool, setDefaultOpenAIClient, setTracingDisabled } from '@openai/agents';
import { z } from 'zod';
import { startFixture, call, UPSTREAM_SECRET, type Fixture } from './fixture.ts';
import { parseSseText, validateResponse, validateResponseStreamEvent } from '../helpers/schemas.ts';
import type { RecordedRequest } from '../helpers/mock-upstream-types.ts';

const ROUTES = [
  { model: 'gpt-native', path: '/v1/responses', translated: false },
  { model: 'gpt-chat', path: '/v1/chat/completions', translated: true },
  { model: 'claude-up', path: '/v1/messages', translated: true },
] as const;

const CODEX = resolve(
  import.meta.dirname,
  '../../node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex',
);

let fx: Fixture;
let client: OpenAI;
before(async () => {
  fx = await startFixture({
    extraProviders: (
      upUrl,
    ) => `  - { name: upr, kind: openai, apis: [chat, responses, embeddings], base_url: "${upUrl}/v1", api_key: "${UPSTREAM_SECRET}" }
  - { name: upo, kind: openai, apis: [responses], base_url: "${upUrl}/v1", api_key: "${UPSTREAM_SECRET}" }`,
    extraModels: `  - { name: gpt-native, price: { input: 1, output: 2 }, deployments: [ { provider: upr, model: upstream-native } ] }
  - { name: gpt-chat, price: { input: 1, output: 2 }, deployments: [ { provider: up, model: upstream-chat } ] }
  - { name: gpt-responses-only, price: { input: 1, output: 2 }, deployments: [ { provider: upo, model: upstream-responses } ] }`,
  });
  fx.key = (
    await fx.gw.createKey({ name: 'clients', flags: ['--models', 'gpt-native,gpt-chat,claude-up,gpt-responses-only'] })
  ).key;
  client = new OpenAI({ baseURL: `${fx.gw.url}/v1`, apiKey: fx.key, maxRetries: 0 });
});
after(async () => fx?.close());

/** The upstream requests made since `from`. */
function since(from: number): RecordedRequest[] {
  return fx.up.requests.slice(from);
}

const WEATHER = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Weather in a city',
  strict: false,
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

for (const route of ROUTES) {
  test(`${route.model}: openai responses.create text, then a function tool round trip with function_call_output`, async () => {
    const from = fx.up.requests.length;
    const res = await client.responses.create({ model: route.model, input: 'Say hello' });
    validateResponse(res);
    assert.equal(res.model, route.model);
    assert.match(res.output_text, /mock upstream/);
    const first = await client.responses.create({ model: route.model, input: 'Weather in Paris?', tools: [WEATHER] });
    validateResponse(first);
    const call0 = first.output.find((o) => o.type === 'function_call');
    assert.ok(call0 && call0.type === 'function_call');
    assert.equal(call0.name, 'get_weather');
    assert.deepEqual(JSON.parse(call0.arguments), { city: 'mock' });
    const second = await client.responses.create({
      model: route.model,
      tools: [WEATHER],
      input: [
        { role: 'user', content: 'Weather in Paris?' },
        call0,
        { type: 'function_call_output', call_id: call0.call_id, output: 'Sunny, 21 C' },
      ],
    });
    validateResponse(second);
    assert.match(second.output_text, /mock upstream/);
    const seen = since(from);
    assert.ok(
      seen.length === 3 && seen.every((r) => r.path === route.path),
      `the upstream saw ${seen.map((r) => r.path).join(', ')}`,
    );
    assert.match(seen[2].body.toString('utf8'), /Sunny, 21 C/, 'the tool output reached the upstream');
  });

  test(`${route.model}: text.format json_schema, responses.stream events, previous_response_id`, async () => {
    const from = fx.up.requests.length;
    fx.up.configure({ replyText: '{"answer":"yes"}' });
    try {
      const res = await client.responses.create({
        model: route.model,
        input: 'Answer in JSON',
        text: {
          format: {
            type: 'json_schema',
            name: 'answer',
            schema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] },
          },
        },
      });
      // Anthropic-style upstreams answer JSON through a forced tool, whose input the mock fills from the schema.
      assert.deepEqual(JSON.parse(res.output_text), { answer: route.model === 'claude-up' ? 'mock' : 'yes' });
    } finally {
      fx.up.configure({ replyText: undefined });
    }
    const stream = client.responses.stream({ model: route.model, input: 'Stream it' });
    let seq = -1;
    for await (const ev of stream) {
      validateResponseStreamEvent(ev);
      assert.ok(ev.sequence_number > seq);
      seq = ev.sequence_number;
    }
    const final = await stream.finalResponse();
    assert.equal(final.status, 'completed');
    assert.match(final.output_text, /mock upstream/);
    const next = await client.responses.create({
      model: route.model,
      input: 'And again',
      previous_response_id: final.id,
    });
    assert.equal(next.status, 'completed');
    const last = since(from).at(-1)!;
    if (route.translated)
      assert.match(
        last.body.toString('utf8'),
        /Stream it[\s\S]*mock upstream[\s\S]*And again/,
        'the stored turn is put before the new input',
      );
    else assert.equal((last.json as { previous_response_id?: string }).previous_response_id, final.id);
    assert.ok(since(from).every((r) => r.path === route.path));
  });

  test(`${route.model}: Vercel AI SDK default provider, generateText and streamText with a tool`, async () => {
    const from = fx.up.requests.length;
    const openai = createOpenAI({ baseURL: `${fx.gw.url}/v1`, apiKey: fx.key });
    let calls = 0;
    const tools = {
      get_weather: tool({
        description: 'Weather in a city',
        inputSchema: z.object({ city: z.string() }),
        execute: async ({ city }) => {
          calls++;
          return `Sunny in ${city}`;
        },
      }),
    };
    const out = await generateText({
      model: openai(route.model),
      prompt: 'Weather in Paris?',
      tools,
      stopWhen: isStepCount(3),
    });
    assert.equal(calls, 1);
    assert.match(out.text, /mock upstream/);
    const streamed = streamText({
      model: openai(route.model),
      prompt: 'Weather in Rome?',
      tools,
      stopWhen: isStepCount(3),
    });
    let text = '';
    for await (const piece of streamed.textStream) text += piece;
    assert.equal(calls, 2);
    assert.match(text, /mock upstream/);
    const seen = since(from);
    assert.ok(
      seen.length === 4 && seen.every((r) => r.path === route.path),
      `the upstream saw ${seen.map((r) => r.path).join(', ')}`,
    );
  });

  test(`${route.model}: OpenAI Agents SDK, one agent with one tool`, async () => {
    const from = fx.up.requests.length;
    setTracingDisabled(true);
    setDefaultOpenAIClient(new OpenAI({ baseURL: `${fx.gw.url}/v1`, apiKey: fx.key, maxRetries: 0 }));
    let ran = 0;
    const weather = agentTool({
      name: 'get_weather',
      description: 'Weather in a city',
      parameters: z.object({ city: z.string() }),
      execute: async ({ city }) => {
        ran++;
        return `Sunny in ${city}`;
      },
    });
    const agent = new Agent({
      name: 'Forecaster',
      instructions: 'Answer with the weather.',
      model: route.model,
      tools: [weather],
    });
    const result = await run(agent, 'Weather in Oslo?');
    assert.equal(ran, 1);
    assert.match(String(result.finalOutput), /mock upstream/);
    assert.ok(since(from).every((r) => r.path === route.path));
  });

  test(`${route.model}: Codex CLI exec, a shell tool round trip`, { timeout: 120_000 }, async () => {
    const from = fx.up.requests.length;
    const home = mkdtempSync(join(tmpdir(), 'codex-home-'));
    const work = mkdtempSync(join(tmpdir(), 'codex-work-'));
    writeFileSync(
      join(home, 'config.toml'),
      `model = "${route.model}"
model_provider = "modelgate"

[model_providers.modelgate]
name = "modelgate"
base_url = "${fx.gw.url}/v1"
wire_api = "responses"
env_key = "MODELGATE_KEY"
`,
    );
    fx.up.configure({ toolArguments: { cmd: 'echo tool-ran-$((40+2))' } });
    try {
      const { code, stdout, stderr } = await runCodex(
        ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', '-C', work, 'Run a command'],
        // HOME too: Codex runs the command in a login shell, which reads the machine user's profile
        // otherwise (a profile that waits on a lock would hold the command past Codex's wait for it).
        { CODEX_HOME: home, HOME: home, MODELGATE_KEY: fx.key },
      );
      assert.equal(code, 0, stderr.slice(-2000));
      assert.match(stdout, /mock upstream/);
      const seen = since(from).filter((r) => r.path === route.path);
      assert.ok(seen.length >= 2);
      assert.ok(since(from).every((r) => r.path === route.path));
      // Codex ran the shell command the model asked for: its output is in the next request. (Codex's own
      // console shows the command but, since 0.171, not what it printed.)
      assert.match(seen.at(-1)!.body.toString('utf8'), /tool-ran-42/, 'the command output went back to the model');
    } finally {
      fx.up.configure({ toolArguments: undefined });
      rmSync(home, { recursive: true, force: true });
      rmSync(work, { recursive: true, force: true });
    }
  });
}

test('a chat completions caller reaches an upstream that serves only the Responses API', async () => {
  const from = fx.up.requests.length;
  const res = await client.chat.completions.create({
    model: 'gpt-responses-only',
    messages: [{ role: 'user', content: 'Hello' }],
  });
  assert.match(res.choices[0].message.content ?? '', /mock upstream/);
  assert.ok(res.usage && res.usage.total_tokens > 0);
  const tools = [{ type: 'function' as const, function: { name: WEATHER.name, parameters: WEATHER.parameters } }];
  const final = await client.chat.completions
    .stream({ model: 'gpt-responses-only', tools, messages: [{ role: 'user', content: 'Weather?' }] })
    .finalChatCompletion();
  const tc = final.choices[0].message.tool_calls?.[0];
  assert.ok(tc?.type === 'function' && tc.function.name === 'get_weather');
  assert.deepEqual(JSON.parse(tc.function.arguments), { city: 'mock' });
  const seen = since(from);
  assert.ok(seen.length === 2 && seen.every((r) => r.path === '/v1/responses'), seen.map((r) => r.path).join(', '));
  assert.equal((seen[0].json as { store: boolean }).store, false, 'the gateway asks the upstream to store nothing');
});

for (const model of ['gpt-chat', 'claude-up']) {
  test(`${model}: an upstream failing midway ends the stream with response.failed; the output so far is billed`, async () => {
    const { key } = await fx.gw.createKey({ name: `midway-${model}`, flags: ['--budget-usd', '1', '--models', model] });
    fx.up.enqueue({
      kind: 'stream-error',
      afterEvents: model === 'claude-up' ? 5 : 3,
      message: 'upstream broke midway',
    });
    const r = await call(fx, {
      path: '/v1/responses',
      auth: key,
      body: { model, input: 'Tell me a long story', stream: true },
    });
    assert.equal(r.status, 200);
    const events = parseSseText(r.text);
    for (const e of events) validateResponseStreamEvent(JSON.parse(e.data));
    const last = JSON.parse(events.at(-1)!.data) as {
      type: string;
      response: { status: string; error: { message: string } };
    };
    assert.equal(last.type, 'response.failed');
    assert.match(last.response.error.message, /upstream broke midway/);
    assert.ok(
      events.some((e) => e.event === 'response.output_text.delta'),
      'text came before the failure',
    );
    let used = 0;
    for (let i = 0; i < 50 && used === 0; i++) {
      used = ((await call(fx, { path: '/api/usage/token', auth: key })).json as { data: { tokens_used: number } }).data
        .tokens_used;
      if (used === 0) await new Promise((res) => setTimeout(res, 20));
    }
    assert.ok(used > 0, 'the usage so far is billed');
  });
}

for (const model of ['gpt-chat', 'claude-up']) {
  test(`${model}: a custom (free-form) tool such as Codex's apply_patch goes as a one-string function and comes back free-form`, async () => {
    const from = fx.up.requests.length;
    const patch = '*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch';
    fx.up.configure({ toolArguments: { input: patch } });
    try {
      const tools = [{ type: 'custom' as const, name: 'apply_patch', description: 'Edit files' }];
      const res = await client.responses.create({ model, input: 'Add a file', tools });
      validateResponse(res);
      const item = res.output.find((o) => o.type === 'custom_tool_call');
      assert.ok(item && item.type === 'custom_tool_call');
      assert.equal(item.input, patch);
      const r = await call(fx, { path: '/v1/responses', body: { model, input: 'Add a file', tools, stream: true } });
      const events = parseSseText(r.text);
      for (const e of events) validateResponseStreamEvent(JSON.parse(e.data));
      const done = events.find((e) => e.event === 'response.custom_tool_call_input.done');
      assert.equal((JSON.parse(done!.data) as { input: string }).input, patch);
      const sent = since(from)[0].body.toString('utf8');
      assert.match(
        sent,
        model === 'gpt-chat'
          ? /"name":"apply_patch","parameters":\{"type":"object","properties":\{"input":\{"type":"string"/
          : /"name":"apply_patch","input_schema":\{"type":"object","properties":\{"input":\{"type":"string"/,
      );
      // The call goes back in history as the function call it was sent as, and its output as the tool result.
      const next = await client.responses.create({
        model,
        tools,
        input: [
          { role: 'user', content: 'Add a file' },
          item,
          { type: 'custom_tool_call_output', call_id: item.call_id, output: 'Done!' },
        ],
      });
      assert.equal(next.status, 'completed');
      const history = since(from).at(-1)!.body.toString('utf8');
      assert.ok(
        history.includes(JSON.stringify(JSON.stringify({ input: patch })).slice(1, -1)) ||
          history.includes(JSON.stringify({ input: patch })),
        'the free-form input went back wrapped as its one parameter',
      );
      assert.match(history, /Done!/);
    } finally {
      fx.up.configure({ toolArguments: undefined });
    }
  });
}

test('input_tokens on a Claude model: counted by the Anthropic-style upstream, as the hub writes the request', async () => {
  const r = await call(fx, {
    path: '/v1/responses/input_tokens',
    body: { model: 'claude-up', instructions: 'Be brief.', input: 'one two three', tools: [WEATHER] },
  });
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('x-modelgate-token-count'), 'exact');
  const seen = fx.up.requests.at(-1)!;
  assert.equal(seen.path, '/v1/messages/count_tokens');
  const sent = seen.json as Record<string, unknown>;
  assert.deepEqual(Object.keys(sent).sort(), ['messages', 'model', 'system', 'tools']);
  assert.equal((r.json as { object: string; input_tokens: number }).object, 'response.input_tokens');
  assert.equal(
    (r.json as { input_tokens: number }).input_tokens,
    5,
    'the mock counts the words of the messages and system',
  );
  const chatOnly = await call(fx, {
    path: '/v1/responses/input_tokens',
    body: { model: 'gpt-chat', input: 'one two three' },
  });
  assert.equal(chatOnly.headers.get('x-modelgate-token-count'), 'estimate');
});

test('budgets refuse /v1/responses in the OpenAI shape', async () => {
  const { key } = await fx.gw.createKey({ name: 'tiny', flags: ['--token-budget', '10', '--models', 'gpt-native'] });
  const r = await call(fx, {
    path: '/v1/responses',
    auth: key,
    body: { model: 'gpt-native', input: 'x', max_output_tokens: 500 },
  });
  assert.equal(r.status, 403);
  const e = (r.json as { error: { type: string; message: string; code: string } }).error;
  assert.match(e.message, /token budget/);
  assert.equal(typeof e.code, 'string');
});

test('usage rows count Responses traffic: /api/usage/token and the usage report', async () => {
  const { key } = await fx.gw.createKey({ name: 'counted', flags: ['--budget-usd', '1', '--models', 'gpt-native'] });
  const c = new OpenAI({ baseURL: `${fx.gw.url}/v1`, apiKey: key, maxRetries: 0 });
  const res = await c.responses.create({ model: 'gpt-native', input: 'count me', store: false });
  const r = await call(fx, { path: '/api/usage/token', auth: key });
  const data = (r.json as { data: { tokens_used: number; spent_usd: number } }).data;
  assert.equal(data.tokens_used, res.usage!.total_tokens);
  assert.ok(data.spent_usd > 0);
  const raw = await call(fx, {
    path: '/v1/responses',
    auth: key,
    body: { model: 'gpt-native', input: 'x', stream: true, store: false },
  });
  const events = parseSseText(raw.text);
  assert.equal(events.at(-1)!.event, 'response.completed');
});

function runCodex(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolveP) => {
    const p = spawn(CODEX, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('close', (code) => resolveP({ code, stdout, stderr }));
  });
}

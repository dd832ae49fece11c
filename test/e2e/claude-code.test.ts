// Issue 35: Claude Code (newest) through the gateway, `claude -p` with a tool round trip: the scripted
// upstream asks for Bash, the CLI runs the command, the upstream sees its output and answers with text.
// On a Claude model passed through to an Anthropic-style upstream, on Claude Code's default model name,
// and on a Claude model served by an OpenAI-style (chat completions) upstream.
import { test, before, after, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startMockUpstream, type MockUpstream, type RecordedRequest } from '../helpers/mock-upstream.ts';
import { startGateway, configYaml, type GatewayProcess } from '../helpers/gateway-process.ts';
import { claudeOrSkip, runClaude } from '../helpers/claude-code.ts';

/** The model Claude Code 2.1.332 asks for when given no --model (its default Opus). */
const CLAUDE_CODE_DEFAULT_MODEL = 'claude-opus-5-5';

let up: MockUpstream;
let gw: GatewayProcess;
let key: string;
before(async () => {
  up = await startMockUpstream();
  gw = await startGateway({
    configYaml: configYaml({
      providers: `  - { name: up, kind: openai, base_url: "${up.url}/v1", api_key: "sk-upstream-secret-0123456789abcdefXYZ" }
  - { name: upa, kind: anthropic, base_url: "${up.url}", api_key: "sk-upstream-secret-0123456789abcdefXYZ" }`,
      models: `  - { name: claude-gw, deployments: [ { provider: upa, model: claude-upstream-1 } ] }
  - { name: ${CLAUDE_CODE_DEFAULT_MODEL}, deployments: [ { provider: upa, model: claude-upstream-default } ] }
  - { name: claude-gw-openai, deployments: [ { provider: up, model: openrouter-claude } ] }`,
    }),
  });
  ({ key } = await gw.createKey({ name: 'claude-code' }));
});
after(async () => {
  await gw.cleanup();
  await up.close();
});

/** Every text a tool result carries, in either dialect: an Anthropic tool_result block or an OpenAI tool message. */
function toolResults(req: RecordedRequest): string[] {
  const messages = (req.json as { messages?: unknown[] } | undefined)?.messages ?? [];
  const out: string[] = [];
  for (const m of messages as { role?: string; content?: unknown }[]) {
    if (m.role === 'tool') out.push(typeof m.content === 'string' ? m.content : JSON.stringify(m.content));
    if (!Array.isArray(m.content)) continue;
    for (const b of m.content as { type?: string; content?: unknown }[]) {
      if (b.type === 'tool_result') out.push(typeof b.content === 'string' ? b.content : JSON.stringify(b.content));
    }
  }
  return out;
}

/** How Anthropic refuses a mid-conversation system item where a model does not take them. */
const SYSTEM_REFUSAL = {
  type: 'error',
  error: {
    type: 'invalid_request_error',
    message: 'messages.1: system messages are not supported in messages for this model',
    details: { error_code: 'mid_conversation_system_not_supported' },
  },
};

function hasSystemItem(req: RecordedRequest): boolean {
  const messages = (req.json as { messages?: { role?: string }[] } | undefined)?.messages ?? [];
  return messages.some((m) => m.role === 'system');
}

async function roundTrip(
  t: TestContext,
  opts: { model?: string; path: string; upstreamModel: string; refuseSystemItems?: boolean },
): Promise<RecordedRequest[]> {
  if (!(await claudeOrSkip(t))) return [];
  const token = randomBytes(6).toString('hex');
  // The shell works out the 42: the upstream can only see it if Bash really ran the command.
  const printed = `mg-42-${token}`;
  up.reset();
  up.configure({
    toolName: 'Bash',
    toolArguments: { command: `echo mg-$((6*7))-${token}`, description: 'Print the test token' },
    replyText: `All done ${token}.`,
  });
  if (opts.refuseSystemItems === true)
    up.setBehaviour((r) => (hasSystemItem(r) ? { kind: 'status', status: 400, body: SYSTEM_REFUSAL } : undefined));
  const run = await runClaude({
    gateway: { url: gw.url, key },
    prompt: 'Run the shell command that prints the token, then tell me what it printed.',
    allowedTools: 'Bash',
    model: opts.model,
  });
  const generations = up.requests.filter(
    (r) => r.path === opts.path && !(opts.refuseSystemItems === true && hasSystemItem(r)),
  );
  const diagnosis = `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr.slice(0, 2000)}\nupstream saw: ${up.requests.map((r) => r.path).join(', ')}`;
  assert.equal(run.code, 0, diagnosis);
  assert.ok(
    generations.some((r) => toolResults(r).some((text) => text.includes(printed))),
    `the upstream saw the command's output\n${diagnosis}`,
  );
  assert.match(run.stdout, new RegExp(`All done ${token}`), diagnosis);
  assert.ok(
    generations.every((r) => (r.json as { model: string }).model === opts.upstreamModel),
    'every generation went to the configured deployment',
  );
  return generations;
}

test('Claude Code: a Claude model passed through to an Anthropic-style upstream, mid-conversation system item and all', {
  timeout: 240_000,
}, async (t) => {
  const seen = await roundTrip(t, { model: 'claude-gw', path: '/v1/messages', upstreamModel: 'claude-upstream-1' });
  if (seen.length === 0) return;
  // Claude Code 2.1.33x sends `role: "system"` inside messages for a model name it does not know: kept in place.
  assert.ok(
    seen.some((r) =>
      (r.json as { messages: { role: string }[] }).messages.some((m, i) => m.role === 'system' && i > 0),
    ),
    'the system item reached the upstream in place',
  );
});

test('Claude Code: an upstream that refuses mid-conversation system items gets the request again without them (its fallback fires)', {
  timeout: 240_000,
}, async (t) => {
  const seen = await roundTrip(t, {
    model: 'claude-gw',
    path: '/v1/messages',
    upstreamModel: 'claude-upstream-1',
    refuseSystemItems: true,
  });
  if (seen.length === 0) return;
  assert.ok(up.requests.some(hasSystemItem), 'the first request carried the system item and was refused');
  assert.ok(
    seen.every((r) => !hasSystemItem(r)),
    'what succeeded came without it',
  );
});

test('Claude Code: its default model name, no --model', { timeout: 240_000 }, async (t) => {
  await roundTrip(t, { path: '/v1/messages', upstreamModel: 'claude-upstream-default' });
});

test('Claude Code: a Claude model served by an OpenAI-style upstream', { timeout: 240_000 }, async (t) => {
  await roundTrip(t, { model: 'claude-gw-openai', path: '/v1/chat/completions', upstreamModel: 'openrouter-claude' });
});

test('Claude Code with ANTHROPIC_API_KEY (x-api-key): one 401 and it stops, instead of retrying for minutes', {
  timeout: 240_000,
}, async (t) => {
  if (!(await claudeOrSkip(t))) return;
  const count401 = async (): Promise<number> => {
    const metrics = await (await fetch(`${gw.url}/metrics`)).text();
    let n = 0;
    for (const m of metrics.matchAll(
      /^modelgate_requests_total\{endpoint="\/v1\/messages",[^}]*status="401"\} (\d+)$/gm,
    ))
      n += Number(m[1]);
    return n;
  };
  const before = await count401();
  // Claude Code retries a 401 unless the answer says `x-should-retry: false` (9 tries in 2 minutes without it).
  const run = await runClaude({
    gateway: { url: gw.url, key, as: 'api-key' },
    prompt: 'hi',
    allowedTools: 'Bash',
    model: 'claude-gw',
  });
  assert.notEqual(run.code, 0, run.stdout);
  assert.doesNotMatch(run.stderr, /killed after/);
  assert.equal((await count401()) - before, 1, `one refused request\n${run.stdout}${run.stderr}`);
});

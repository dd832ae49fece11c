// Requests and upstream answers of the wrong shape: a caller's gets a 400 naming the field, an upstream's
// a clean failure — never a TypeError that would surface as a 500 (or a stream that dies mid-event).
// Table rows first, then seeded mutations of rich valid documents, so a failing case fails every run.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { validateChatRequest } from '../../src/dialects/openai-chat/validate.ts';
import { validateMessagesRequest } from '../../src/dialects/anthropic-messages/validate.ts';
import { estimatePromptTokens, requestedMaxTokens } from '../../src/admission/estimate-tokens.ts';
import { GatewayError } from '../../src/core/errors.ts';
import { nestedDeeperThan } from '../../src/core/json.ts';
import { ChatToAnthropicExchange, MAX_TRANSLATED_DEPTH } from '../../src/pipeline/translated-exchange.ts';
import { SseDecoder, type SseEvent } from '../../src/core/sse.ts';
import {
  chatRequestToMessages, messagesRequestToChat, messagesResponseToChat, chatResponseToMessages,
  MessagesStreamToChatStream, ChatStreamToMessagesStream, TranslationError,
  type ChatRequest, type MessagesRequest,
} from '../../src/translate/index.ts';
import { seededRandom } from '../helpers/seeded-random.ts';
import { GOLDEN_DIR } from './golden.ts';

const TO_ANTHROPIC = { upstreamModel: 'claude-x', defaultMaxTokens: 1024 };
const TO_OPENAI = { upstreamModel: 'gpt-x' };
const chatOf = (over: Record<string, unknown>) => ({ model: 'm', messages: [{ role: 'user', content: 'hi' }], ...over }) as unknown as ChatRequest;
const msgsOf = (over: Record<string, unknown>) => ({ model: 'm', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }], ...over }) as unknown as MessagesRequest;

function rejects(run: () => unknown, param: string): void {
  assert.throws(run, (err: unknown) => {
    assert.ok(err instanceof TranslationError, `expected a TranslationError, got ${String(err)}`);
    assert.equal(err.param, param);
    return true;
  });
}

test('chat → messages: parts, tool calls and arguments of the wrong shape are 400s naming the field', () => {
  const cases: [Record<string, unknown>[], string][] = [
    [[{ role: 'user', content: [null] }], 'messages[0].content[0]'],
    [[{ role: 'user', content: ['hi'] }], 'messages[0].content[0]'],
    [[{ role: 'user', content: [{ type: 'text', text: 5 }] }], 'messages[0].content[0].text'],
    [[{ role: 'system', content: [7] }, { role: 'user', content: 'hi' }], 'messages[0].content[0]'],
    [[{ role: 'system', content: [{ type: 'text' }] }, { role: 'user', content: 'hi' }], 'messages[0].content[0].text'],
    [[{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'x', tool_calls: {} }], 'messages[1].tool_calls'],
    [[{ role: 'user', content: 'hi' }, { role: 'assistant', content: null, tool_calls: [null] }], 'messages[1].tool_calls[0]'],
    [[{ role: 'user', content: 'hi' }, { role: 'assistant', tool_calls: [{ id: 'c', type: 'function' }] }], 'messages[1].tool_calls[0].function'],
    [[{ role: 'user', content: 'hi' }, { role: 'assistant', tool_calls: [{ id: 'c', function: { arguments: '{}' } }] }], 'messages[1].tool_calls[0].function.name'],
    [[{ role: 'user', content: 'hi' }, { role: 'assistant', tool_calls: [{ id: 'c', function: { name: 'f', arguments: { a: 1 } } }] }], 'messages[1].tool_calls[0].function.arguments'],
  ];
  for (const [messages, param] of cases) rejects(() => chatRequestToMessages(chatOf({ messages }), TO_ANTHROPIC), param);
  // A tool call without an id still gets one, and arguments may be left out.
  const ok = chatRequestToMessages(chatOf({ messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', tool_calls: [{ function: { name: 'f' } }] }] }), TO_ANTHROPIC);
  const call = (ok.body.messages[1]!.content as { type: string; id: string; input: unknown }[])[0]!;
  assert.equal(call.type, 'tool_use');
  assert.match(call.id, /^toolu_/);
  assert.deepEqual(call.input, {});
});

test('messages → chat: blocks, texts, tool names, thinking and effort of the wrong shape are 400s naming the field', () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ messages: [{ role: 'user', content: [null] }] }, 'messages[0].content[0]'],
    [{ messages: [{ role: 'user', content: [{ type: 'text', text: 5 }] }] }, 'messages[0].content[0].text'],
    [{ messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: [3] }] }, 'messages[1].content[0]'],
    [{ messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: [{ type: 'text', text: null }] }] }, 'messages[1].content[0].text'],
    [{ messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: [{ type: 'tool_use', id: 't', input: {} }] }] }, 'messages[1].content[0].name'],
    [{ messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'text', text: [] }] }] }] }, 'messages[0].content[0].content[0].text'],
    [{ system: [{ type: 'text', text: 1 }] }, 'system[0].text'],
    [{ thinking: 'on' }, 'thinking.type'],
    [{ thinking: { type: 'sometimes' } }, 'thinking.type'],
    [{ thinking: { type: 'enabled', budget_tokens: 'lots' } }, 'thinking.budget_tokens'],
    [{ output_config: 'fast' }, 'output_config'],
    [{ output_config: { effort: 'extreme' } }, 'output_config.effort'],
  ];
  for (const [over, param] of cases) rejects(() => messagesRequestToChat(msgsOf(over), TO_OPENAI), param);
  // null means absent for both settings, as the validator treats other optional fields.
  assert.equal(messagesRequestToChat(msgsOf({ thinking: null, output_config: null }), TO_OPENAI).body.reasoning_effort, undefined);
  assert.equal(messagesRequestToChat(msgsOf({ output_config: { effort: 'max' } }), TO_OPENAI).body.reasoning_effort, 'xhigh');
});

// ---- seeded mutations -----------------------------------------------------------------------------

const rand = seededRandom(20261122);
const pick = <T>(a: readonly T[]): T => a[Math.floor(rand() * a.length)]!;
/** Values that are each the wrong type or the wrong shape somewhere in these documents. */
const ODD_VALUES: readonly unknown[] = [
  null, true, false, 0, -1, 1.5, 1e308, '', 'x', 'user', 'assistant', 'system', 'tool', 'text', 'image_url', 'image',
  'tool_use', 'tool_result', 'function', 'auto', 'none', 'required', 'any', 'json_schema', 'json_object', 'enabled',
  'adaptive', 'max', [], {}, [null], [{}], ['x'], { type: 5 }, { type: 'text' }, { type: 'text', text: 5 },
  { type: 'image_url' }, { type: 'image_url', image_url: 5 }, { type: 'image_url', image_url: { url: 5 } },
  { type: 'image', source: null }, { type: 'tool_use' }, { type: 'tool_result', content: 5 }, { type: 'function', function: null },
  { name: 5 }, '{"a":', 'data:image/png;base64,AAAA', 'data:', '__proto__',
];

const CHAT_SEED = {
  model: 'm', max_tokens: 100, temperature: 0.5, top_p: 1, stop: ['x'], n: 1, user: 'u', seed: 1,
  stream: true, stream_options: { include_usage: true }, reasoning_effort: 'low', parallel_tool_calls: false,
  response_format: { type: 'json_schema', json_schema: { name: 'out', schema: { type: 'object', properties: { a: { type: 'string' } } }, strict: true } },
  tools: [{ type: 'function', function: { name: 'get', description: 'd', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
  tool_choice: { type: 'function', function: { name: 'get' } },
  messages: [
    { role: 'system', content: 'S' },
    { role: 'developer', content: [{ type: 'text', text: 'D' }] },
    { role: 'user', content: [{ type: 'text', text: 'hi' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA', detail: 'low' } }, { type: 'image_url', image_url: { url: 'https://example.com/y.png' } }] },
    { role: 'assistant', content: 'ok', reasoning_content: 'r', reasoning_signature: 's', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get', arguments: '{"city":"P"}' } }] },
    { role: 'tool', tool_call_id: 'c1', content: [{ type: 'text', text: '18' }] },
    { role: 'user', content: 'more' },
    { role: 'assistant', content: [{ type: 'refusal', refusal: 'no' }] },
  ],
};
const MESSAGES_SEED = {
  model: 'm', max_tokens: 4096, temperature: 0.5, top_p: 1, top_k: 5, stop_sequences: ['x'], stream: true,
  metadata: { user_id: 'u' }, thinking: { type: 'enabled', budget_tokens: 2048 },
  system: [{ type: 'text', text: 'S', cache_control: { type: 'ephemeral' } }],
  tools: [{ name: 'get', description: 'd', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
  tool_choice: { type: 'tool', name: 'get', disable_parallel_tool_use: true },
  output_config: { effort: 'high', format: { type: 'json_schema', schema: { type: 'object' } } },
  messages: [
    { role: 'user', content: [{ type: 'text', text: 'hi' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }, { type: 'image', source: { type: 'url', url: 'https://example.com/y.png' } }, { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'doc' } }] },
    { role: 'assistant', content: [{ type: 'thinking', thinking: 't', signature: 's' }, { type: 'redacted_thinking', data: 'r' }, { type: 'text', text: 'ok' }, { type: 'tool_use', id: 't1', name: 'get', input: { city: 'P' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: '18' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }], is_error: true }, { type: 'text', text: 'more' }] },
    { role: 'assistant', content: 'prefill' },
  ],
};
const ANTHROPIC_REPLY = {
  id: 'msg_1', type: 'message', role: 'assistant', model: 'm', stop_reason: 'tool_use', stop_sequence: null,
  content: [{ type: 'thinking', thinking: 't', signature: 's' }, { type: 'text', text: 'hi' }, { type: 'tool_use', id: 't1', name: 'get', input: { a: 1 } }, { type: 'tool_use', id: 't2', name: 'json_response', input: { b: 2 } }],
  usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 1, cache_creation_input_tokens: 2 },
};
const OPENAI_REPLY = {
  id: 'c', object: 'chat.completion', created: 1, model: 'm',
  choices: [{ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: 'hi', refusal: null, reasoning_content: 'r', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get', arguments: '{"a":1}' } }] } }],
  usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, prompt_tokens_details: { cached_tokens: 2 }, completion_tokens_details: { reasoning_tokens: 1 } },
};

type Path = (string | number)[];

function pathsOf(value: unknown, at: Path = [], out: Path[] = []): Path[] {
  if (at.length > 0) out.push(at);
  if (Array.isArray(value)) value.forEach((v, i) => pathsOf(v, [...at, i], out));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) pathsOf(v, [...at, k], out);
  return out;
}

/** The document with one to three values replaced by odd ones (or keys deleted), as parsed JSON. */
function mutate(seed: unknown): Record<string, unknown> {
  const doc = structuredClone(seed) as Record<string, unknown>;
  for (let n = 1 + Math.floor(rand() * 3); n > 0; n--) {
    const paths = pathsOf(doc);
    if (paths.length === 0) break;
    const path = pick(paths);
    let parent = doc as Record<string | number, unknown>;
    for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, unknown>;
    const last = path.at(-1)!;
    if (rand() < 0.15 && !Array.isArray(parent)) delete parent[last];
    else parent[last] = structuredClone(pick(ODD_VALUES));
  }
  return JSON.parse(JSON.stringify(doc)) as Record<string, unknown>;
}

/** Runs `step`; a 4xx of the gateway's or a TranslationError is an answer, anything else is returned. */
function crashOf(step: () => unknown): unknown {
  try {
    step();
    return null;
  } catch (err) {
    if (err instanceof TranslationError) return null;
    if (err instanceof GatewayError && err.status >= 400 && err.status < 500) return null;
    return err;
  }
}

function assertNoCrash(label: string, doc: unknown, step: () => unknown): void {
  const err = crashOf(step);
  if (err !== null) assert.fail(`${label} threw ${(err as Error).stack ?? String(err)}\nfor ${JSON.stringify(doc)}`);
}

const ROUNDS = 3000;

const REQUEST_ROUTES = [
  { dialect: 'chat', seed: CHAT_SEED, validate: validateChatRequest, translate: (b: unknown) => chatRequestToMessages(b as ChatRequest, TO_ANTHROPIC) },
  { dialect: 'messages', seed: MESSAGES_SEED, validate: validateMessagesRequest, translate: (b: unknown) => messagesRequestToChat(b as MessagesRequest, TO_OPENAI) },
];

for (const route of REQUEST_ROUTES) {
  test(`seeded mutations of ${route.dialect} requests: validation, estimates and translation answer 400 or go through`, () => {
    for (let i = 0; i < ROUNDS; i++) {
      const body = mutate(route.seed);
      assertNoCrash(`${route.dialect} request`, body, () => {
        route.validate(body);
        estimatePromptTokens(body);
        requestedMaxTokens(body, 1024);
        route.translate(body);
      });
    }
  });
}

test('seeded mutations of upstream replies: both reply translators take any JSON object', () => {
  for (let i = 0; i < ROUNDS; i++) {
    const a = mutate(ANTHROPIC_REPLY);
    assertNoCrash('anthropic reply', a, () => messagesResponseToChat(a as never, { model: 'm', created: 1, jsonMode: { toolName: 'json_response', wrapKey: null } }));
    const o = mutate(OPENAI_REPLY);
    assertNoCrash('openai reply', o, () => chatResponseToMessages(o as never, { model: 'm', stopSequences: ['x'] }));
  }
});

function eventsOf(file: string): SseEvent[] {
  const d = new SseDecoder();
  return [...d.push(readFileSync(`${GOLDEN_DIR}${file}`)), ...d.end()];
}

test('seeded mutations of upstream stream events: both stream translators end the stream, never throw', () => {
  const anthropic = ['thinking', 'json-mode', 'text-then-two-tools', 'error-midstream', 'cut'].map((f) => eventsOf(`anthropic-upstream/${f}.sse`));
  const openai = ['text-then-tools', 'reasoning', 'interleaved-parallel', 'error-midstream', 'cut'].map((f) => eventsOf(`openai-upstream/${f}.sse`));
  const run = (label: string, events: SseEvent[], make: () => { push(ev: SseEvent): string; end(): string; readonly finished: boolean }): void => {
    const damaged = events.map((ev) => ({ ...ev }));
    const k = Math.floor(rand() * damaged.length);
    const data = damaged[k]!.data;
    const parsed: unknown = data.startsWith('{') ? JSON.parse(data) : undefined;
    damaged[k]!.data = parsed !== undefined && rand() < 0.9 ? JSON.stringify(mutate(parsed)) : pick(['', '{', 'null', '[]', '5', '"x"', '{"type":null}']);
    const t = make();
    assertNoCrash(label, damaged[k]!.data, () => {
      for (const ev of damaged) t.push(ev);
      t.end();
    });
    assert.ok(t.finished, `${label}: the client's stream is ended, normally or with an error`);
  };
  for (let i = 0; i < ROUNDS; i++) {
    run('anthropic stream', pick(anthropic), () => new MessagesStreamToChatStream({ model: 'm', created: 1, includeUsage: true, jsonMode: { toolName: 'json_response', wrapKey: null } }));
    run('openai stream', pick(openai), () => new ChatStreamToMessagesStream({ model: 'm', inputTokens: 5, stopSequences: ['x'] }));
  }
});

// ---- nesting ----------------------------------------------------------------------------------------

test('nesting: a depth check that stops at its limit; the translated exchanges refuse deep requests and deep replies cleanly', () => {
  const nest = (levels: number): unknown => JSON.parse(`${'['.repeat(levels)}${']'.repeat(levels)}`);
  assert.equal(nestedDeeperThan(nest(3), 3), false);
  assert.equal(nestedDeeperThan(nest(4), 3), true);
  assert.equal(nestedDeeperThan({ a: { b: [1] } }, 3), false);
  assert.equal(nestedDeeperThan({ a: { b: [[1]] } }, 3), true);
  assert.equal(nestedDeeperThan('x', 0), false);
  assert.equal(nestedDeeperThan(nest(200_000), 10), true, 'a walk that stops at the limit does not overflow');

  const facts = { model: 'm', stream: false, maxTokens: null, includeUsage: false };
  const make = (parsed: Record<string, unknown>) => new ChatToAnthropicExchange({ parsed, facts, upstreamModel: 'claude-x', defaultMaxTokens: 64 });
  const tools = (schemaExtra: unknown) => [{ type: 'function', function: { name: 'f', parameters: { type: 'object', x: schemaExtra } } }];
  assert.ok(make({ model: 'm', messages: [{ role: 'user', content: 'hi' }], tools: tools(nest(MAX_TRANSLATED_DEPTH - 10)) }).upstreamBody().length > 0);
  assert.throws(
    () => make({ model: 'm', messages: [{ role: 'user', content: 'hi' }], tools: tools(nest(100_000)) }),
    (err: unknown) => err instanceof GatewayError && err.status === 400 && /levels deep/.test(err.message),
  );
  // An upstream reply whose tool input cannot be serialised again is the upstream's failure (a retryable
  // malformed 2xx), not a 500.
  const exchange = make({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
  const reply = `{"type":"message","role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}}],"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":1}}`;
  assert.throws(() => exchange.json(reply), (err: unknown) => err instanceof GatewayError && err.code === 'upstream_error' && /could not be translated \(RangeError/.test(err.message));
});

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
import { ChatToAnthropicExchange, MAX_TRANSLATED_DEPTH } from './hub-pairs.ts';
import { SseDecoder, type SseEvent } from '../../src/core/sse.ts';
import {
  chatRequestToMessages,
  messagesRequestToChat,
  messagesResponseToChat,
  chatResponseToMessages,
  MessagesStreamToChatStream,
  ChatStreamToMessagesStream,
  TranslationError,
  type ChatRequest,
  type MessagesRequest,
} from './hub-pairs.ts';
import {
  ANTHROPIC_REPLY_SEED,
  CHAT_REQUEST_SEED,
  MESSAGES_REQUEST_SEED,
  OPENAI_REPLY_SEED,
  createMutator,
} from '../helpers/mutate-json.ts';
import { GOLDEN_DIR } from './golden.ts';

const TO_ANTHROPIC = { upstreamModel: 'claude-x', defaultMaxTokens: 1024 };
const TO_OPENAI = { upstreamModel: 'gpt-x' };
const chatOf = (over: Record<string, unknown>) =>
  ({ model: 'm', messages: [{ role: 'user', content: 'hi' }], ...over }) as unknown as ChatRequest;
const msgsOf = (over: Record<string, unknown>) =>
  ({ model: 'm', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }], ...over }) as unknown as MessagesRequest;

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
    [
      [
        { role: 'system', content: [7] },
        { role: 'user', content: 'hi' },
      ],
      'messages[0].content[0]',
    ],
    [
      [
        { role: 'system', content: [{ type: 'text' }] },
        { role: 'user', content: 'hi' },
      ],
      'messages[0].content[0].text',
    ],
    [
      [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'x', tool_calls: {} },
      ],
      'messages[1].tool_calls',
    ],
    [
      [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: null, tool_calls: [null] },
      ],
      'messages[1].tool_calls[0]',
    ],
    [
      [
        { role: 'user', content: 'hi' },
        { role: 'assistant', tool_calls: [{ id: 'c', type: 'function' }] },
      ],
      'messages[1].tool_calls[0].function',
    ],
    [
      [
        { role: 'user', content: 'hi' },
        { role: 'assistant', tool_calls: [{ id: 'c', function: { arguments: '{}' } }] },
      ],
      'messages[1].tool_calls[0].function.name',
    ],
    [
      [
        { role: 'user', content: 'hi' },
        { role: 'assistant', tool_calls: [{ id: 'c', function: { name: 'f', arguments: { a: 1 } } }] },
      ],
      'messages[1].tool_calls[0].function.arguments',
    ],
  ];
  for (const [messages, param] of cases)
    rejects(() => chatRequestToMessages(chatOf({ messages }), TO_ANTHROPIC), param);
  // A tool call without an id still gets one, and arguments may be left out.
  const ok = chatRequestToMessages(
    chatOf({
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', tool_calls: [{ function: { name: 'f' } }] },
      ],
    }),
    TO_ANTHROPIC,
  );
  const call = (ok.body.messages[1]!.content as { type: string; id: string; input: unknown }[])[0]!;
  assert.equal(call.type, 'tool_use');
  assert.match(call.id, /^toolu_/);
  assert.deepEqual(call.input, {});
});

test('messages → chat: blocks, texts, tool names, thinking and effort of the wrong shape are 400s naming the field', () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ messages: [{ role: 'user', content: [null] }] }, 'messages[0].content[0]'],
    [{ messages: [{ role: 'user', content: [{ type: 'text', text: 5 }] }] }, 'messages[0].content[0].text'],
    [
      {
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: [3] },
        ],
      },
      'messages[1].content[0]',
    ],
    [
      {
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: [{ type: 'text', text: null }] },
        ],
      },
      'messages[1].content[0].text',
    ],
    [
      {
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 't', input: {} }] },
        ],
      },
      'messages[1].content[0].name',
    ],
    [
      {
        messages: [
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'text', text: [] }] }] },
        ],
      },
      'messages[0].content[0].content[0].text',
    ],
    [{ system: [{ type: 'text', text: 1 }] }, 'system[0].text'],
    [{ thinking: 'on' }, 'thinking.type'],
    [{ thinking: { type: 'sometimes' } }, 'thinking.type'],
    [{ thinking: { type: 'enabled', budget_tokens: 'lots' } }, 'thinking.budget_tokens'],
    [{ output_config: 'fast' }, 'output_config'],
    [{ output_config: { effort: 'extreme' } }, 'output_config.effort'],
  ];
  for (const [over, param] of cases) rejects(() => messagesRequestToChat(msgsOf(over), TO_OPENAI), param);
  // null means absent for both settings, as the validator treats other optional fields.
  assert.equal(
    messagesRequestToChat(msgsOf({ thinking: null, output_config: null }), TO_OPENAI).body.reasoning_effort,
    undefined,
  );
  assert.equal(
    messagesRequestToChat(msgsOf({ output_config: { effort: 'max' } }), TO_OPENAI).body.reasoning_effort,
    'xhigh',
  );
});

// ---- seeded mutations -----------------------------------------------------------------------------

const { rand, pick, mutate } = createMutator(20261122);

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
  {
    dialect: 'chat',
    seed: CHAT_REQUEST_SEED,
    validate: validateChatRequest,
    translate: (b: unknown) => chatRequestToMessages(b as ChatRequest, TO_ANTHROPIC),
  },
  {
    dialect: 'messages',
    seed: MESSAGES_REQUEST_SEED,
    validate: validateMessagesRequest,
    translate: (b: unknown) => messagesRequestToChat(b as MessagesRequest, TO_OPENAI),
  },
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
    const a = mutate(ANTHROPIC_REPLY_SEED);
    assertNoCrash('anthropic reply', a, () =>
      messagesResponseToChat(a as never, {
        model: 'm',
        created: 1,
        jsonMode: { toolName: 'json_response', wrapKey: null },
      }),
    );
    const o = mutate(OPENAI_REPLY_SEED);
    assertNoCrash('openai reply', o, () => chatResponseToMessages(o as never, { model: 'm', stopSequences: ['x'] }));
  }
});

function eventsOf(file: string): SseEvent[] {
  const d = new SseDecoder();
  return [...d.push(readFileSync(`${GOLDEN_DIR}${file}`)), ...d.end()];
}

test('seeded mutations of upstream stream events: both stream translators end the stream, never throw', () => {
  const anthropic = ['thinking', 'json-mode', 'text-then-two-tools', 'error-midstream', 'cut'].map((f) =>
    eventsOf(`anthropic-upstream/${f}.sse`),
  );
  const openai = ['text-then-tools', 'reasoning', 'interleaved-parallel', 'error-midstream', 'cut'].map((f) =>
    eventsOf(`openai-upstream/${f}.sse`),
  );
  const run = (
    label: string,
    events: SseEvent[],
    make: () => { push(ev: SseEvent): string; end(): string; readonly finished: boolean },
  ): void => {
    const damaged = events.map((ev) => ({ ...ev }));
    const k = Math.floor(rand() * damaged.length);
    const data = damaged[k]!.data;
    const parsed: unknown = data.startsWith('{') ? JSON.parse(data) : undefined;
    damaged[k]!.data =
      parsed !== undefined && rand() < 0.9
        ? JSON.stringify(mutate(parsed))
        : pick(['', '{', 'null', '[]', '5', '"x"', '{"type":null}']);
    const t = make();
    assertNoCrash(label, damaged[k]!.data, () => {
      for (const ev of damaged) t.push(ev);
      t.end();
    });
    assert.ok(t.finished, `${label}: the client's stream is ended, normally or with an error`);
  };
  for (let i = 0; i < ROUNDS; i++) {
    run(
      'anthropic stream',
      pick(anthropic),
      () =>
        new MessagesStreamToChatStream({
          model: 'm',
          created: 1,
          includeUsage: true,
          jsonMode: { toolName: 'json_response', wrapKey: null },
        }),
    );
    run(
      'openai stream',
      pick(openai),
      () => new ChatStreamToMessagesStream({ model: 'm', inputTokens: 5, stopSequences: ['x'] }),
    );
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
  const make = (parsed: Record<string, unknown>) =>
    new ChatToAnthropicExchange({
      parsed,
      facts,
      upstreamModel: 'claude-x',
      defaultMaxTokens: 64,
      promptEstimate: () => 1,
    });
  const tools = (schemaExtra: unknown) => [
    { type: 'function', function: { name: 'f', parameters: { type: 'object', x: schemaExtra } } },
  ];
  assert.ok(
    make({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      tools: tools(nest(MAX_TRANSLATED_DEPTH - 10)),
    }).upstreamBody().length > 0,
  );
  assert.throws(
    () => make({ model: 'm', messages: [{ role: 'user', content: 'hi' }], tools: tools(nest(100_000)) }),
    (err: unknown) => err instanceof GatewayError && err.status === 400 && /levels deep/.test(err.message),
  );
  // An upstream reply whose tool input cannot be serialised again is the upstream's failure (a retryable
  // malformed 2xx), not a 500.
  const exchange = make({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
  const reply = `{"type":"message","role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}}],"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":1}}`;
  assert.throws(
    () => exchange.json(reply),
    (err: unknown) =>
      err instanceof GatewayError &&
      err.code === 'upstream_error' &&
      /could not be translated \(RangeError/.test(err.message),
  );
});

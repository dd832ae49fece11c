// Reasoning kept byte-exact across translated turns, on literal bodies and SSE text through the hub's
// real path (TranslatedExchange): an Anthropic, Gemini or OpenAI Responses upstream's opaque reasoning
// reaches callers of the other dialects as the gateway's token, comes back on the caller's next turn, and
// goes to an upstream of the same family exactly as that provider wrote it, and to no other. Replies are
// checked against the official schemas where the dialect has one here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SseDecoder } from '../../src/core/sse.ts';
import type { Dialect } from '../../src/core/dialect.ts';
import { CLIENT_SIDES, UPSTREAM_SIDES } from '../../src/registry.ts';
import type { CallSignatureBook, KeptSignature } from '../../src/spec/call-signatures.ts';
import { TranslatedExchange } from '../../src/translate/hub/translated-exchange.ts';
import { GatewayError } from '../../src/core/errors.ts';
import { carrierOf, uncarry } from '../../src/spec/reasoning-carrier.ts';
import {
  parseSseText,
  validateChatCompletion,
  validateChatCompletionChunk,
  validateMessage,
  validateMessageStreamEvent,
  validateResponse,
  validateResponseStreamEvent,
} from '../helpers/schemas.ts';

type Json = Record<string, unknown>;

/** Signatures as providers write them: opaque base64 that only they can check. */
const ANTHROPIC_SIG = 'EqQBCkYIBRgCKkBxk3T0m1Yq2F+8v/EJ0bWm2o2qk0QHcKx1e7N9+M0aPZ0=';
const REDACTED = 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP';
const GEMINI_THOUGHT_SIG = 'CiQBcsjafFm3Qk0Kp7n6Wm5h1ZkRQ5Yh2p9S0Xb4t3wA8wZrXg==';
const GEMINI_CALL_SIG = 'CmUBcsjafD2r8zLq0o8mT1y5vK0P7g3mZcYx4F1rQ==';
const OPENAI_ENCRYPTED = 'gAAAAABpK3m8b9Zq0QvJ3o2Xy-opaque-encrypted-reasoning==';
/** Thinking text is part of what Anthropic signed: kept to the byte, spaces, newlines and all. */
const THINKING = 'Let me check the weather tool.\n\n  The user wants Paris. ';

const ANTHROPIC_REPLY: Json = {
  id: 'msg_01',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5',
  content: [
    { type: 'thinking', thinking: THINKING, signature: ANTHROPIC_SIG },
    { type: 'redacted_thinking', data: REDACTED },
    { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } },
  ],
  stop_reason: 'tool_use',
  stop_sequence: null,
  usage: { input_tokens: 20, output_tokens: 30 },
};

const ANTHROPIC_SSE = [
  'event: message_start',
  'data: {"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":20,"output_tokens":1}}}',
  '',
  'event: content_block_start',
  'data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}',
  '',
  'event: content_block_delta',
  `data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":${JSON.stringify(THINKING.slice(0, 12))}}}`,
  '',
  'event: content_block_delta',
  `data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":${JSON.stringify(THINKING.slice(12))}}}`,
  '',
  'event: content_block_delta',
  `data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"${ANTHROPIC_SIG}"}}`,
  '',
  'event: content_block_stop',
  'data: {"type":"content_block_stop","index":0}',
  '',
  'event: content_block_start',
  `data: {"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"${REDACTED}"}}`,
  '',
  'event: content_block_stop',
  'data: {"type":"content_block_stop","index":1}',
  '',
  'event: content_block_start',
  'data: {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_01","name":"get_weather","input":{}}}',
  '',
  'event: content_block_delta',
  'data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\\"city\\":\\"Paris\\"}"}}',
  '',
  'event: content_block_stop',
  'data: {"type":"content_block_stop","index":2}',
  '',
  'event: message_delta',
  'data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":30}}',
  '',
  'event: message_stop',
  'data: {"type":"message_stop"}',
  '',
  '',
].join('\n');

const GEMINI_REPLY: Json = {
  candidates: [
    {
      content: {
        role: 'model',
        parts: [
          { text: THINKING, thought: true, thoughtSignature: GEMINI_THOUGHT_SIG },
          { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: GEMINI_CALL_SIG },
        ],
      },
      finishReason: 'STOP',
      index: 0,
    },
  ],
  usageMetadata: { promptTokenCount: 20, candidatesTokenCount: 30, totalTokenCount: 50 },
};

const GEMINI_SSE = `data: ${JSON.stringify({
  candidates: [{ content: { role: 'model', parts: [{ text: THINKING.slice(0, 12), thought: true }] }, index: 0 }],
})}\r\n\r\ndata: ${JSON.stringify({
  candidates: [
    {
      content: {
        role: 'model',
        parts: [{ text: THINKING.slice(12), thought: true, thoughtSignature: GEMINI_THOUGHT_SIG }],
      },
      index: 0,
    },
  ],
})}\r\n\r\ndata: ${JSON.stringify(GEMINI_REPLY)}\r\n\r\n`.replace(
  // The last chunk holds the call only (its thought came in the chunks before).
  JSON.stringify({ text: THINKING, thought: true, thoughtSignature: GEMINI_THOUGHT_SIG }) + ',',
  '',
);

const RESPONSES_REPLY: Json = {
  id: 'resp_01',
  object: 'response',
  created_at: 1_800_000_000,
  status: 'completed',
  model: 'gpt-5',
  output: [
    {
      id: 'rs_01',
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: 'Checking the weather.' }],
      encrypted_content: OPENAI_ENCRYPTED,
    },
    {
      id: 'fc_01',
      type: 'function_call',
      call_id: 'call_01',
      name: 'get_weather',
      arguments: '{"city":"Paris"}',
      status: 'completed',
    },
  ],
  usage: { input_tokens: 20, output_tokens: 30, total_tokens: 50 },
};

const TOOL = { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } };

/** A first-turn request in each client dialect, asking for reasoning back where the dialect asks. */
const FIRST: Record<Dialect, Json> = {
  openai: {
    model: 'm',
    messages: [{ role: 'user', content: 'Weather in Paris?' }],
    tools: [{ type: 'function', function: TOOL }],
  },
  anthropic: {
    model: 'm',
    max_tokens: 1000,
    messages: [{ role: 'user', content: 'Weather in Paris?' }],
    tools: [{ name: TOOL.name, input_schema: TOOL.parameters }],
  },
  responses: {
    model: 'm',
    input: 'Weather in Paris?',
    tools: [{ type: 'function', ...TOOL }],
    include: ['reasoning.encrypted_content'],
    reasoning: { effort: 'high', summary: 'auto' },
    store: false,
  },
  gemini: {
    contents: [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }],
    tools: [{ functionDeclarations: [TOOL] }],
    generationConfig: { thinkingConfig: { includeThoughts: true } },
  },
};

interface ExchangeOptions {
  stream?: boolean;
  signatures?: CallSignatureBook;
  owner?: string;
}

function exchange(client: Dialect, upstream: Dialect, body: Json, o: ExchangeOptions = {}): TranslatedExchange {
  const parsed = structuredClone(body);
  if (o.stream === true && client !== 'gemini') parsed.stream = true;
  return new TranslatedExchange({
    client: CLIENT_SIDES[client],
    upstream: UPSTREAM_SIDES[upstream],
    clientDialect: client,
    upstreamDialect: upstream,
    parsed,
    model: 'm',
    stream: o.stream === true,
    promptEstimate: () => 10,
    upstreamOptions: {
      upstreamModel: 'up-model',
      defaultMaxTokens: 1000,
      refusedParams: [],
      owner: o.owner ?? 'key-1',
    },
    frames: () => new SseDecoder(),
    signatures: o.signatures,
  });
}

/** The caller's whole reply to its first turn, from a whole upstream reply. */
function replyOf(client: Dialect, upstream: Dialect, upstreamReply: Json): Json {
  const body = JSON.parse(exchange(client, upstream, FIRST[client]).json(JSON.stringify(upstreamReply)).body) as Json;
  if (client === 'openai') validateChatCompletion(body);
  if (client === 'anthropic') validateMessage(body);
  if (client === 'responses') validateResponse(body);
  return body;
}

/** The caller's stream text for an upstream's literal SSE text, every event schema-checked. */
function streamOf(client: Dialect, upstream: Dialect, sse: string): string {
  const relay = exchange(client, upstream, FIRST[client], { stream: true }).stream();
  const text = String(relay.push(new TextEncoder().encode(sse))) + String(relay.end());
  assert.ok(relay.finished && !relay.failed, text);
  for (const ev of parseSseText(text)) {
    if (ev.data === '[DONE]') continue;
    const value = JSON.parse(ev.data) as unknown;
    if (client === 'openai') validateChatCompletionChunk(value);
    if (client === 'anthropic') validateMessageStreamEvent(value);
    if (client === 'responses') validateResponseStreamEvent(value);
  }
  return text;
}

/** The caller's next turn: its first turn, the assistant turn as its client keeps it, the tool's result. */
function nextTurn(client: Dialect, assistant: unknown, callId: string): Json {
  const first = structuredClone(FIRST[client]);
  if (client === 'openai')
    return {
      ...first,
      messages: [...(first.messages as unknown[]), assistant, { role: 'tool', tool_call_id: callId, content: 'sunny' }],
    };
  if (client === 'anthropic')
    return {
      ...first,
      messages: [
        ...(first.messages as unknown[]),
        { role: 'assistant', content: assistant },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: callId, content: 'sunny' }] },
      ],
    };
  if (client === 'responses')
    return {
      ...first,
      input: [
        { role: 'user', content: 'Weather in Paris?' },
        ...(assistant as unknown[]),
        { type: 'function_call_output', call_id: callId, output: 'sunny' },
      ],
    };
  return {
    ...first,
    contents: [
      ...(first.contents as unknown[]),
      assistant,
      {
        role: 'user',
        parts: [{ functionResponse: { id: callId, name: 'get_weather', response: { output: 'sunny' } } }],
      },
    ],
  };
}

/** What the upstream gets for a caller's next turn. */
function sent(client: Dialect, upstream: Dialect, body: Json): { json: Json; text: string; adjusted?: string } {
  const ex = exchange(client, upstream, body);
  const text = ex.upstreamBody();
  return { json: JSON.parse(text) as Json, text, adjusted: ex.responseHeaders['x-modelgate-adjusted'] };
}

function assistantContent(messages: unknown): Json[] {
  const turn = (messages as Json[]).find((m) => m.role === 'assistant');
  return (turn?.content ?? []) as Json[];
}

test('the token names its family and holds the part as the provider wrote it; a damaged one is a 400 naming the field', () => {
  const token = carrierOf({ type: 'reasoning', text: THINKING, origin: 'messages', signature: ANTHROPIC_SIG });
  assert.match(token!, /^mgw1\.anthropic\.[A-Za-z0-9_-]+$/);
  assert.deepEqual(uncarry(token!, 'x'), {
    type: 'reasoning',
    text: THINKING,
    origin: 'messages',
    signature: ANTHROPIC_SIG,
  });
  assert.match(carrierOf({ type: 'reasoning', text: '', origin: 'gemini', signature: 'g' })!, /^mgw1\.gemini\./);
  assert.match(
    carrierOf({ type: 'reasoning', text: '', origin: 'responses', encrypted: 'e', id: 'rs' })!,
    /^mgw1\.openai\./,
  );
  // Nothing opaque, or no provider's: no token.
  assert.equal(carrierOf({ type: 'reasoning', text: 'plain', origin: 'chat' }), undefined);
  assert.equal(carrierOf({ type: 'reasoning', text: 'plain', origin: 'messages', signature: '' }), undefined);
  assert.equal(uncarry(ANTHROPIC_SIG, 'x'), null, "a provider's own value is not a token");
  // A token written before the family was named in its prefix still reads.
  const legacy = `mgw1.${Buffer.from(JSON.stringify({ o: 'messages', t: 'x', s: 'sig' })).toString('base64url')}`;
  assert.deepEqual(uncarry(legacy, 'x'), { type: 'reasoning', text: 'x', origin: 'messages', signature: 'sig' });

  const damaged = `${token!.slice(0, 30)}!!`;
  const body = nextTurn('anthropic', [{ type: 'thinking', thinking: 'x', signature: damaged }], 'toolu_01');
  assert.throws(
    () => exchange('anthropic', 'gemini', body),
    (err: unknown) =>
      err instanceof GatewayError && err.status === 400 && err.param === 'messages[1].content[0].signature',
  );
});

test("Anthropic's thinking to a chat caller: as LiteLLM shows it; back to Anthropic byte-exact, to Gemini and OpenAI not at all", () => {
  const reply = replyOf('openai', 'anthropic', ANTHROPIC_REPLY);
  const message = (reply.choices as Json[])[0].message as Json;
  assert.deepEqual(message.thinking_blocks, [
    { type: 'thinking', thinking: THINKING, signature: ANTHROPIC_SIG },
    { type: 'redacted_thinking', data: REDACTED },
  ]);
  assert.equal(message.reasoning_signature, ANTHROPIC_SIG);
  const callId = ((message.tool_calls as Json[])[0] as { id: string }).id;
  const next = nextTurn('openai', message, callId);

  const toAnthropic = sent('openai', 'anthropic', next);
  assert.deepEqual(assistantContent(toAnthropic.json.messages).slice(0, 2), [
    { type: 'thinking', thinking: THINKING, signature: ANTHROPIC_SIG },
    { type: 'redacted_thinking', data: REDACTED },
  ]);
  assert.ok(toAnthropic.text.includes(`"signature":"${ANTHROPIC_SIG}"`), 'the signature is sent as Anthropic wrote it');

  const toGemini = sent('openai', 'gemini', next);
  assert.ok(!toGemini.text.includes(ANTHROPIC_SIG) && !toGemini.text.includes(REDACTED));
  assert.match(toGemini.adjusted ?? '', /reasoning from another model left out/);
  const toOpenAi = sent('openai', 'responses', next);
  assert.ok(!toOpenAi.text.includes(ANTHROPIC_SIG) && !toOpenAi.text.includes(REDACTED));
});

test("Anthropic's thinking to a Responses caller: tokens in encrypted_content, streamed or whole; back to Anthropic byte-exact", () => {
  const reply = replyOf('responses', 'anthropic', ANTHROPIC_REPLY);
  const output = reply.output as Json[];
  assert.deepEqual(
    output.map((o) => o.type),
    ['reasoning', 'reasoning', 'function_call'],
  );
  for (const item of output.slice(0, 2)) assert.match(String(item.encrypted_content), /^mgw1\.anthropic\./);

  const text = streamOf('responses', 'anthropic', ANTHROPIC_SSE);
  const done = parseSseText(text)
    .map((e) => JSON.parse(e.data) as Json)
    .filter((e) => e.type === 'response.output_item.done')
    .map((e) => e.item as Json);
  assert.deepEqual(
    done.map((i) => String(i.encrypted_content ?? '').slice(0, 15)),
    ['mgw1.anthropic.', 'mgw1.anthropic.', ''],
  );
  // Either reply, sent back as Codex does (store: false, its output items in the input).
  for (const items of [output, done]) {
    const callId = String(items[2].call_id);
    const next = nextTurn('responses', items, callId);
    const toAnthropic = sent('responses', 'anthropic', next);
    assert.deepEqual(assistantContent(toAnthropic.json.messages).slice(0, 2), [
      { type: 'thinking', thinking: THINKING, signature: ANTHROPIC_SIG },
      { type: 'redacted_thinking', data: REDACTED },
    ]);
    const toGemini = sent('responses', 'gemini', next);
    assert.ok(!toGemini.text.includes('mgw1.') && !toGemini.text.includes(ANTHROPIC_SIG));
  }
});

test("Gemini's thought signature to Messages and chat callers: a token in the block's signature; back to Gemini exactly, never to Anthropic", () => {
  const reply = replyOf('anthropic', 'gemini', GEMINI_REPLY);
  const content = reply.content as Json[];
  assert.equal(content[0].type, 'thinking');
  assert.equal(content[0].thinking, THINKING);
  assert.match(String(content[0].signature), /^mgw1\.gemini\./);
  const callId = String(content[1].id);

  const streamed = streamOf('anthropic', 'gemini', GEMINI_SSE);
  const signatures = parseSseText(streamed)
    .map((e) => JSON.parse(e.data) as { delta?: { type?: string; signature?: string } })
    .filter((e) => e.delta?.type === 'signature_delta')
    .map((e) => e.delta!.signature);
  assert.deepEqual(signatures, [content[0].signature], 'one signature_delta, the token, when the block ends');

  const next = nextTurn('anthropic', content, callId);
  const toGemini = sent('anthropic', 'gemini', next);
  const model = (toGemini.json.contents as Json[]).find((c) => c.role === 'model')!;
  assert.deepEqual((model.parts as Json[])[0], { text: THINKING, thought: true, thoughtSignature: GEMINI_THOUGHT_SIG });
  const toAnthropic = sent('anthropic', 'anthropic', next);
  assert.ok(!toAnthropic.text.includes('mgw1.') && !toAnthropic.text.includes(GEMINI_THOUGHT_SIG));
  assert.match(toAnthropic.adjusted ?? '', /reasoning from another model left out of the history/);
  assert.equal(
    assistantContent(toAnthropic.json.messages).find((b) => b.type === 'thinking'),
    undefined,
    "Gemini's thought is no thinking block Anthropic could verify",
  );

  const chat = replyOf('openai', 'gemini', GEMINI_REPLY);
  const message = (chat.choices as Json[])[0].message as Json;
  const blocks = message.thinking_blocks as Json[];
  assert.equal(blocks.length, 1);
  assert.match(String(blocks[0].signature), /^mgw1\.gemini\./);
  assert.equal(message.reasoning_signature, blocks[0].signature);
  const chatStream = streamOf('openai', 'gemini', GEMINI_SSE);
  assert.ok(chatStream.includes(`"reasoning_signature":"${String(blocks[0].signature)}"`));
  const chatNext = nextTurn('openai', message, String((message.tool_calls as Json[])[0].id));
  const back = sent('openai', 'gemini', chatNext);
  assert.ok(back.text.includes(`"thoughtSignature":"${GEMINI_THOUGHT_SIG}"`));
  assert.ok(!sent('openai', 'anthropic', chatNext).text.includes('mgw1.'));
});

test("OpenAI's encrypted reasoning to Messages, chat and Gemini callers: back to a Responses upstream with its id, exactly", () => {
  const reply = replyOf('anthropic', 'responses', RESPONSES_REPLY);
  const content = reply.content as Json[];
  assert.equal(content[0].type, 'thinking');
  assert.match(String(content[0].signature), /^mgw1\.openai\./);
  const toOpenAi = sent('anthropic', 'responses', nextTurn('anthropic', content, String(content[1].id)));
  const reasoning = (toOpenAi.json.input as Json[]).find((i) => i.type === 'reasoning');
  assert.deepEqual(reasoning, {
    type: 'reasoning',
    id: 'rs_01',
    summary: [{ type: 'summary_text', text: 'Checking the weather.' }],
    encrypted_content: OPENAI_ENCRYPTED,
  });
  assert.ok(
    !sent('anthropic', 'anthropic', nextTurn('anthropic', content, String(content[1].id))).text.includes('mgw1.'),
  );

  const chat = replyOf('openai', 'responses', RESPONSES_REPLY);
  const message = (chat.choices as Json[])[0].message as Json;
  const chatNext = nextTurn('openai', message, 'call_01');
  assert.ok(sent('openai', 'responses', chatNext).text.includes(`"encrypted_content":"${OPENAI_ENCRYPTED}"`));

  const gemini = JSON.parse(
    exchange('gemini', 'responses', FIRST.gemini).json(JSON.stringify(RESPONSES_REPLY)).body,
  ) as Json;
  const parts = ((gemini.candidates as Json[])[0].content as { parts: Json[] }).parts;
  assert.match(String(parts[0].thoughtSignature), /^mgw1\.openai\./);
  const geminiNext = nextTurn('gemini', { role: 'model', parts }, 'call_01');
  assert.ok(sent('gemini', 'responses', geminiNext).text.includes(`"encrypted_content":"${OPENAI_ENCRYPTED}"`));
  assert.ok(!sent('gemini', 'anthropic', geminiNext).text.includes('mgw1.'));
});

/** A book in memory, as the gateway's database keeps it: per key and model. */
function memoryBook(): CallSignatureBook & { rows: Map<string, string> } {
  const rows = new Map<string, string>();
  return {
    rows,
    keep: async (owner: string, model: string, kept: readonly KeptSignature[]) => {
      for (const k of kept) rows.set(`${owner}|${model}|${k.callId}`, k.signature);
    },
    find: async (owner: string, model: string, ids: readonly string[]) => {
      const out = new Map<string, string>();
      for (const id of ids) {
        const s = rows.get(`${owner}|${model}|${id}`);
        if (s !== undefined) out.set(id, s);
      }
      return out;
    },
  };
}

test("a Gemini call's signature, which chat cannot carry, is kept and put back on the call on the next turn (whole and streamed)", async () => {
  for (const stream of [false, true]) {
    const book = memoryBook();
    const first = exchange('openai', 'gemini', FIRST.openai, { signatures: book, stream });
    let message: Json;
    if (stream) {
      const relay = first.stream();
      const text = String(relay.push(new TextEncoder().encode(GEMINI_SSE))) + String(relay.end());
      const call = /"tool_calls":\[\{"index":0,"id":"([^"]+)"/.exec(text)!;
      message = {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: call[1], type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        ],
      };
    } else {
      message = ((JSON.parse(first.json(JSON.stringify(GEMINI_REPLY)).body) as Json).choices as Json[])[0]
        .message as Json;
    }
    await first.kept!();
    const callId = String((message.tool_calls as Json[])[0].id);
    assert.deepEqual([...book.rows], [[`key-1|up-model|${callId}`, GEMINI_CALL_SIG]]);

    const next = nextTurn('openai', { ...message, thinking_blocks: undefined, reasoning_signature: undefined }, callId);
    const second = exchange('openai', 'gemini', next, { signatures: book });
    assert.ok(second.prepare !== undefined, 'the calls are looked up before the body is built');
    await second.prepare();
    const call = ((JSON.parse(second.upstreamBody()).contents as Json[])[1].parts as Json[]).find(
      (p) => p.functionCall !== undefined,
    )!;
    assert.equal(call.thoughtSignature, GEMINI_CALL_SIG);

    // Another key sends the same call: Google's placeholder, never this key's signature.
    const stranger = exchange('openai', 'gemini', next, { signatures: book, owner: 'key-2' });
    await stranger.prepare!();
    assert.ok(stranger.upstreamBody().includes('"thoughtSignature":"skip_thought_signature_validator"'));
  }
  // A Gemini caller carries the signature itself: nothing is kept or looked up for it.
  const book = memoryBook();
  const own = exchange('gemini', 'openai', FIRST.gemini, { signatures: book });
  assert.equal(own.prepare, undefined);
  assert.equal(own.kept, undefined);
  // Nor for an upstream that signs nothing.
  assert.equal(exchange('openai', 'anthropic', FIRST.openai, { signatures: book }).kept, undefined);
});

test("a body of each dialect passing through loses only the reasoning the gateway's tokens carry", () => {
  const gemini = carrierOf({ type: 'reasoning', text: 't', origin: 'gemini', signature: GEMINI_THOUGHT_SIG })!;
  const anthropic = carrierOf({ type: 'reasoning', text: 't', origin: 'messages', signature: ANTHROPIC_SIG })!;
  const messages: Json = {
    messages: [
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 't', signature: gemini },
          { type: 'thinking', thinking: THINKING, signature: ANTHROPIC_SIG },
          { type: 'text', text: 'a' },
        ],
      },
    ],
  };
  assert.equal(CLIENT_SIDES.anthropic.dropCarriedReasoning!(messages), 1);
  assert.deepEqual((messages.messages as Json[])[1].content, [
    { type: 'thinking', thinking: THINKING, signature: ANTHROPIC_SIG },
    { type: 'text', text: 'a' },
  ]);

  const responses: Json = {
    input: [
      { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: anthropic },
      { type: 'reasoning', id: 'rs_2', summary: [], encrypted_content: OPENAI_ENCRYPTED },
      { role: 'user', content: 'q' },
    ],
  };
  assert.equal(CLIENT_SIDES.responses.dropCarriedReasoning!(responses), 1);
  assert.deepEqual(
    (responses.input as Json[]).map((i) => i.id ?? i.role),
    ['rs_2', 'user'],
  );

  const geminiBody: Json = {
    contents: [
      { role: 'user', parts: [{ text: 'q' }] },
      { role: 'model', parts: [{ text: 't', thought: true, thoughtSignature: anthropic }] },
      { role: 'user', parts: [{ text: 'more' }] },
      {
        role: 'model',
        parts: [
          { text: 'x', thought: true, thoughtSignature: anthropic },
          { functionCall: { name: 'f', args: {} }, thoughtSignature: GEMINI_CALL_SIG },
        ],
      },
    ],
  };
  assert.equal(CLIENT_SIDES.gemini.dropCarriedReasoning!(geminiBody), 2);
  assert.deepEqual(geminiBody.contents, [
    { role: 'user', parts: [{ text: 'q' }] },
    { role: 'user', parts: [{ text: 'more' }] },
    { role: 'model', parts: [{ functionCall: { name: 'f', args: {} }, thoughtSignature: GEMINI_CALL_SIG }] },
  ]);

  const chat: Json = {
    messages: [
      {
        role: 'assistant',
        content: 'a',
        reasoning_signature: gemini,
        thinking_blocks: [{ type: 'thinking', thinking: 't', signature: gemini }],
      },
      {
        role: 'assistant',
        content: 'b',
        reasoning_signature: ANTHROPIC_SIG,
        thinking_blocks: [{ type: 'thinking', thinking: THINKING, signature: ANTHROPIC_SIG }],
      },
    ],
  };
  assert.equal(CLIENT_SIDES.openai.dropCarriedReasoning!(chat), 2);
  assert.deepEqual(chat.messages, [
    { role: 'assistant', content: 'a' },
    {
      role: 'assistant',
      content: 'b',
      reasoning_signature: ANTHROPIC_SIG,
      thinking_blocks: [{ type: 'thinking', thinking: THINKING, signature: ANTHROPIC_SIG }],
    },
  ]);
});

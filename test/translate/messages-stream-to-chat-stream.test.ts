// Anthropic upstream stream → OpenAI chat chunks: golden SSE text, tool indexes, JSON mode, usage, errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SseDecoder } from '../../src/core/sse.ts';
import { MessagesStreamToChatStream } from './hub-pairs.ts';
import { plainTextDelta } from '../../src/dialects/anthropic-messages/plain-text-delta.ts';
import type { MessagesStreamToChatOptions } from './hub-pairs.ts';
import { parseSseText, validateChatCompletionChunk, validateOpenAIError } from '../helpers/schemas.ts';
import { assertGolden, readFixture } from './golden.ts';

const BASE = { model: 'claude-sonnet-4-5', created: 1723031665 };

function run(
  fixture: string,
  opts: Partial<MessagesStreamToChatOptions> = {},
): { text: string; t: MessagesStreamToChatStream } {
  const t = new MessagesStreamToChatStream({ ...BASE, includeUsage: false, ...opts });
  const decoder = new SseDecoder();
  let text = '';
  for (const ev of decoder.push(readFixture(`anthropic-upstream/${fixture}`))) text += t.push(ev);
  for (const ev of decoder.end()) text += t.push(ev);
  return { text: text + t.end(), t };
}

function chunks(text: string): Array<Record<string, unknown>> {
  const events = parseSseText(text);
  assert.equal(events.at(-1)?.data, '[DONE]', 'stream ends with [DONE]');
  for (const ev of events) assert.equal(ev.event, undefined, 'chat chunks carry no event: line');
  return events.slice(0, -1).map((ev) => JSON.parse(ev.data) as Record<string, unknown>);
}

test('text then two tools: tool indexes 0 and 1 (not offset by the text block), a parameterless tool gets "{}" when its block ends, as in a whole reply', () => {
  const { text, t } = run('text-then-two-tools.sse', { includeUsage: true });
  assertGolden('anthropic-upstream/text-then-two-tools.chat.sse', text);
  const list = chunks(text);
  for (const c of list) validateChatCompletionChunk(c);
  const calls = new Map<number, { id: string; name: string; args: string }>();
  let content = '';
  for (const c of list) {
    for (const choice of c.choices as Array<{
      delta: {
        content?: string;
        tool_calls?: Array<{ index: number; id?: string; function?: { name?: string; arguments?: string } }>;
      };
    }>) {
      content += choice.delta.content ?? '';
      for (const tc of choice.delta.tool_calls ?? []) {
        const cur = calls.get(tc.index) ?? { id: '', name: '', args: '' };
        cur.id ||= tc.id ?? '';
        cur.name ||= tc.function?.name ?? '';
        cur.args += tc.function?.arguments ?? '';
        calls.set(tc.index, cur);
      }
    }
  }
  assert.equal(content, 'Let me check.');
  assert.deepEqual([...calls.keys()], [0, 1]);
  assert.deepEqual(calls.get(0), { id: 'toolu_01A', name: 'get_weather', args: '{"city": "Paris"}' });
  assert.deepEqual(calls.get(1), { id: 'toolu_01B', name: 'get_time', args: '{}' });
  const finish = list.at(-2) as { choices: Array<{ finish_reason: string }> };
  assert.equal(finish.choices[0].finish_reason, 'tool_calls');
  const usage = list.at(-1) as { choices: unknown[]; usage: Record<string, unknown> };
  assert.deepEqual(usage.choices, []);
  assert.deepEqual(usage.usage, {
    prompt_tokens: 132,
    completion_tokens: 42,
    total_tokens: 174,
    prompt_tokens_details: { cached_tokens: 100 },
  });
  assert.deepEqual(t.usage, { inputTokens: 25, outputTokens: 42, cacheReadTokens: 100, cacheWriteTokens: 7 });
  assert.equal(t.finished, true);
  assert.equal(t.failed, false);
  for (const c of list.slice(0, -1)) assert.equal(c.usage, null, 'usage: null on every chunk before the usage chunk');
});

test('every chunk has the same id, created and the client model', () => {
  const list = chunks(run('text-then-two-tools.sse').text);
  assert.ok(String(list[0].id).startsWith('chatcmpl-'));
  for (const c of list) {
    assert.equal(c.id, list[0].id);
    assert.equal(c.created, BASE.created);
    assert.equal(c.model, 'claude-sonnet-4-5');
    assert.equal(c.object, 'chat.completion.chunk');
  }
});

test('without includeUsage there is no usage chunk and no usage key', () => {
  const list = chunks(run('text-then-two-tools.sse').text);
  for (const c of list) {
    assert.equal('usage' in c, false);
    assert.equal((c.choices as unknown[]).length, 1);
  }
});

test('JSON mode: the forced tool input streams as content and finish_reason is stop', () => {
  const { text } = run('json-mode.sse', { jsonMode: { toolName: 'json_response', wrapKey: null } });
  assertGolden('anthropic-upstream/json-mode.chat.sse', text);
  const list = chunks(text);
  let content = '';
  for (const c of list) {
    validateChatCompletionChunk(c);
    const delta = (c.choices as Array<{ delta: { content?: string; tool_calls?: unknown } }>)[0].delta;
    assert.equal(delta.tool_calls, undefined);
    content += delta.content ?? '';
  }
  assert.deepEqual(JSON.parse(content), { name: 'Ada', age: 36 });
  assert.equal((list.at(-1) as { choices: Array<{ finish_reason: string }> }).choices[0].finish_reason, 'stop');
});

test('thinking streams as reasoning_content (+ signature), max_tokens → length', () => {
  const { text } = run('thinking.sse');
  assertGolden('anthropic-upstream/thinking.chat.sse', text);
  const list = chunks(text);
  const deltas = list.map((c) => (c.choices as Array<{ delta: Record<string, unknown> }>)[0].delta);
  assert.deepEqual(deltas[1], { reasoning_content: '2+2 is 4.' });
  assert.deepEqual(deltas[2], { reasoning_signature: 'EqQBsig' });
  assert.deepEqual(deltas[3], { content: '4' });
  assert.equal((list.at(-1) as { choices: Array<{ finish_reason: string }> }).choices[0].finish_reason, 'length');
});

test('an Anthropic error event becomes a data: {"error":…} chunk, then [DONE], and later events are ignored', () => {
  const t = new MessagesStreamToChatStream({ ...BASE, includeUsage: true });
  const decoder = new SseDecoder();
  let text = '';
  for (const ev of decoder.push(readFixture('anthropic-upstream/error-midstream.sse'))) text += t.push(ev);
  assert.equal(t.push({ event: 'message_stop', data: '{"type":"message_stop"}' }), '');
  assert.equal(t.end(), '');
  assertGolden('anthropic-upstream/error-midstream.chat.sse', text);
  const events = parseSseText(text);
  const err = JSON.parse(events.at(-2)?.data ?? '') as { error: Record<string, unknown> };
  validateOpenAIError(err);
  assert.equal(err.error.message, 'Overloaded');
  assert.equal(err.error.code, 'overloaded_error');
  assert.equal(events.at(-1)?.data, '[DONE]');
  assert.equal(t.failed, true);
});

test('an upstream that stops before message_stop ends with an error chunk and [DONE]', () => {
  const { text, t } = run('cut.sse');
  const events = parseSseText(text);
  assert.equal(events.at(-1)?.data, '[DONE]');
  const err = JSON.parse(events.at(-2)?.data ?? '') as { error: { message: string; type: string } };
  validateOpenAIError(err);
  assert.match(err.error.message, /ended before message_stop/);
  assert.equal(err.error.type, 'server_error');
  assert.equal(t.failed, true);
  assert.equal(t.finished, true);
});

test('malformed upstream data becomes an error chunk', () => {
  const t = new MessagesStreamToChatStream({ ...BASE, includeUsage: false });
  const out = t.push({ event: 'message_start', data: '{not json' });
  assert.match(out, /^data: \{"error":/);
  assert.ok(out.endsWith('data: [DONE]\n\n'));
});

test('input_json_delta fragments whose bytes are split inside multibyte characters arrive intact as tool arguments', () => {
  const events = [
    {
      type: 'message_start',
      message: {
        id: 'msg_u',
        type: 'message',
        role: 'assistant',
        model: 'c',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 9, output_tokens: 1 },
      },
    },
    {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'tool_use', id: 'toolu_u', name: 'geo', input: {} },
    },
    { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"city": "Zü' } },
    {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'input_json_delta', partial_json: 'rich", "note": "雪 ❄"}' },
    },
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 7 } },
    { type: 'message_stop' },
  ];
  const sse = events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join('');
  const bytes = Buffer.from(sse);
  const cuts = ['ü', '雪', '❄'].map((ch) => bytes.indexOf(Buffer.from(ch)) + 1).sort((a, b) => a - b);
  const t = new MessagesStreamToChatStream({ ...BASE, includeUsage: false });
  const decoder = new SseDecoder();
  let text = '';
  let prev = 0;
  for (const cut of [...cuts, bytes.length]) {
    for (const ev of decoder.push(new Uint8Array(bytes.subarray(prev, cut)))) text += t.push(ev);
    prev = cut;
  }
  text += t.end();
  let args = '';
  for (const c of chunks(text)) {
    for (const tc of (c.choices as Array<{ delta: { tool_calls?: Array<{ function?: { arguments?: string } }> } }>)[0]
      .delta.tool_calls ?? []) {
      args += tc.function?.arguments ?? '';
    }
  }
  assert.deepEqual(JSON.parse(args), { city: 'Zürich', note: '雪 ❄' });
  assert.equal(text.includes('\uFFFD'), false, 'no replacement characters');
});

test('the plain text_delta fast path takes only the exact API shape without escapes', () => {
  const ev = (index: string, text: string, tail = '}}'): string =>
    `{"type":"content_block_delta","index":${index},"delta":{"type":"text_delta","text":${text}${tail}`;
  const table: Array<[string, { index: number; quoted: string } | null]> = [
    [ev('0', '"Hello"'), { index: 0, quoted: '"Hello"' }],
    [ev('12', '"héllo 東京"'), { index: 12, quoted: '"héllo 東京"' }],
    [ev('1', '""'), { index: 1, quoted: '""' }],
    [ev('0', '"say \\"hi\\""'), null],
    [ev('0', '"a\\nb"'), null],
    [ev('0', '"tab\there"'), null],
    [ev('0', '"x"', '},"extra":1}'), null],
    [ev('x', '"x"'), null],
    [ev('', '"x"'), null],
    ['{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"x"}}', null],
    ['{"type": "content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}', null],
  ];
  for (const [data, want] of table) assert.deepEqual(plainTextDelta(data), want, data);
});

test('plain text deltas translate exactly as the general path translates the same events', () => {
  const texts = ['Hel', 'lo, ', 'wörld', '', '東京', '!'];
  const compact = texts.map(
    (t) => `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":${JSON.stringify(t)}}}`,
  );
  const spaced = compact.map((d) => d.replace('"text":', '"text": '));
  const sse = (deltas: string[]): string =>
    [
      [
        'message_start',
        '{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":9,"output_tokens":1}}}',
      ],
      ['content_block_start', '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}'],
      ...deltas.map((d) => ['content_block_delta', d]),
      [
        'content_block_delta',
        '{"type":"content_block_delta","index":7,"delta":{"type":"text_delta","text":"no such block"}}',
      ],
      ['content_block_stop', '{"type":"content_block_stop","index":0}'],
      [
        'message_delta',
        '{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":6}}',
      ],
      ['message_stop', '{"type":"message_stop"}'],
    ]
      .map(([event, data]) => `event: ${event}\ndata: ${data}\n\n`)
      .join('');
  assert.ok(compact.every((d) => plainTextDelta(d) !== null) && spaced.every((d) => plainTextDelta(d) === null));
  for (const includeUsage of [false, true]) {
    const outputs = [compact, spaced].map((deltas) => {
      const t = new MessagesStreamToChatStream({ ...BASE, includeUsage });
      const decoder = new SseDecoder();
      let text = '';
      for (const e of decoder.push(sse(deltas))) text += t.push(e);
      for (const e of decoder.end()) text += t.push(e);
      return (text + t.end()).replace(/chatcmpl-[A-Za-z0-9]+/g, 'chatcmpl-X');
    });
    assert.equal(outputs[0], outputs[1]);
    const content = chunks(outputs[0])
      .map((c) => (c.choices as Array<{ delta: { content?: string } }>)[0]?.delta.content ?? '')
      .join('');
    assert.equal(content, 'Hello, wörld東京!');
  }
});

/** An Anthropic stream from literal events: text blocks and tool_use blocks with their input fragments. */
function anthropicStream(
  blocks: Array<{ text: string } | { tool: string; fragments: string[] }>,
  stopReason: string,
): string {
  const ev = (type: string, body: Record<string, unknown>): string =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...body })}\n\n`;
  let out = ev('message_start', {
    message: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'm',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 5, output_tokens: 1 },
    },
  });
  blocks.forEach((b, index) => {
    if ('text' in b) {
      out += ev('content_block_start', { index, content_block: { type: 'text', text: '' } });
      out += ev('content_block_delta', { index, delta: { type: 'text_delta', text: b.text } });
    } else {
      out += ev('content_block_start', {
        index,
        content_block: { type: 'tool_use', id: `toolu_${index}`, name: b.tool, input: {} },
      });
      for (const partial_json of b.fragments)
        out += ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } });
    }
    out += ev('content_block_stop', { index });
  });
  out += ev('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 9 } });
  return out + ev('message_stop', {});
}

function streamed(
  sse: string,
  jsonMode: MessagesStreamToChatOptions['jsonMode'],
): { content: string; calls: Array<[string, string]>; finish: string } {
  const t = new MessagesStreamToChatStream({ ...BASE, includeUsage: false, jsonMode });
  let text = '';
  for (const ev of new SseDecoder().push(sse)) text += t.push(ev);
  text += t.end();
  let content = '';
  const calls: Array<[string, string]> = [];
  let finish = '';
  for (const c of chunks(text)) {
    validateChatCompletionChunk(c);
    const choice = (
      c.choices as Array<{
        delta: {
          content?: string;
          tool_calls?: Array<{ index: number; function: { name?: string; arguments?: string } }>;
        };
        finish_reason: string | null;
      }>
    )[0];
    content += choice.delta.content ?? '';
    for (const tc of choice.delta.tool_calls ?? []) {
      calls[tc.index] ??= ['', ''];
      calls[tc.index][0] += tc.function.name ?? '';
      calls[tc.index][1] += tc.function.arguments ?? '';
    }
    finish = choice.finish_reason ?? finish;
  }
  return { content, calls, finish };
}

test('JSON mode with a non-object schema: the wrapper comes off as the value streams, whatever the fragment bounds', () => {
  const wrapped = '{ "value" : [1, {"a": {"b": "}"}}, 3]  }';
  const bounds = [[wrapped], wrapped.split(''), ['{"val', 'ue": [1, {"a": {"b": "}"}}, 3]', '  }']];
  for (const fragments of bounds) {
    const out = streamed(anthropicStream([{ tool: 'json_response', fragments }], 'tool_use'), {
      toolName: 'json_response',
      wrapKey: 'value',
    });
    assert.deepEqual(JSON.parse(out.content), [1, { a: { b: '}' } }, 3], out.content);
    assert.equal(out.finish, 'stop');
  }
});

test('JSON mode: text around the JSON tool is dropped, as in the whole reply; without the tool the text is the reply', () => {
  const mode = { toolName: 'json_response', wrapKey: null };
  const withTool = streamed(
    anthropicStream([{ text: 'Here is the JSON:' }, { tool: 'json_response', fragments: ['{"a": 1}'] }], 'tool_use'),
    mode,
  );
  assert.deepEqual(JSON.parse(withTool.content), { a: 1 });
  const textOnly = streamed(anthropicStream([{ text: 'I cannot answer in JSON.' }], 'end_turn'), mode);
  assert.equal(textOnly.content, 'I cannot answer in JSON.');
  // The client's own tool next to JSON mode is still a tool call, with "{}" when it takes no input.
  const ownTool = streamed(
    anthropicStream([{ text: 'Checking.' }, { tool: 'get_time', fragments: [''] }], 'tool_use'),
    mode,
  );
  assert.deepEqual(ownTool.calls, [['get_time', '{}']]);
  assert.equal(ownTool.content, 'Checking.');
  assert.equal(ownTool.finish, 'tool_calls');
});

test("a stream cut before message_delta bills what was delivered (about 4 characters a token), not message_start's 1", () => {
  const full = anthropicStream(
    [{ text: 'x'.repeat(400) }, { tool: 'f', fragments: ['{"a":"', 'y'.repeat(192), '"}'] }],
    'tool_use',
  );
  const cut = full.slice(0, full.indexOf('event: message_delta'));
  const t = new MessagesStreamToChatStream({ ...BASE, includeUsage: false });
  for (const ev of new SseDecoder().push(cut)) t.push(ev);
  t.end();
  assert.equal(t.usage.inputTokens, 5);
  assert.equal(t.usage.outputTokens, 150, '400 text + 200 argument characters');
  // The upstream's own count wins once it came.
  const whole = new MessagesStreamToChatStream({ ...BASE, includeUsage: false });
  for (const ev of new SseDecoder().push(full)) whole.push(ev);
  assert.equal(whole.usage.outputTokens, 9);
});

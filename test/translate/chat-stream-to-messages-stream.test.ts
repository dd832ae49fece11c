// OpenAI upstream stream → Anthropic events: golden SSE text, block indexes, UTF-8 splits, usage, errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SseDecoder } from '../../src/core/sse.ts';
import { ChatStreamToMessagesStream } from './hub-pairs.ts';
import { plainContentDelta } from '../../src/dialects/openai-chat/plain-content-delta.ts';
import type { ChatStreamToMessagesOptions } from './hub-pairs.ts';
import { parseSseText } from '../helpers/schemas.ts';
import { rebuildAnthropic } from './anthropic-stream-check.ts';
import { assertGolden, readFixture } from './golden.ts';

const BASE = { model: 'claude-sonnet-4-5', inputTokens: 137 };

function feed(t: ChatStreamToMessagesStream, chunks: Array<string | Uint8Array>): string {
  const decoder = new SseDecoder();
  let text = '';
  for (const c of chunks) for (const ev of decoder.push(c)) text += t.push(ev);
  for (const ev of decoder.end()) text += t.push(ev);
  return text + t.end();
}

function run(
  fixture: string,
  opts: Partial<ChatStreamToMessagesOptions> = {},
): { text: string; t: ChatStreamToMessagesStream } {
  const t = new ChatStreamToMessagesStream({ ...BASE, ...opts });
  return { text: feed(t, [readFixture(`openai-upstream/${fixture}`)]), t };
}

test('text then two tools: blocks 0 text, 1 and 2 tool_use; estimated input in message_start, real one in message_delta', () => {
  const { text, t } = run('text-then-tools.sse');
  assertGolden('openai-upstream/text-then-tools.messages.sse', text);
  const m = rebuildAnthropic(parseSseText(text));
  assert.ok(m.id.startsWith('msg_'));
  assert.equal(m.model, 'claude-sonnet-4-5');
  assert.deepEqual(
    m.blocks.map((b) => [b.type, b.text ?? b.name, b.id, b.json]),
    [
      ['text', 'Let me check.', undefined, undefined],
      ['tool_use', 'get_weather', 'call_a', '{"city":"Paris"}'],
      ['tool_use', 'get_time', 'call_b', '{}'],
    ],
  );
  assert.equal(m.startUsage.input_tokens, 137);
  assert.equal(m.stopReason, 'tool_use');
  assert.equal(m.deltaUsage?.input_tokens, 40);
  assert.equal(m.deltaUsage?.cache_read_input_tokens, 100);
  assert.equal(m.deltaUsage?.output_tokens, 33);
  assert.equal(m.stopped, true);
  assert.deepEqual(t.usage, { inputTokens: 40, outputTokens: 33, cacheReadTokens: 100, cacheWriteTokens: 0 });
});

test('interleaved parallel tool calls: the second is buffered until the first is complete; nothing lost or duplicated', () => {
  const { text, t } = run('interleaved-parallel.sse');
  assertGolden('openai-upstream/interleaved-parallel.messages.sse', text);
  const m = rebuildAnthropic(parseSseText(text));
  assert.deepEqual(
    m.blocks.map((b) => [b.type, b.id, JSON.parse(b.json ?? '')]),
    [
      ['tool_use', 'call_a', { city: 'Paris' }],
      ['tool_use', 'call_b', { city: 'Oslo' }],
    ],
  );
  assert.equal(m.stopReason, 'tool_use');
  assert.equal(t.lateFragments, 0);
  // No usage chunk upstream: output tokens are estimated, never reported as zero input.
  assert.equal(m.deltaUsage?.input_tokens, 137);
  assert.ok(Number(m.deltaUsage?.output_tokens) > 0);
});

test('input_json_delta with a multibyte character split across TCP chunks arrives intact', () => {
  const args = '{"city":"Zürich","note":"雪 ❄"}';
  const sse =
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { role: 'assistant', tool_calls: [{ index: 0, id: 'call_u', type: 'function', function: { name: 'geo', arguments: '' } }] }, finish_reason: null }] })}\n\n` +
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: args } }] }, finish_reason: null }] })}\n\n` +
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] })}\n\ndata: [DONE]\n\n`;
  const bytes = new TextEncoder().encode(sse);
  // Split inside every multibyte character: ü (2 bytes), 雪 (3), ❄ (3).
  const cuts: number[] = [];
  for (const ch of ['ü', '雪', '❄']) {
    const at = Buffer.from(sse).indexOf(Buffer.from(ch));
    assert.ok(at > 0);
    cuts.push(at + 1);
  }
  const pieces: Uint8Array[] = [];
  let prev = 0;
  for (const cut of cuts.sort((a, b) => a - b)) {
    pieces.push(bytes.subarray(prev, cut));
    prev = cut;
  }
  pieces.push(bytes.subarray(prev));
  const t = new ChatStreamToMessagesStream(BASE);
  const m = rebuildAnthropic(parseSseText(feed(t, pieces)));
  assert.equal(m.blocks[0].json, args);
  assert.deepEqual(JSON.parse(m.blocks[0].json ?? ''), { city: 'Zürich', note: '雪 ❄' });
});

test('reasoning becomes a thinking block before the text; vLLM stop_reason names the stop sequence', () => {
  const { text } = run('reasoning.sse', { stopSequences: ['###', 'END'] });
  assertGolden('openai-upstream/reasoning.messages.sse', text);
  const m = rebuildAnthropic(parseSseText(text));
  assert.deepEqual(
    m.blocks.map((b) => [b.type, b.thinking ?? b.text]),
    [
      ['thinking', 'Thinking.'],
      ['text', 'Answer ###'],
    ],
  );
  assert.equal(m.stopReason, 'stop_sequence');
  assert.equal(m.stopSequence, '###');
  assert.equal(m.deltaUsage?.input_tokens, 20);
  assert.equal(m.deltaUsage?.output_tokens, 9);
});

test('message_start reports the given input tokens, never 0', () => {
  const t = new ChatStreamToMessagesStream({ model: 'claude-x', inputTokens: 0 });
  const out = t.push({
    event: undefined,
    data: '{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}',
  });
  const ev = parseSseText(out)[0];
  assert.equal(ev.event, 'message_start');
  assert.equal((JSON.parse(ev.data) as { message: { usage: { input_tokens: number } } }).message.usage.input_tokens, 1);
});

test('a stream cut before finish_reason becomes event: error and the stream ends', () => {
  const { text, t } = run('cut.sse');
  assertGolden('openai-upstream/cut.messages.sse', text);
  const m = rebuildAnthropic(parseSseText(text));
  assert.equal(m.stopped, false);
  assert.equal(m.error?.type, 'api_error');
  assert.match(m.error?.message ?? '', /ended before completion/);
  assert.equal(t.failed, true);
  assert.equal(t.push({ event: undefined, data: '[DONE]' }), '');
});

test('a finish_reason without [DONE] still ends normally', () => {
  const t = new ChatStreamToMessagesStream(BASE);
  const text = feed(t, [
    'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":"length"}]}\n\n',
  ]);
  const m = rebuildAnthropic(parseSseText(text));
  assert.equal(m.stopped, true);
  assert.equal(m.stopReason, 'max_tokens');
});

test('an upstream error chunk mid-stream becomes an Anthropic error event with the text preserved', () => {
  const { text } = run('error-midstream.sse');
  const m = rebuildAnthropic(parseSseText(text));
  assert.equal(m.error?.type, 'api_error');
  assert.equal(m.error?.message, 'The server had an error while processing your request.');
  assert.equal(parseSseText(text).at(-1)?.event, 'error');
});

const chunk = (choice: string, extra = ''): string =>
  `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m"${extra},"choices":[${choice}]}`;

test('the plain-text chunk fast path takes only a lone choice-0 content delta without escapes', () => {
  const table: Array<[string, string | null]> = [
    [chunk('{"index":0,"delta":{"content":"Hello"},"logprobs":null,"finish_reason":null}'), '"Hello"'],
    [chunk('{"index":0,"delta":{"content":"héllo 東京"},"finish_reason":null}', ',"usage":null'), '"héllo 東京"'],
    [chunk('{"delta":{"content":""},"index":0}'), '""'],
    [chunk('{"index":0,"delta":{"content":"say \\"hi\\""},"finish_reason":null}'), null],
    [chunk('{"index":0,"delta":{"content":"a\\nb"},"finish_reason":null}'), null],
    [chunk('{"index":0,"delta":{"content":"tab\there"},"finish_reason":null}'), null],
    [chunk('{"index":0,"delta":{"role":"assistant","content":"x"},"finish_reason":null}'), null],
    [chunk('{"index":0,"delta":{"content":"x","reasoning_content":null},"finish_reason":null}'), null],
    [chunk('{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}'), null],
    [chunk('{"index":0,"delta":{"content":"x"},"finish_reason":null}', ',"usage":{"prompt_tokens":1}'), null],
    [chunk('{"index":1,"delta":{"content":"x"},"finish_reason":null}'), null],
    [chunk('{"index":10,"delta":{"content":"x"},"finish_reason":null}'), null],
    [
      chunk(
        '{"index":0,"delta":{"content":"x"},"finish_reason":null},{"index":1,"delta":{"content":"y"},"finish_reason":null}',
      ),
      null,
    ],
    [chunk('{"index":0,"delta":{"content":"x"},"finish_reason":null}', ',"error":null'), null],
    [chunk('{"index":0,"delta":{"content": "x"},"finish_reason":null}'), null],
    [chunk('{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}}'), null],
  ];
  for (const [raw, want] of table) assert.equal(plainContentDelta(raw), want, raw);
});

test('a stream of plain chunks translates exactly as the general path translates the same chunks', () => {
  // The same stream twice: compact chunks take the fast path, the spaced ones ("delta": {…}) the parser.
  const texts = ['Hel', 'lo, ', 'wörld', '', '東京', '!'];
  const compact = texts.map((t) =>
    chunk(`{"index":0,"delta":{"content":${JSON.stringify(t)}},"logprobs":null,"finish_reason":null}`),
  );
  const spaced = compact.map((c) => c.replace('"delta":{', '"delta": {'));
  const sse = (chunks: string[]): string =>
    [
      chunk('{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}'),
      ...chunks,
      chunk('{"index":0,"delta":{},"finish_reason":"stop"}'),
      chunk('', ',"usage":{"prompt_tokens":9,"completion_tokens":6,"total_tokens":15}'),
    ]
      .map((d) => `data: ${d}\n\n`)
      .join('') + 'data: [DONE]\n\n';
  assert.ok(compact.every((c) => plainContentDelta(c) !== null) && spaced.every((c) => plainContentDelta(c) === null));
  const fast = new ChatStreamToMessagesStream({ ...BASE, stopSequences: ['ld!'] });
  const general = new ChatStreamToMessagesStream({ ...BASE, stopSequences: ['ld!'] });
  const id = /msg_[A-Za-z0-9]+/g;
  const a = feed(fast, [sse(compact)]).replace(id, 'msg_X');
  const b = feed(general, [sse(spaced)]).replace(id, 'msg_X');
  assert.equal(a, b);
  assert.deepEqual(fast.usage, general.usage);
  const m = rebuildAnthropic(parseSseText(a));
  assert.equal(m.blocks[0].text, 'Hello, wörld東京!');
});

/** One upstream chunk for choice 0 with this delta (and finish reason). */
function sseChunk(delta: Record<string, unknown>, finish: string | null = null): string {
  return `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}
const toolFrag = (index: number, fn: Record<string, unknown>, id?: string): Record<string, unknown> => ({
  tool_calls: [{ index, ...(id === undefined ? {} : { id, type: 'function' }), function: fn }],
});

test('text or reasoning arriving while a tool call is incomplete is held until the call completes; no argument is lost', () => {
  const cases: Array<{ label: string; chunks: string[]; blocks: Array<[string, string]> }> = [
    {
      label: 'text between argument fragments',
      chunks: [
        sseChunk(toolFrag(0, { name: 'get_weather', arguments: '{"city":' }, 'call_a')),
        sseChunk({ content: ' ' }),
        sseChunk(toolFrag(0, { arguments: '"Oslo"}' })),
        sseChunk({ content: 'Done.' }),
        sseChunk({}, 'tool_calls'),
      ],
      blocks: [
        ['tool_use', '{"city":"Oslo"}'],
        ['text', ' Done.'],
      ],
    },
    {
      label: 'reasoning between the fragments of a buffered parallel call',
      chunks: [
        sseChunk(toolFrag(0, { name: 'a', arguments: '{"x":' }, 'call_a')),
        sseChunk(toolFrag(1, { name: 'b', arguments: '{"y":' }, 'call_b')),
        sseChunk({ reasoning_content: 'hmm' }),
        sseChunk(toolFrag(0, { arguments: '1}' })),
        sseChunk(toolFrag(1, { arguments: '2}' })),
        sseChunk({}, 'tool_calls'),
      ],
      blocks: [
        ['tool_use', '{"x":1}'],
        ['tool_use', '{"y":2}'],
        ['thinking', 'hmm'],
      ],
    },
    {
      label: 'a call that never completes: held text follows it at the finish',
      chunks: [
        sseChunk(toolFrag(0, { name: 'a', arguments: '{"x":' }, 'call_a')),
        sseChunk({ content: 'tail' }),
        sseChunk({}, 'tool_calls'),
      ],
      blocks: [
        ['tool_use', '{"x":'],
        ['text', 'tail'],
      ],
    },
  ];
  for (const { label, chunks, blocks } of cases) {
    const t = new ChatStreamToMessagesStream(BASE);
    const m = rebuildAnthropic(parseSseText(feed(t, [...chunks, 'data: [DONE]\n\n'])));
    assert.deepEqual(
      m.blocks.map((b) => [b.type, b.type === 'tool_use' ? (b.json ?? '') : (b.text ?? b.thinking ?? '')]),
      blocks,
      label,
    );
    assert.equal(t.lateFragments, 0, label);
    assert.equal(m.stopReason, 'tool_use', label);
    assert.equal(m.stopped, true, label);
  }
});

test('a tool call whose name arrives after its first fragment starts once the name is known', () => {
  const t = new ChatStreamToMessagesStream(BASE);
  const text = feed(t, [
    sseChunk({ content: 'Checking.' }),
    sseChunk(toolFrag(0, { arguments: '' }, 'call_a')),
    sseChunk({ content: ' More.' }),
    sseChunk(toolFrag(0, { name: 'get_weather', arguments: '{"city":"Oslo"}' })),
    sseChunk({}, 'tool_calls'),
    'data: [DONE]\n\n',
  ]);
  const m = rebuildAnthropic(parseSseText(text));
  assert.deepEqual(
    m.blocks.map((b) => [b.type, b.name ?? b.text, b.json]),
    // Text while the call waits for its name goes on in the open text block: nothing is lost or reordered
    // after the call, and the client keeps receiving text.
    [
      ['text', 'Checking. More.', undefined],
      ['tool_use', 'get_weather', '{"city":"Oslo"}'],
    ],
  );
});

test('a stream cut while the model reasons bills the reasoning delivered, not zero output', () => {
  const t = new ChatStreamToMessagesStream(BASE);
  feed(t, [sseChunk({ reasoning_content: 'r'.repeat(300) }), sseChunk({ reasoning_content: 'r'.repeat(100) })]);
  assert.equal(t.usage.inputTokens, 137);
  assert.equal(t.usage.outputTokens, 100);
});

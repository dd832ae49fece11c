// SSE framing (LF, CRLF, CR, split chunks, split UTF-8) and the pass-through tap on literal streams.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SseDecoder } from '../../src/core/sse.ts';
import { PassthroughStreamTap } from '../../src/dialects/passthrough-tap.ts';

/** Everything the tap forwards for these pieces of upstream bytes, as text. */
function through(tap: PassthroughStreamTap, ...pieces: Uint8Array[]): string {
  return Buffer.concat([...pieces.map((p) => tap.push(p)), tap.end()]).toString('utf8');
}

test('decoder handles every line ending, comments, multi-line data and bytes split anywhere', () => {
  const text = 'event: a\r\ndata: {"x":"é"}\r\n\r\n: comment\n\ndata: 1\ndata: 2\n\nevent: b\rdata: z\r\r';
  const bytes = Buffer.from(text);
  for (let cut = 1; cut < bytes.length; cut++) {
    const d = new SseDecoder();
    const evs = [...d.push(bytes.subarray(0, cut)), ...d.push(bytes.subarray(cut)), ...d.end()];
    assert.deepEqual(
      evs,
      [
        { event: 'a', data: '{"x":"é"}' },
        { event: undefined, data: '1\n2' },
        { event: 'b', data: 'z' },
      ],
      `cut at ${cut}`,
    );
  }
});

const openaiStream = [
  'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"up","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}],"usage":null}\n\n',
  'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"up","choices":[{"index":0,"delta":{"content":"Hé"},"finish_reason":null}],"usage":null}\n\n',
  'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"up","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":null}\n\n',
  'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"up","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":2,"total_tokens":9,"prompt_tokens_details":{"cached_tokens":3}}}\n\n',
  'data: [DONE]\n\n',
].join('');

test('OpenAI tap: model rewritten, usage read, usage chunk stripped when the client did not ask', () => {
  const bytes = Buffer.from(openaiStream);
  for (let cut = 0; cut <= bytes.length; cut++) {
    const tap = new PassthroughStreamTap({
      dialect: 'openai',
      clientModel: 'mine',
      upstreamModel: 'up',
      stripUsageChunk: true,
    });
    const out = through(tap, bytes.subarray(0, cut), bytes.subarray(cut));
    assert.ok(!out.includes('"model":"up"'));
    assert.ok(!out.includes('"usage":{'), 'usage chunk stripped');
    assert.ok(out.endsWith('data: [DONE]\n\n'));
    assert.equal(out.split('\n\n').length - 1, 4, 'four events remain, each still framed');
    assert.deepEqual(tap.usage, { inputTokens: 4, outputTokens: 2, cacheReadTokens: 3, cacheWriteTokens: 0 });
    assert.ok(tap.finished);
  }
  const keep = new PassthroughStreamTap({
    dialect: 'openai',
    clientModel: 'up',
    upstreamModel: 'up',
    stripUsageChunk: false,
  });
  assert.equal(through(keep, Buffer.from(openaiStream)), openaiStream, 'unchanged bytes when nothing is to change');
});

test('OpenAI tap: a stream complete but for [DONE] (finish_reason and usage came) ends with the terminator', () => {
  const noDone = openaiStream.replace('data: [DONE]\n\n', '');
  const bytes = Buffer.from(noDone);
  for (let cut = 0; cut <= bytes.length; cut++) {
    const tap = new PassthroughStreamTap({
      dialect: 'openai',
      clientModel: 'mine',
      upstreamModel: 'up',
      stripUsageChunk: false,
    });
    const out = through(tap, bytes.subarray(0, cut), bytes.subarray(cut));
    assert.ok(tap.finished, `cut at ${cut}`);
    assert.ok(out.endsWith('"cached_tokens":3}}}\n\ndata: [DONE]\n\n'), out.slice(-80));
    assert.equal(tap.usage.outputTokens, 2);
  }
  // The last event without its blank line still gets one before the terminator.
  const unterminated = new PassthroughStreamTap({
    dialect: 'openai',
    clientModel: 'up',
    upstreamModel: 'up',
    stripUsageChunk: false,
  });
  assert.ok(through(unterminated, Buffer.from(noDone.slice(0, -2))).endsWith('}}}\n\ndata: [DONE]\n\n'));
  // Cut before its usage (or before its finish_reason): not complete, so the relay reports the cut.
  for (const end of [noDone.lastIndexOf('data: '), noDone.indexOf('"finish_reason":"stop"')]) {
    const cutTap = new PassthroughStreamTap({
      dialect: 'openai',
      clientModel: 'up',
      upstreamModel: 'up',
      stripUsageChunk: false,
    });
    const out = through(cutTap, Buffer.from(noDone.slice(0, end)));
    assert.equal(cutTap.finished, false);
    assert.ok(!out.includes('[DONE]'));
  }
});

test('Anthropic tap: usage from message_start and the cumulative message_delta; cut stream counts deltas', () => {
  const s = [
    'event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"up","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"output_tokens":1,"cache_read_input_tokens":5}}}\n\n',
    'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}\n\n',
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" there"}}\n\n',
    'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
    'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":15}}\n\n',
    'event: message_stop\ndata: {"type":"message_stop"}\n\n',
  ];
  const tap = new PassthroughStreamTap({
    dialect: 'anthropic',
    clientModel: 'mine',
    upstreamModel: 'up',
    stripUsageChunk: false,
  });
  const out = through(tap, Buffer.from(s.join('')));
  assert.ok(out.includes('"model":"mine"'));
  assert.deepEqual(tap.usage, { inputTokens: 25, outputTokens: 15, cacheReadTokens: 5, cacheWriteTokens: 0 });
  assert.ok(tap.finished);
  const cut = new PassthroughStreamTap({
    dialect: 'anthropic',
    clientModel: 'up',
    upstreamModel: 'up',
    stripUsageChunk: false,
  });
  cut.push(Buffer.from(s.slice(0, 4).join('')));
  assert.equal(cut.finished, false);
  assert.equal(cut.deltaEvents, 2);
});

test('OpenAI tap: keys that merely end in "model" are left alone; a multibyte character split across chunks survives', () => {
  const ev =
    'data: {"id":"c","model":"up","x":{"submodel":"up"},"choices":[{"index":0,"delta":{"content":"né"},"finish_reason":null}]}\n\n';
  const tap = new PassthroughStreamTap({
    dialect: 'openai',
    clientModel: 'mine',
    upstreamModel: 'up',
    stripUsageChunk: false,
  });
  const bytes = Buffer.from(ev + ev);
  const split = bytes.indexOf(Buffer.from('é')) + 1;
  const out = through(tap, bytes.subarray(0, split), bytes.subarray(split));
  assert.equal(out, (ev + ev).replaceAll('"model":"up"', '"model":"mine"'));
  assert.ok(out.includes('"submodel":"up"'));
  assert.equal(tap.deltaEvents, 2, 'two chunks delivered');
});

const anthropicStream = [
  'event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"up","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"output_tokens":1}}}\n\n',
  'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Grüße"}}\n\n',
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" 👋"}}\n\n',
  'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
  'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":3}}\n\n',
  'event: message_stop\ndata: {"type":"message_stop"}\n\n',
].join('');

test('Anthropic tap: the same bytes out, model renamed, whatever byte the stream is cut at', () => {
  const bytes = Buffer.from(anthropicStream);
  const expected = anthropicStream.replace('"model":"up"', '"model":"mine"');
  for (let cut = 0; cut <= bytes.length; cut++) {
    const tap = new PassthroughStreamTap({
      dialect: 'anthropic',
      clientModel: 'mine',
      upstreamModel: 'up',
      stripUsageChunk: false,
    });
    assert.equal(through(tap, bytes.subarray(0, cut), bytes.subarray(cut)), expected, `cut at ${cut}`);
    assert.deepEqual(tap.usage, { inputTokens: 25, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0 });
    assert.equal(tap.deltaEvents, 2);
    assert.ok(tap.finished);
  }
});

test('OpenAI tap: CRLF-framed usage chunk stripped; a last line without its newline still goes out', () => {
  const crlf = openaiStream.replaceAll('\n', '\r\n');
  const tap = new PassthroughStreamTap({
    dialect: 'openai',
    clientModel: 'up',
    upstreamModel: 'up',
    stripUsageChunk: true,
  });
  const out = through(tap, Buffer.from(crlf));
  assert.ok(!out.includes('"usage":{'));
  assert.ok(out.endsWith('data: [DONE]\r\n\r\n'));
  assert.equal(out.split('\r\n\r\n').length - 1, 4);
  const open = new PassthroughStreamTap({
    dialect: 'openai',
    clientModel: 'up',
    upstreamModel: 'up',
    stripUsageChunk: false,
  });
  assert.equal(through(open, Buffer.from('data: [DONE]')), 'data: [DONE]');
  assert.ok(open.finished);
});

test('tap: takes plain Uint8Array views, and forwards whole-line chunks it need not change as their own bytes', () => {
  const backing = new Uint8Array(Buffer.from(`xx${openaiStream}xx`));
  const view = backing.subarray(2, backing.length - 2);
  const tap = new PassthroughStreamTap({
    dialect: 'openai',
    clientModel: 'mine',
    upstreamModel: 'up',
    stripUsageChunk: false,
  });
  assert.equal(through(tap, view), openaiStream.replaceAll('"model":"up"', '"model":"mine"'));
  const keep = new PassthroughStreamTap({
    dialect: 'openai',
    clientModel: 'up',
    upstreamModel: 'up',
    stripUsageChunk: false,
  });
  const chunk = Buffer.from(openaiStream.slice(0, openaiStream.indexOf('\n\n') + 2));
  assert.equal(keep.push(chunk), chunk, 'the upstream chunk itself, uncopied');
});

test('tap: a client model name beyond ASCII goes out as its UTF-8 bytes, as does the upstream text around it', () => {
  const tap = new PassthroughStreamTap({
    dialect: 'openai',
    clientModel: 'modèle-ü',
    upstreamModel: 'up',
    stripUsageChunk: true,
  });
  const out = through(tap, Buffer.from(openaiStream));
  assert.ok(out.includes('"model":"modèle-ü"'));
  assert.ok(out.includes('"content":"Hé"'));
  assert.deepEqual(tap.usage, { inputTokens: 4, outputTokens: 2, cacheReadTokens: 3, cacheWriteTokens: 0 });
});

test('OpenAI tap: CRLF and lone-CR streams are forwarded as they come, usage read and its chunk stripped', () => {
  for (const [name, eol] of [
    ['CRLF', '\r\n'],
    ['CR', '\r'],
  ] as const) {
    const stream = openaiStream.replaceAll('\n', eol);
    const tap = new PassthroughStreamTap({
      dialect: 'openai',
      clientModel: 'mine',
      upstreamModel: 'up',
      stripUsageChunk: true,
    });
    const events = stream.split(eol + eol).filter((e) => e !== '');
    // One event per read: each is forwarded when it arrives, not held until a LF that never comes.
    const outs = events.map((e) => tap.push(Buffer.from(e + eol + eol)).toString('utf8'));
    outs.push(tap.end().toString('utf8'));
    assert.ok(
      outs[1].includes('"model":"mine"') && outs[1].includes('Hé'),
      `${name}: the second event goes out when it arrives`,
    );
    assert.equal(outs[3], '', `${name}: the usage chunk and its blank line are dropped`);
    assert.ok(outs.join('').endsWith(`data: [DONE]${eol}${eol}`), name);
    assert.deepEqual(tap.usage, { inputTokens: 4, outputTokens: 2, cacheReadTokens: 3, cacheWriteTokens: 0 }, name);
    assert.ok(tap.finished, name);
  }
});

test('OpenAI tap: a line that never ends is a failed upstream once past 64 MB, not memory held for ever', () => {
  const tap = new PassthroughStreamTap({
    dialect: 'openai',
    clientModel: 'up',
    upstreamModel: 'up',
    stripUsageChunk: false,
  });
  const mb = Buffer.alloc(1048576, 0x61);
  assert.throws(() => {
    for (let i = 0; i < 70; i++) tap.push(mb);
  }, /more than 64 MB without a line end/);
});

/** The same events as Python's json.dumps writes them by default: `", "` and `": "` separators. */
function spaced(stream: string): string {
  return stream
    .split('\n')
    .map((line) =>
      line.startsWith('data: {')
        ? `data: ${JSON.stringify(JSON.parse(line.slice(6)), null, 1)
            .replace(/\n */g, ' ')
            .replace(/\{ /g, '{')
            .replace(/ \}/g, '}')
            .replace(/\[ /g, '[')
            .replace(/ \]/g, ']')}`
        : line,
    )
    .join('\n');
}

test('taps read spaced JSON (Python json.dumps) as they read compact: usage, the stripped chunk, the model, the end', () => {
  const oa = spaced(openaiStream);
  assert.ok(oa.includes('"usage": {"prompt_tokens": 7'), oa);
  const tap = new PassthroughStreamTap({
    dialect: 'openai',
    clientModel: 'mine',
    upstreamModel: 'up',
    stripUsageChunk: true,
  });
  const out = through(tap, Buffer.from(oa));
  assert.deepEqual(tap.usage, { inputTokens: 4, outputTokens: 2, cacheReadTokens: 3, cacheWriteTokens: 0 });
  assert.ok(tap.sawUsage);
  assert.ok(!out.includes('"usage": {'), 'the usage chunk the client did not ask for is stripped');
  assert.ok(!out.includes('"model": "up"'));
  // Complete but for [DONE]: still recognised as complete.
  const noDone = new PassthroughStreamTap({
    dialect: 'openai',
    clientModel: 'up',
    upstreamModel: 'up',
    stripUsageChunk: false,
  });
  assert.ok(through(noDone, Buffer.from(oa.replace('data: [DONE]\n\n', ''))).endsWith('data: [DONE]\n\n'));

  const an = spaced(
    [
      'event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"up","content":[],"usage":{"input_tokens":25,"output_tokens":1}}}\n\n',
      'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}\n\nevent: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"!"}}\n\n',
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":15}}\n\n',
      'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    ].join(''),
  );
  const atap = new PassthroughStreamTap({
    dialect: 'anthropic',
    clientModel: 'mine',
    upstreamModel: 'up',
    stripUsageChunk: false,
  });
  const aout = through(atap, Buffer.from(an));
  assert.deepEqual(atap.usage, { inputTokens: 25, outputTokens: 15, cacheReadTokens: 0, cacheWriteTokens: 0 });
  assert.ok(aout.includes('"model": "mine"'), 'message_start carries the client model');
  assert.equal(atap.deltaEvents, 2);
});

test("taps mask credentials in the upstream's own error events, and leave every other event as it came", async () => {
  const { SecretMasker } = await import('../../src/core/mask-secrets.ts');
  const secret = 'prov-secret-0123456789abcdef';
  const masker = new SecretMasker([secret]);
  const oa = `${openaiStream.split('data: [DONE]')[0]}data: {"error":{"message":"key ${secret} over quota – retry","type":"insufficient_quota"}}\n\n`;
  const tap = new PassthroughStreamTap({
    dialect: 'openai',
    clientModel: 'up',
    upstreamModel: 'up',
    stripUsageChunk: false,
    masker,
  });
  const out = through(tap, Buffer.from(oa));
  assert.ok(!out.includes(secret), out.slice(-200));
  assert.match(out, /prov…cdef over quota – retry/, 'the rest of the text, multibyte characters included, is kept');
  assert.ok(out.startsWith(openaiStream.split('data: [DONE]')[0]), 'events before the error are the upstream bytes');
  const an = `event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"up","content":[],"usage":{"input_tokens":1,"output_tokens":1}}}\n\nevent: error\ndata: {"type":"error","error":{"type":"api_error","message":"bad key ${secret}"}}\n\n`;
  const atap = new PassthroughStreamTap({
    dialect: 'anthropic',
    clientModel: 'up',
    upstreamModel: 'up',
    stripUsageChunk: false,
    masker,
  });
  const aout = through(atap, Buffer.from(an));
  assert.ok(!aout.includes(secret), aout);
  assert.ok(atap.endsWithError());
});

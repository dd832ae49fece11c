// Tests for the prompt-token estimate: exact on plain text, flat media, capped tokenizer work.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { reservationNanos } from '../../src/core/budget.ts';
import { MAX_TOKENS_PER_KIND } from '../../src/core/usage.ts';
import {
  MEDIA_TOKENS,
  TOOL_PROMPT_TOKENS,
  MESSAGE_OVERHEAD_TOKENS,
  NON_OPENAI_MARGIN,
  REPLY_PRIMING_TOKENS,
  TOKENIZER_CHAR_CAP,
  estimatePromptTokens,
  requestedMaxTokens,
  reservationTokens,
} from '../../src/admission/estimate-tokens.ts';

const FRAME = MESSAGE_OVERHEAD_TOKENS + REPLY_PRIMING_TOKENS;

test('plain chat text is tokenized exactly with o200k plus the framing', () => {
  const text = 'Hello, world! How many tokens is this sentence?';
  const body = { model: 'gpt-4o', messages: [{ role: 'user', content: text }] };
  assert.equal(estimatePromptTokens(body), countTokens(text) + FRAME);
});

test('non-OpenAI models get the documented margin; the model option overrides body.model', () => {
  const body = {
    model: 'claude-sonnet-4',
    max_tokens: 10,
    messages: [{ role: 'user', content: 'Hello there, Claude.' }],
  };
  const base = countTokens('Hello there, Claude.') + FRAME;
  assert.equal(estimatePromptTokens(body), Math.ceil(base * NON_OPENAI_MARGIN));
  assert.equal(estimatePromptTokens(body, { model: 'gpt-4o-mini' }), base);
});

test('anthropic system, tool_use input and tool_result text all count; ids and cache_control do not', () => {
  const body = {
    model: 'gpt-4o',
    system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
    messages: [
      { role: 'user', content: 'Weather?' },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_01ABCDEFGHIJ', name: 'get_weather', input: { city: 'Paris' } }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01ABCDEFGHIJ', content: 'Sunny, 21C' }] },
    ],
  };
  const text = ['Be brief.', 'Weather?', 'get_weather', '{"city":"Paris"}', 'Sunny, 21C'];
  const expected = text.reduce((n, t) => n + countTokens(t), 0) + 4 * MESSAGE_OVERHEAD_TOKENS + REPLY_PRIMING_TOKENS;
  assert.equal(estimatePromptTokens(body), expected);
});

test('images count a flat amount in both dialects, whatever their byte size', () => {
  const hugeBase64 = 'A'.repeat(2_000_000);
  const openai = {
    model: 'gpt-4o',
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${hugeBase64}` } },
        ],
      },
    ],
  };
  const anthropic = {
    model: 'gpt-4o',
    messages: [
      {
        role: 'user',
        content: [
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: hugeBase64 } },
          { type: 'text', text: 'What is this?' },
        ],
      },
    ],
  };
  const expected = countTokens('What is this?') + MEDIA_TOKENS + FRAME;
  assert.equal(estimatePromptTokens(openai), expected);
  assert.equal(estimatePromptTokens(anthropic), expected);
});

test('tool definitions are counted as their JSON text, with the system prompt a provider adds for tools', () => {
  const tools = [
    {
      type: 'function',
      function: {
        name: 'lookup',
        description: 'Find a record by id',
        parameters: { type: 'object', properties: { id: { type: 'string' } } },
      },
    },
  ];
  const without = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] };
  assert.equal(
    estimatePromptTokens({ ...without, tools }) - estimatePromptTokens(without),
    countTokens(JSON.stringify(tools)) + TOOL_PROMPT_TOKENS,
  );
});

test('special-token text is counted as plain text, not rejected', () => {
  const body = { model: 'gpt-4o', messages: [{ role: 'user', content: 'say <|endoftext|> please' }] };
  assert.ok(estimatePromptTokens(body) > FRAME);
});

test('text past the cap is extrapolated (measured ratio, at least chars/4): never under, close to the truth', () => {
  const text = 'The quick brown fox jumps over the lazy dog. '.repeat(20_000);
  assert.ok(text.length > 100 * TOKENIZER_CHAR_CAP);
  const truth = countTokens(text) + FRAME;
  const estimate = estimatePromptTokens({ model: 'gpt-4o', messages: [{ role: 'user', content: text }] });
  // English runs ~4.5 chars/token, so the chars/4 floor makes this a slight overestimate.
  assert.ok(estimate >= truth && estimate <= truth * 1.15, `estimate ${estimate} vs truth ${truth}`);
});

test('a pathological run without spaces is bounded by the cap (whole-string BPE takes minutes)', () => {
  let cjk = '';
  for (let i = 0; i < 200_000; i++) cjk += String.fromCharCode(0x4e00 + ((i * 7919) % 2000));
  const started = performance.now();
  const estimate = estimatePromptTokens({ model: 'gpt-4o', messages: [{ role: 'user', content: cjk }] });
  const elapsed = performance.now() - started;
  assert.ok(estimate >= cjk.length / 4);
  assert.ok(elapsed < 2000, `took ${elapsed} ms`);
});

test('non-object bodies estimate only the reply priming', () => {
  assert.equal(estimatePromptTokens(null), REPLY_PRIMING_TOKENS);
  assert.equal(estimatePromptTokens('text'), REPLY_PRIMING_TOKENS);
});

test('requestedMaxTokens takes the larger of the two chat limits, multiplies by n, falls back to the default', () => {
  assert.equal(requestedMaxTokens({ max_tokens: 100 }, 4096), 100);
  assert.equal(requestedMaxTokens({ max_tokens: 100, max_completion_tokens: 300 }, 4096), 300);
  assert.equal(
    requestedMaxTokens({ max_tokens: 300, max_completion_tokens: 100 }, 4096),
    300,
    'a server may read either',
  );
  assert.equal(requestedMaxTokens({ max_completion_tokens: 100 }, 4096), 100);
  // Messages have one limit and no n: other fields are unknown to the upstream and reserve nothing.
  assert.equal(requestedMaxTokens({ max_tokens: 50_000, max_completion_tokens: 1 }, 4096, 'anthropic'), 50_000);
  assert.equal(requestedMaxTokens({ max_completion_tokens: 1 }, 4096, 'anthropic'), 4096);
  assert.equal(requestedMaxTokens({ max_tokens: 100, n: 3 }, 4096, 'anthropic'), 100);
  assert.equal(requestedMaxTokens({ max_tokens: 100, n: 3 }, 4096), 300);
  assert.equal(requestedMaxTokens({}, 4096), 4096);
  assert.equal(requestedMaxTokens({ max_tokens: -5 }, 4096), 4096);
  assert.equal(reservationTokens({ promptTokens: 120, maxTokens: 4096 }), 4216);
});

test('a max_tokens of 1e308 reserves at most MAX_TOKENS_PER_KIND, and its price stays an exact integer', () => {
  assert.equal(requestedMaxTokens({ max_tokens: 1e308 }, 64), MAX_TOKENS_PER_KIND);
  assert.equal(requestedMaxTokens({ max_tokens: 1e6, n: 1e300 }, 64), MAX_TOKENS_PER_KIND);
  assert.equal(requestedMaxTokens({ max_tokens: 500, n: 2 }, 64), 1000);
  const price = { input: 5000, output: 20000, cacheRead: 0, cacheWrite: 0 };
  const nanos = reservationNanos({ promptTokens: 10, maxTokens: MAX_TOKENS_PER_KIND }, price);
  assert.equal(nanos, Number.MAX_SAFE_INTEGER, 'a worst case past 2^53 nano-USD is capped there');
  assert.ok(Number.isSafeInteger(reservationNanos({ promptTokens: 10, maxTokens: 1000 }, price)));
});

test('admission quick pass: the request size bounds the text, media still count, no tokenizer', () => {
  const short = { model: 'gpt-4o', messages: [{ role: 'user', content: 'Hello there, how are you today?' }] };
  const bytes = Buffer.byteLength(JSON.stringify(short));
  const quick = estimatePromptTokens(short, { boundBytes: bytes });
  assert.equal(quick, bytes + FRAME);
  assert.ok(quick >= estimatePromptTokens(short));
  const cjk = { model: 'gpt-4o', messages: [{ role: 'user', content: '東京の天気はどうですか。'.repeat(300) }] };
  assert.ok(
    estimatePromptTokens(cjk, { boundBytes: Buffer.byteLength(JSON.stringify(cjk)) }) >=
      estimatePromptTokens(cjk, { charCap: 1_000_000 }),
    'a bound for multi-byte text too',
  );
  const image = {
    model: 'gpt-4o',
    messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }] }],
  };
  const imageBytes = Buffer.byteLength(JSON.stringify(image));
  assert.equal(
    estimatePromptTokens(image, { boundBytes: imageBytes }),
    imageBytes + MEDIA_TOKENS + FRAME,
    'a short image URL still counts as an image',
  );
});

test('bodies nested 100,000 levels deep are estimated without overflowing the stack; text above the depth still counts', () => {
  const deep = JSON.parse(`${'['.repeat(100_000)}"buried"${']'.repeat(100_000)}`) as unknown;
  const deepObject = JSON.parse(`${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`) as unknown;
  const plain = { model: 'gpt-4o', messages: [{ role: 'user', content: 'Hello there' }] };
  const withDeep = {
    model: 'gpt-4o',
    messages: [{ role: 'user', content: 'Hello there', x: deep }],
    tools: [{ parameters: deepObject }],
    tool_choice: deepObject,
  };
  assert.equal(
    estimatePromptTokens(withDeep),
    estimatePromptTokens(plain) + TOOL_PROMPT_TOKENS,
    'the deep parts count as nothing; the message text as before',
  );
  assert.equal(
    estimatePromptTokens(withDeep, { boundBytes: 500_000 }),
    500_000 + FRAME + TOOL_PROMPT_TOKENS,
    'the quick pass bounds by size, deep or not',
  );
});

test('the tokenizer is loaded on first use only', () => {
  const child = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `
    const t = await import(${JSON.stringify(new URL('../../src/tokenizer/count-tokens.ts', import.meta.url).href)});
    const e = await import(${JSON.stringify(new URL('../../src/admission/estimate-tokens.ts', import.meta.url).href)});
    const before = t.tokenizerLoaded();
    e.estimatePromptTokens({ messages: [{ role: 'user', content: 'hi there' }] }, { boundBytes: 60 });
    const afterQuick = t.tokenizerLoaded();
    e.estimatePromptTokens({ messages: [{ role: 'user', content: 'hi there' }] });
    console.log(JSON.stringify([before, afterQuick, t.tokenizerLoaded()]));
  `,
    ],
    { encoding: 'utf8' },
  );
  assert.equal(child.status, 0, child.stderr);
  assert.deepEqual(JSON.parse(child.stdout), [false, false, true]);
});

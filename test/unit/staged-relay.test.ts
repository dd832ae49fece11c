// The stream stages over literal SSE in each dialect: deltas rewritten in place, what a filter held back
// sent as one more delta event before the event that ends the text, untouched events byte for byte.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Dialect } from '../../src/core/dialect.ts';
import type { StreamRelay } from '../../src/spec/exchange.ts';
import { redact } from '../../src/stages/redact/index.ts';
import { StageList } from '../../src/stages/plan.ts';
import { StagedRelay } from '../../src/stages/staged-relay.ts';
import { emptyUsage } from '../../src/core/usage.ts';

const stage = redact.build({ detectors: ['card', 'email'], replies: true }, undefined)!;

/** A relay that hands on each chunk as the text it is (as pass-through does with bytes). */
function relayOf(dialect: Dialect, chunks: string[]): { out: string; counted: string[] } {
  const inner: StreamRelay = {
    push: (c) => Buffer.from(c),
    end: () => '',
    finished: true,
    failed: false,
    usage: emptyUsage,
    errorEvent: () => '',
  };
  const counted: string[] = [];
  const relay = new StagedRelay(inner, {
    list: new StageList([stage]),
    dialect,
    counter: { count: (rule) => counted.push(rule) },
  });
  let out = '';
  for (const c of chunks) out += relay.push(Buffer.from(c));
  return { out: out + relay.end(), counted };
}

const chat = (content: string) =>
  `data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":${JSON.stringify(content)}}}]}\n\n`;

test('chat: a card split over two chunks goes out masked, before the finish chunk', () => {
  const finish =
    'data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n';
  const { out, counted } = relayOf('openai', [
    chat('Card 4111 1111 '),
    chat('1111 1111 ok'),
    finish,
    'data: [DONE]\n\n',
  ]);
  assert.equal(out, `${chat('')}${chat('')}${chat('Card [REDACTED:card] ok')}${finish}data: [DONE]\n\n`);
  assert.deepEqual(counted, ['card']);
});

test('chat: events split across chunks mid-line, and comments, pass through', () => {
  const event = chat('hello');
  const { out } = relayOf('openai', [': keep-alive\n\n', event.slice(0, 20), event.slice(20), 'data: [DONE]\n\n']);
  assert.equal(out, `: keep-alive\n\n${chat('')}${chat('hello')}data: [DONE]\n\n`);
});

test('messages: the held text goes out as a text_delta of the same block before content_block_stop', () => {
  const delta = (text: string) =>
    `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":${JSON.stringify(text)}}}\n\n`;
  const stop = 'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n';
  const { out } = relayOf('anthropic', [delta('mail jane@exa'), delta('mple.com now'), stop]);
  assert.equal(out, `${delta('')}${delta('')}${delta('mail [REDACTED:email] now')}${stop}`);
});

test('Gemini: CRLF events, and text beside the finish reason flushed in the same chunk', () => {
  const chunk = (text: string, finish = '') =>
    `data: {"candidates":[{"content":{"role":"model","parts":[{"text":${JSON.stringify(text)}}]}${finish}}]}\r\n\r\n`;
  const { out } = relayOf('gemini', [chunk('card 4111 1111'), chunk(' 1111 1111.', ',"finishReason":"STOP"')]);
  assert.equal(out, `${chunk('')}${chunk('card [REDACTED:card].', ',"finishReason":"STOP"')}`);
});

test('Responses: deltas masked and the done event masked whole, counted once', () => {
  const delta = (text: string) =>
    `event: response.output_text.delta\ndata: {"type":"response.output_text.delta","output_index":0,"content_index":0,"delta":${JSON.stringify(text)}}\n\n`;
  const done = (text: string) =>
    `event: response.output_text.done\ndata: {"type":"response.output_text.done","output_index":0,"content_index":0,"text":${JSON.stringify(text)}}\n\n`;
  const { out, counted } = relayOf('responses', [delta('a@b.io x'), done('a@b.io x')]);
  assert.equal(out, `${delta('')}${delta('[REDACTED:email] x')}${done('[REDACTED:email] x')}`);
  assert.deepEqual(counted, ['email']);
});

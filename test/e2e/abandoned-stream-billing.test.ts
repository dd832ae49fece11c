// Issue 39, item 9: a client that closes right after the last content event, before the usage event,
// is billed the output it was delivered, counted with the tokenizer (not one token per event), on both
// pass-through dialects.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFixture, type Fixture } from './fixture.ts';
import { waitUntil } from '../helpers/gateway-process.ts';
import { usageRows } from '../admission/usage-db.ts';
import { countTokens } from '../../src/tokenizer/count-tokens.ts';

let fx: Fixture;
before(async () => {
  fx = await startFixture();
});
after(async () => fx.close());

const EVENTS = 50;
/** 20 ordinary words an event: 1,000 words of output in 50 content events. */
const piece = (i: number): string => Array.from({ length: 20 }, (_, j) => ` word${(i * 20 + j) % 97}`).join('');
const DELIVERED = Array.from({ length: EVENTS }, (_, i) => piece(i)).join('');

function openaiEvents(): string {
  let out = '';
  for (let i = 0; i < EVENTS; i++) {
    out += `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'upstream-gpt', choices: [{ index: 0, delta: i === 0 ? { role: 'assistant', content: piece(i) } : { content: piece(i) }, finish_reason: null }] })}\n\n`;
  }
  return out;
}

function anthropicEvents(): string {
  const ev = (type: string, data: unknown): string => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
  let out = ev('message_start', {
    type: 'message_start',
    message: {
      id: 'm1',
      type: 'message',
      role: 'assistant',
      model: 'claude-upstream-1',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 5, output_tokens: 1 },
    },
  });
  out += ev('content_block_start', {
    type: 'content_block_start',
    index: 0,
    content_block: { type: 'text', text: '' },
  });
  for (let i = 0; i < EVENTS; i++)
    out += ev('content_block_delta', {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'text_delta', text: piece(i) },
    });
  return out;
}

for (const endpoint of ['chat', 'messages'] as const) {
  test(`${endpoint}: a client gone after the last content event is billed the delivered text's tokens`, async () => {
    const { key, id } = await fx.gw.createKey({ name: `abandon-${endpoint}`, flags: ['--budget-usd', '1'] });
    fx.up.reset();
    // Every content event, then silence where the usage event would come: the client leaves first.
    fx.up.enqueue({
      kind: 'custom',
      handle: ({ res }) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(endpoint === 'chat' ? openaiEvents() : anthropicEvents());
      },
    });
    const path = endpoint === 'chat' ? '/v1/chat/completions' : '/v1/messages';
    const model = endpoint === 'chat' ? 'gpt-up' : 'claude-up';
    const abort = new AbortController();
    const res = await fetch(fx.gw.url + path, {
      method: 'POST',
      signal: abort.signal,
      headers: {
        'content-type': 'application/json',
        'anthropic-version': '2023-06-01',
        authorization: `Bearer ${key}`,
      },
      body: JSON.stringify({
        model,
        max_tokens: 2000,
        stream: true,
        messages: [{ role: 'user', content: 'Tell me a long story' }],
      }),
    });
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    let seen = '';
    const last = JSON.stringify(piece(EVENTS - 1));
    while (!seen.includes(last)) seen += new TextDecoder().decode((await reader.read()).value);
    abort.abort();
    await reader.cancel().catch(() => undefined);
    await waitUntil(() => usageRows(fx.gw.dbPath, id).length >= 1, 'the usage row');
    const row = usageRows(fx.gw.dbPath, id)[0];
    assert.equal(row.status, 499);
    const delivered = countTokens(DELIVERED);
    assert.ok(delivered >= 1000, `the delivered text is ${delivered} tokens`);
    assert.ok(row.output_tokens >= delivered, `output billed: ${row.output_tokens}, delivered: ${delivered} tokens`);
    assert.ok(row.output_tokens <= delivered * 1.25, `not overbilled: ${row.output_tokens} for ${delivered}`);
  });
}

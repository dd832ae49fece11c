// Issue 39 (also): a streaming client of an upstream that sends nothing yet gets SSE comments
// (`: keep-alive`, every stream_keepalive_ms) until the first byte, so an idle timeout in a load
// balancer does not cut it; the stream then goes on as usual, or ends with an error event in its dialect.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFixture, type Fixture } from './fixture.ts';
import { parseSseText, validateOpenAIError } from '../helpers/schemas.ts';

let fx: Fixture;
before(async () => {
  fx = await startFixture({
    extraModels:
      '  - { name: gpt-slow, max_retries: 0, timeouts: { first_byte_ms: 3000 }, deployments: [ { provider: up, model: upstream-slow } ] }',
    extraConfig: 'stream_keepalive_ms: 50',
  });
});
after(async () => fx.close());

const CHUNK = (delta: Record<string, unknown>, finish: string | null): string =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'upstream-slow', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

/** Starts a streamed chat request; resolves the reader of its body. */
async function stream(key: string): Promise<{ res: Response; read: () => Promise<string | null> }> {
  const res = await fetch(`${fx.gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-slow', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  return {
    res,
    read: async () => {
      const { done, value } = await reader.read();
      return done ? null : decoder.decode(value, { stream: true });
    },
  };
}

test('comments while the upstream is silent, then the answer as usual', async () => {
  const { key } = await fx.gw.createKey({ name: 'ka', flags: ['--models', 'gpt-slow'] });
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  fx.up.enqueue({
    kind: 'custom',
    handle: async ({ res }) => {
      await released;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(
        CHUNK({ role: 'assistant', content: 'Hello' }, null) +
          CHUNK({}, 'stop') +
          `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'upstream-slow', choices: [], usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 } })}\n\ndata: [DONE]\n\n`,
      );
    },
  });
  const { res, read } = await stream(key);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
  let text = '';
  // Wait for the first comment (it arrives after 50 ms), then let the upstream answer.
  while (!text.includes(': keep-alive\n\n')) {
    const part = await read();
    assert.notEqual(part, null, `the stream ended before a keep-alive comment: ${text}`);
    text += part;
  }
  release();
  for (let part = await read(); part !== null; part = await read()) text += part;
  assert.ok(text.startsWith(': keep-alive\n\n'), text);
  const events = parseSseText(text);
  assert.equal(events.at(-1)?.data, '[DONE]');
  const content = events
    .filter((e) => e.data !== '[DONE]')
    .map((e) => (JSON.parse(e.data) as { choices: { delta: { content?: string } }[] }).choices[0]?.delta.content ?? '')
    .join('');
  assert.equal(content, 'Hello');
});

test('an upstream that never answers: comments, then one error event in the dialect, and the end', async () => {
  const { key } = await fx.gw.createKey({ name: 'ka2', flags: ['--models', 'gpt-slow'] });
  fx.up.enqueue({ kind: 'hang-before-headers' });
  const { res, read } = await stream(key);
  assert.equal(res.status, 200);
  let text = '';
  for (let part = await read(); part !== null; part = await read()) text += part;
  assert.ok(text.startsWith(': keep-alive\n\n'), text.slice(0, 200));
  const events = parseSseText(text);
  assert.equal(events.length, 1, 'comments are no events');
  const body = JSON.parse(events[0].data) as { error: { code: string } };
  validateOpenAIError(body);
  assert.equal(body.error.code, 'upstream_timeout');
});

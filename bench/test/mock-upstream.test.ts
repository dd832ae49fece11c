// The mock upstream's wire output, checked on literal SSE text: event counts, names, usage chunk, hold/release.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { SseDecoder } from '../../src/core/sse.ts';
import type { SseEvent } from '../../src/core/sse.ts';
import { createMockUpstream, parsePacing } from '../mock-upstream.ts';
import { probe } from '../lib/measure.ts';

const { server, stats } = createMockUpstream({ chunks: 5, chunkSize: 4, pacing: 'tick', latencyMs: 0 });
let base = '';

before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

function post(path: string, body: object): Promise<{ status: number; body: string }> {
  return probe({
    url: `${base}${path}`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

function events(text: string): SseEvent[] {
  const decoder = new SseDecoder();
  return [...decoder.push(text), ...decoder.end()];
}

describe('mock upstream', () => {
  it('answers a non-streaming chat with the whole reply and usage', async () => {
    const res = await post('/v1/chat/completions', { model: 'x', messages: [] });
    assert.equal(res.status, 200);
    const json = JSON.parse(res.body) as {
      choices: Array<{ message: { content: string } }>;
      usage: { completion_tokens: number };
    };
    assert.equal(json.choices[0].message.content, 'abcd'.repeat(5));
    assert.equal(json.usage.completion_tokens, 5);
  });

  it('streams role, content, finish and [DONE] without usage unless asked', async () => {
    const plain = events((await post('/v1/chat/completions', { stream: true })).body);
    assert.equal(plain.length, 5 + 3);
    assert.equal(plain.at(-1)?.data, '[DONE]');
    assert.ok(plain.every((e) => e.event === undefined));
    assert.ok(!plain.some((e) => e.data.includes('"usage"')));
    const withUsage = events(
      (await post('/v1/chat/completions', { stream: true, stream_options: { include_usage: true } })).body,
    );
    assert.equal(withUsage.length, 5 + 4);
    assert.deepEqual(JSON.parse(withUsage.at(-2)?.data ?? '{}').usage, {
      prompt_tokens: 12,
      completion_tokens: 5,
      total_tokens: 17,
    });
  });

  it('streams Anthropic events whose event name equals the JSON type', async () => {
    const list = events((await post('/v1/messages', { stream: true, max_tokens: 1 })).body);
    assert.deepEqual(
      list.map((e) => e.event),
      [
        'message_start',
        'content_block_start',
        'ping',
        ...Array(5).fill('content_block_delta'),
        'content_block_stop',
        'message_delta',
        'message_stop',
      ],
    );
    for (const e of list) assert.equal((JSON.parse(e.data) as { type: string }).type, e.event);
  });

  it('parks /hold streams after the first event until /release', async () => {
    const first = await new Promise<{ chunk: string; done: Promise<string> }>((resolve) => {
      const req = http.request(`${base}/hold/v1/chat/completions`, { method: 'POST' }, (res) => {
        let text = '';
        const done = new Promise<string>((end) => res.on('end', () => end(text)));
        res.setEncoding('utf8');
        res.once('data', (chunk: string) => {
          text += chunk;
          res.on('data', (more: string) => (text += more));
          resolve({ chunk, done });
        });
      });
      req.end('{"stream":true}');
    });
    assert.match(first.chunk, /"role":"assistant"/);
    assert.equal(stats().held, 1);
    const released = await probe({ url: `${base}/release`, method: 'POST', headers: {}, body: '' });
    assert.deepEqual(JSON.parse(released.body), { released: 1 });
    assert.equal(events(await first.done).at(-1)?.data, '[DONE]');
    assert.equal(stats().held, 0);
  });

  it('answers 404 on paths that are not a generation endpoint', async () => {
    assert.equal((await post('/v1/chat/completion', {})).status, 404);
  });

  it('switches pacing at run time: events milliseconds apart arrive as separate reads', async () => {
    const reads = (): Promise<number> =>
      new Promise((resolve, reject) => {
        const req = http.request(
          `${base}/v1/chat/completions`,
          { method: 'POST', headers: { 'content-type': 'application/json' } },
          (res) => {
            let n = 0;
            res.on('data', () => (n += 1));
            res.on('end', () => resolve(n));
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify({ model: 'x', messages: [], stream: true }));
      });
    const set = (to: string): Promise<{ status: number; body: string }> =>
      probe({ url: `${base}/pacing?to=${to}`, method: 'POST', headers: {}, body: '' });
    try {
      assert.deepEqual(await set('none'), { status: 200, body: '{"pacing":"none"}' });
      const whole = await reads();
      assert.equal((await set('15')).body, '{"pacing":15}');
      const paced = await reads();
      // 5 content events 15 ms apart after the head: even a busy client reads them in several goes.
      assert.ok(paced >= 3 && paced > whole, `paced stream in ${paced} reads, unpaced in ${whole}`);
      assert.equal((await set('fast')).status, 400);
    } finally {
      await set('tick');
    }
  });

  it('parses pacing', () => {
    assert.equal(parsePacing('tick'), 'tick');
    assert.equal(parsePacing('5'), 5);
    assert.throws(() => parsePacing('fast'), /--pacing/);
  });
});

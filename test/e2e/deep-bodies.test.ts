// Issue 39 item 1: a failure that is not the upstream's never counts against the upstream. Bodies nested
// thousands of levels deep are refused with a 400 naming the limit before any upstream work, on every
// path, and cannot open a deployment's circuit breaker for other callers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFixture, call, type Fixture } from './fixture.ts';

let fx: Fixture;
before(async () => {
  fx = await startFixture();
});
after(async () => fx.close());

/** `levels` nested arrays around a zero: about 2 bytes a level. */
function deep(levels: number): string {
  return '['.repeat(levels) + '0' + ']'.repeat(levels);
}

test('deep bodies from one key are 400s naming the limit and never reach or trip the upstream', async () => {
  const { key: other } = await fx.gw.createKey({ name: 'other', flags: ['--models', 'gpt-up,claude-*'] });
  const before = fx.up.requests.length;
  const bodies = [
    // A repeated model key makes the pass-through re-serialise the body, which overflowed JSON.stringify.
    `{"model":"gpt-up","model":"gpt-up","messages":[{"role":"user","content":"hi"}],"x":${deep(5000)}}`,
    // A stream with stream_options is amended, which re-serialised it too.
    `{"model":"gpt-up","stream":true,"stream_options":{"include_usage":false},"messages":[{"role":"user","content":"hi"}],"x":${deep(5000)}}`,
  ];
  for (let i = 0; i < 10; i++) {
    const res = await call(fx, { path: '/v1/chat/completions', body: bodies[i % 2] });
    assert.equal(res.status, 400, res.text);
    assert.match((res.json as { error: { message: string } }).error.message, /more than 128 levels/);
  }
  const msg = await call(fx, {
    path: '/v1/messages',
    headers: { 'anthropic-version': '2023-06-01' },
    body: `{"model":"claude-up","max_tokens":10,"messages":[{"role":"user","content":"hi"}],"metadata":{"x":${deep(3000)}}}`,
  });
  assert.equal(msg.status, 400, msg.text);
  assert.equal((msg.json as { type: string }).type, 'error');
  assert.match(msg.text, /more than 128 levels/);
  assert.equal(fx.up.requests.length, before, 'the upstream never saw them');

  const res = await call(fx, {
    path: '/v1/chat/completions',
    auth: other,
    body: { model: 'gpt-up', messages: [{ role: 'user', content: 'hi' }] },
  });
  assert.equal(res.status, 200, res.text);
});

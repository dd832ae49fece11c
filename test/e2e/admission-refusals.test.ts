// Issue 4: every refusal on both endpoints, in the endpoint's dialect, with its status and headers:
// model not allowed 403, budget 403, expired 401, RPM 429, TPM 429, concurrency 429 (retry-after).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFixture, call, type Fixture } from './fixture.ts';
import { waitUntil } from '../helpers/gateway-process.ts';
import { validateAnthropicError, validateOpenAIError } from '../helpers/schemas.ts';

let fx: Fixture;
before(async () => {
  fx = await startFixture();
});
after(async () => fx.close());

type Endpoint = 'chat' | 'messages';
const ENDPOINTS: Endpoint[] = ['chat', 'messages'];

function send(
  endpoint: Endpoint,
  opts: { key: string; model?: string; maxTokens?: number; signal?: AbortSignal },
): Promise<Awaited<ReturnType<typeof call>>> {
  const model = opts.model ?? (endpoint === 'chat' ? 'gpt-up' : 'claude-up');
  const body = { model, max_tokens: opts.maxTokens ?? 20, messages: [{ role: 'user', content: 'Hello' }] };
  if (endpoint === 'chat') return call(fx, { path: '/v1/chat/completions', auth: opts.key, body });
  return call(fx, { path: '/v1/messages', auth: opts.key, body, headers: { 'anthropic-version': '2023-06-01' } });
}

/** Checks the dialect's error shape and returns { type, code (OpenAI only), message }. */
function errorOf(
  endpoint: Endpoint,
  r: Awaited<ReturnType<typeof call>>,
): { type: string; code: string | null; message: string } {
  assert.ok(r.headers.get('x-request-id'), 'every error carries a request id');
  if (endpoint === 'chat') {
    validateOpenAIError(r.json);
    const e = (r.json as { error: { type: string; code: string; message: string } }).error;
    return { type: e.type, code: e.code, message: e.message };
  }
  validateAnthropicError(r.json);
  const body = r.json as { type: string; error: { type: string; message: string } };
  assert.equal(body.type, 'error');
  return { type: body.error.type, code: null, message: body.error.message };
}

for (const endpoint of ENDPOINTS) {
  const permission = 'permission_error';
  const rateType = 'rate_limit_error';

  test(`${endpoint}: a model the key may not use is 403`, async () => {
    const r = await send(endpoint, { key: fx.key, model: 'secret-model' });
    assert.equal(r.status, 403, r.text);
    const e = errorOf(endpoint, r);
    assert.equal(e.type, permission);
    if (endpoint === 'chat') assert.equal(e.code, 'model_not_allowed');
  });

  test(`${endpoint}: a budget too small for the reservation is 403 and says how much is left`, async () => {
    const { key } = await fx.gw.createKey({ name: `tiny-${endpoint}`, flags: ['--budget-usd', '0.000001'] });
    const r = await send(endpoint, { key });
    assert.equal(r.status, 403, r.text);
    const e = errorOf(endpoint, r);
    assert.equal(e.type, permission);
    if (endpoint === 'chat') assert.equal(e.code, 'budget_exhausted');
    assert.match(e.message, /quota restricted: USD budget, \$0\.000001 left of \$0\.000001/);
    assert.equal(r.headers.get('retry-after'), null, 'a retry cannot fix a budget');
    const tokens = await fx.gw.createKey({ name: `tok-${endpoint}`, flags: ['--token-budget', '10'] });
    const t = await send(endpoint, { key: tokens.key });
    assert.equal(t.status, 403);
    assert.match(errorOf(endpoint, t).message, /quota restricted: token budget, 10 tokens left of 10/);
  });

  test(`${endpoint}: an expired key is 401`, async () => {
    // A key cannot be created expired (it is refused at creation); one that has expired since can be made so.
    const out = await fx.gw.cli(['keys', 'create', '--name', `old-${endpoint}`, '--json']);
    const { key, id } = JSON.parse(out) as { key: string; id: string };
    await fx.gw.cli(['keys', 'update', id, '--expires', '2001-01-01T00:00:00Z']);
    let r = await send(endpoint, { key });
    await waitUntil(async () => {
      r = await send(endpoint, { key });
      return r.text.includes('expired');
    }, 'the server to load the new key');
    assert.equal(r.status, 401, r.text);
    const e = errorOf(endpoint, r);
    assert.equal(e.type, endpoint === 'chat' ? 'invalid_request_error' : 'authentication_error');
    assert.match(e.message, /expired/);
  });

  test(`${endpoint}: requests per minute → 429 with retry-after and x-ratelimit headers`, async () => {
    const { key } = await fx.gw.createKey({ name: `rpm-${endpoint}`, flags: ['--rpm', '1'] });
    const first = await send(endpoint, { key });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.headers.get('x-ratelimit-limit-requests'), '1');
    assert.equal(first.headers.get('x-ratelimit-remaining-requests'), '0');
    assert.match(first.headers.get('x-ratelimit-reset-requests') ?? '', /^\d+s$/);
    // Two requests cannot both straddle a minute boundary: one of the next two is refused.
    let r = await send(endpoint, { key });
    if (r.status === 200) r = await send(endpoint, { key });
    assert.equal(r.status, 429, r.text);
    const e = errorOf(endpoint, r);
    assert.equal(e.type, rateType);
    if (endpoint === 'chat') assert.equal(e.code, 'rate_limit_requests');
    const retry = Number(r.headers.get('retry-after'));
    assert.ok(retry >= 1 && retry <= 60, `retry-after ${retry}`);
    assert.equal(r.headers.get('x-ratelimit-limit-requests'), '1');
    assert.equal(r.headers.get('x-ratelimit-remaining-requests'), '0');
    // Errors that happen before admission carry the headers too.
    const notFound = await send(endpoint, { key, model: 'no-such-model' });
    assert.equal(notFound.status, 404);
    assert.equal(notFound.headers.get('x-ratelimit-limit-requests'), '1');
  });

  test(`${endpoint}: tokens per minute → 429 when prompt + max_tokens cannot fit`, async () => {
    const { key } = await fx.gw.createKey({ name: `tpm-${endpoint}`, flags: ['--tpm', '100'] });
    // Larger than the whole minute: no wait lets it in, so it names what would and has no retry-after.
    const r = await send(endpoint, { key, maxTokens: 500 });
    assert.equal(r.status, 429, r.text);
    const e = errorOf(endpoint, r);
    assert.equal(e.type, rateType);
    if (endpoint === 'chat') assert.equal(e.code, 'rate_limit_tokens');
    assert.match(
      e.message,
      /request too large for this key's rate limit: it reserves \d+ tokens .* the limit is 100 tokens per minute; lower max_tokens/,
    );
    assert.equal(r.headers.get('retry-after'), null);
    assert.equal(r.headers.get('x-should-retry'), 'false', 'the SDKs would otherwise retry a 429 that can never fit');
    assert.equal(r.headers.get('x-ratelimit-limit-tokens'), '100');
    const minute = Math.floor(Date.now() / 60_000);
    const small = await send(endpoint, { key, maxTokens: 20 });
    assert.equal(small.status, 200, 'a request that fits is served');
    assert.equal(small.headers.get('x-ratelimit-limit-tokens'), '100');
    assert.ok(Number(small.headers.get('x-ratelimit-remaining-tokens')) < 100);
    // Fits an empty minute but not what this one has left: a wait helps, and retry-after says how long.
    const later = await send(endpoint, { key, maxTokens: 85 });
    if (later.status === 200 && Math.floor(Date.now() / 60_000) !== minute) return; // the window turned over between the two
    assert.equal(later.status, 429, later.text);
    assert.match(errorOf(endpoint, later).message, /100 tokens per minute, \d+ left this minute/);
    assert.ok(Number(later.headers.get('retry-after')) >= 1);
  });

  test(`${endpoint}: concurrent requests over the limit → 429 with retry-after: 1; a slot frees on disconnect`, async () => {
    const { key } = await fx.gw.createKey({ name: `conc-${endpoint}`, flags: ['--concurrency', '1'] });
    fx.up.reset();
    fx.up.enqueue({ kind: 'hang-before-headers' });
    const slow = new AbortController();
    const model = endpoint === 'chat' ? 'gpt-up' : 'claude-up';
    const path = endpoint === 'chat' ? '/v1/chat/completions' : '/v1/messages';
    const pending = fetch(fx.gw.url + path, {
      method: 'POST',
      signal: slow.signal,
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'anthropic-version': '2023-06-01',
      },
      body: JSON.stringify({ model, max_tokens: 20, messages: [{ role: 'user', content: 'Hello' }] }),
    }).catch(() => null);
    await fx.up.waitForRequests(1);
    const r = await send(endpoint, { key });
    assert.equal(r.status, 429, r.text);
    const e = errorOf(endpoint, r);
    assert.equal(e.type, rateType);
    if (endpoint === 'chat') assert.equal(e.code, 'concurrency_limit');
    assert.equal(r.headers.get('retry-after'), '1');
    slow.abort();
    await pending;
    let next = await send(endpoint, { key });
    await waitUntil(async () => {
      if (next.status === 200) return true;
      next = await send(endpoint, { key });
      return next.status === 200;
    }, 'the abandoned request to release its slot');
    assert.equal(next.status, 200);
  });
}

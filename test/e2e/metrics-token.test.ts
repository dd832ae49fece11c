// GET /metrics behind `metrics_token`: only that Bearer token opens it, never an API key, and the
// refusal is a 401 in the OpenAI shape that does not echo what was sent.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFixture, call, type Fixture } from './fixture.ts';
import { validateOpenAIError } from '../helpers/schemas.ts';

const TOKEN = 'mt-scrape-9f8e7d6c5b4a3210';
let fx: Fixture;

before(async () => {
  fx = await startFixture({ extraConfig: 'metrics_token: "${METRICS_TOKEN}"', env: { METRICS_TOKEN: TOKEN } });
});
after(async () => {
  await fx?.close();
});

function refused(r: { status: number; headers: Headers; text: string; json: unknown }, sent: string): void {
  assert.equal(r.status, 401);
  assert.equal(r.headers.get('www-authenticate'), 'Bearer');
  assert.ok(r.headers.get('x-request-id'));
  validateOpenAIError(r.json);
  const e = (r.json as { error: { message: string; code: string } }).error;
  assert.equal(e.code, 'invalid_api_key');
  assert.match(e.message, /metrics_token/);
  if (sent !== '') assert.ok(!r.text.includes(sent), 'the refusal does not echo the credential');
  assert.ok(!r.text.includes(TOKEN));
}

test('/metrics without the token: 401, whether nothing, an API key or a wrong token is sent', async () => {
  refused(await call(fx, { path: '/metrics', auth: null }), '');
  refused(await call(fx, { path: '/metrics' }), fx.key);
  refused(await call(fx, { path: '/metrics', auth: `${TOKEN}x` }), `${TOKEN}x`);
  refused(await call(fx, { path: '/metrics', auth: null, headers: { authorization: TOKEN } }), '');
});

test('/metrics with the token: Prometheus text (GET and HEAD); the API endpoints still take API keys only', async () => {
  const r = await call(fx, { path: '/metrics', auth: TOKEN });
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  assert.match(r.text, /^# HELP modelgate_/m);
  const lower = await call(fx, { path: '/metrics', auth: null, headers: { authorization: `bearer ${TOKEN}` } });
  assert.equal(lower.status, 200, 'the scheme is case-insensitive');
  const head = await fetch(`${fx.gw.url}/metrics`, { method: 'HEAD', headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(head.status, 200);
  assert.equal(
    (await call(fx, { path: '/v1/models', auth: TOKEN })).status,
    401,
    'the metrics token is not an API key',
  );
  assert.equal((await call(fx, { path: '/v1/models' })).status, 200);
  assert.equal((await call(fx, { path: '/healthz', auth: null })).status, 200, 'liveness stays open');
});

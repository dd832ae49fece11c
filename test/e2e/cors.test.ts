// Browsers (issue 37): cross-origin calls are off by default and a preflight is told so in the endpoint's
// dialect; `cors_origins:` allows named origins, whose preflights are answered with the headers the
// official clients send and whose answers expose the request id and rate-limit headers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFixture, call, type Fixture } from './fixture.ts';
import { parseConfigText, ConfigError } from '../../src/config/load.ts';
import { allowedRequestHeaders } from '../../src/http/cors.ts';

const APP = 'https://app.example.com';
const SDK_HEADERS =
  'authorization, content-type, x-stainless-os, x-stainless-lang, openai-organization, anthropic-version, anthropic-beta, x-made-up';

let off: Fixture;
let on: Fixture;

before(async () => {
  [off, on] = await Promise.all([
    startFixture(),
    startFixture({ extraConfig: `cors_origins: ["${APP}", "http://localhost:5173"]` }),
  ]);
});

after(async () => {
  await Promise.all([off?.close(), on?.close()]);
});

function preflight(fx: Fixture, path: string, origin: string): Promise<Response> {
  return fetch(fx.gw.url + path, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': SDK_HEADERS },
  });
}

test('without cors_origins a preflight gets a 403 in the dialect of the endpoint that says how to allow an origin', async () => {
  const chat = await preflight(off, '/v1/chat/completions', APP);
  assert.equal(chat.status, 403);
  assert.equal(chat.headers.get('access-control-allow-origin'), null);
  const body = (await chat.json()) as { error: { code: string; message: string; type: string } };
  assert.equal(body.error.code, 'cors_not_allowed');
  assert.equal(body.error.type, 'permission_error');
  assert.match(body.error.message, /Cross-origin requests are off/);
  assert.match(body.error.message, /cors_origins/);
  const messages = await preflight(off, '/v1/messages', APP);
  assert.equal(messages.status, 403);
  const anthropic = (await messages.json()) as { type: string; error: { type: string; message: string } };
  assert.equal(anthropic.type, 'error');
  assert.equal(anthropic.error.type, 'permission_error');
  // An actual cross-origin call is served (a server may send Origin too) but gives a browser nothing to read.
  const r = await call(off, { path: '/v1/models', headers: { origin: APP } });
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('access-control-allow-origin'), null);
  const metrics = await (await fetch(`${off.gw.url}/metrics`)).text();
  assert.match(
    metrics,
    /modelgate_unrouted_requests_total\{endpoint_class="openai",reason="cors_preflight_refused"\} 1/,
  );
});

test('an allowed origin: preflight answered with the methods and the headers the SDKs send', async () => {
  const r = await preflight(on, '/v1/chat/completions', APP);
  assert.equal(r.status, 204);
  assert.equal(r.headers.get('access-control-allow-origin'), APP);
  assert.equal(r.headers.get('access-control-allow-methods'), 'POST');
  const allowed = (r.headers.get('access-control-allow-headers') ?? '').split(', ');
  for (const h of [
    'authorization',
    'content-type',
    'x-stainless-os',
    'x-stainless-lang',
    'openai-organization',
    'anthropic-version',
    'anthropic-beta',
  ])
    assert.ok(allowed.includes(h), h);
  assert.ok(!allowed.includes('x-made-up'));
  assert.match(r.headers.get('vary') ?? '', /Origin/);
  const models = await fetch(`${on.gw.url}/v1/models`, {
    method: 'OPTIONS',
    headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'GET' },
  });
  assert.equal(models.status, 204);
  assert.equal(models.headers.get('access-control-allow-methods'), 'GET, HEAD');
});

test('an allowed origin: answers and errors echo the origin and expose the request id and rate-limit headers', async () => {
  const ok = await call(on, {
    path: '/v1/chat/completions',
    body: { model: 'gpt-mock', messages: [{ role: 'user', content: 'hi' }] },
    headers: { origin: APP },
  });
  assert.equal(ok.status, 200);
  assert.equal(ok.headers.get('access-control-allow-origin'), APP);
  const exposed = (ok.headers.get('access-control-expose-headers') ?? '').split(', ');
  for (const h of [
    'x-request-id',
    'request-id',
    'retry-after',
    'x-ratelimit-remaining-requests',
    'x-ratelimit-remaining-tokens',
    'x-modelgate-adjusted',
  ])
    assert.ok(exposed.includes(h), h);
  const refused = await call(on, {
    path: '/v1/chat/completions',
    auth: 'sk-wrong',
    body: { model: 'gpt-mock', messages: [] },
    headers: { origin: APP },
  });
  assert.equal(refused.status, 401);
  assert.equal(refused.headers.get('access-control-allow-origin'), APP, 'a browser can read why it was refused');
  const unknown = await call(on, { path: '/v1/nope', headers: { origin: APP } });
  assert.equal(unknown.status, 404);
  assert.equal(unknown.headers.get('access-control-allow-origin'), APP);
});

test('another origin gets no CORS headers, and its preflight is refused with its name', async () => {
  const r = await preflight(on, '/v1/chat/completions', 'https://evil.example');
  assert.equal(r.status, 403);
  assert.match(
    ((await r.json()) as { error: { message: string } }).error.message,
    /"https:\/\/evil\.example" is not in this gateway's cors_origins/,
  );
  const answer = await call(on, { path: '/v1/models', headers: { origin: 'https://evil.example' } });
  assert.equal(answer.headers.get('access-control-allow-origin'), null);
  assert.match(answer.headers.get('vary') ?? '', /Origin/);
});

test('cors_origins takes origins only: no path, no wildcard', () => {
  const base =
    'providers: [ { name: m, kind: mock } ]\nmodels: [ { name: x, deployments: [ { provider: m, model: x } ] } ]\n';
  assert.deepEqual(parseConfigText(`${base}cors_origins: ["https://a.example:8443"]`, { source: 't' }).corsOrigins, [
    'https://a.example:8443',
  ]);
  for (const bad of ['"*"', '"https://a.example/app"', '"a.example"']) {
    assert.throws(
      () => parseConfigText(`${base}cors_origins: [${bad}]`, { source: 't' }),
      (e: unknown) => e instanceof ConfigError && /cors_origins\[0\]: must be an origin/.test(e.message),
    );
  }
  assert.equal(
    allowedRequestHeaders('Authorization, X-Stainless-Retry-Count, Cookie'),
    'authorization, x-stainless-retry-count',
  );
});

// People and roles against the real gateway: an OIDC sign-in at a local identity provider (code flow with
// PKCE) lands a viewer who reads usage and gets 403 on any change, an administrator by the groups claim who
// may change, a team administrator who creates keys only in its team; named admin tokens carry their role.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFixture, call, type Fixture } from './fixture.ts';
import { browse, startLocalIdp, type IdpUser, type LocalIdp } from '../helpers/oidc-idp.ts';
import { validateOpenAIError } from '../helpers/schemas.ts';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = process.env.MODELGATE_UI_SHOTS ?? mkdtempSync(join(tmpdir(), 'modelgate-ui-'));
// CI installs Chromium (.ci/run); a machine without it skips the browser test locally and fails in CI.
const noBrowser =
  !existsSync(CHROMIUM) && process.env.CI !== 'true'
    ? `no Chromium at ${CHROMIUM}; skipped locally, it fails when CI=true`
    : false;

const ADMIN = 'adm-roles-0123456789abcdef';
const VIEWER_TOKEN = 'viewer-token-0123456789abcdef';
const TEAM_TOKEN = 'team-token-0123456789abcdefgh';
let fx: Fixture;
let idp: LocalIdp;

before(async () => {
  idp = await startLocalIdp();
  fx = await startFixture({
    extraConfig: `admin_token: "${ADMIN}"
admin_tokens:
  - { name: finance-dashboard, token: "\${VIEWER_TOKEN}", role: viewer }
  - { name: payments-ci, token: "${TEAM_TOKEN}", role: team_admin, team: payments }
oidc:
  issuer: "${idp.issuer}"
  client_id: ${idp.clientId}
  client_secret: "${idp.clientSecret}"
  scopes: [openid, email, profile]
  groups_claim: groups
  roles:
    admin: [platform]
    team_admin: [team-leads]
    viewer: [finance, engineering]`,
    env: { VIEWER_TOKEN },
  });
  idp.ready(`${fx.gw.url}/auth/callback`);
});
after(async () => {
  await fx?.close();
  await idp?.close();
});

/** Signs `user` in through the provider; returns the Cookie header the browser then sends to the gateway. */
async function signIn(id: string, user: IdpUser): Promise<{ cookie: string; setCookies: string[] }> {
  idp.nextUser(id, user);
  const done = await browse(`${fx.gw.url}/auth/login`, (u) => u.origin === fx.gw.url && u.pathname === '/ui/');
  assert.equal(done.url.pathname, '/ui/', `the sign-in ends on the dashboard: ${done.status} ${done.text}`);
  const session = done.cookies.get('mg_session');
  assert.ok(session, 'a session cookie');
  return { cookie: `mg_session=${session}`, setCookies: done.setCookies };
}

async function as(
  cookie: string,
  path: string,
  opts: { method?: string; body?: unknown } = {},
): Promise<{ status: number; json: unknown; text: string }> {
  const res = await fetch(fx.gw.url + path, {
    method: opts.method ?? (opts.body === undefined ? 'GET' : 'POST'),
    headers: { cookie, 'content-type': 'application/json' },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text };
}

test('a viewer signed in with OIDC reads usage and requests, and gets 403 on creating a key', async () => {
  const { cookie, setCookies } = await signIn('ann', { email: 'ann@example.com', groups: ['finance'] });
  const sessionCookie = setCookies.find((c) => c.startsWith('mg_session='));
  assert.ok(sessionCookie);
  for (const attribute of [/;\s*HttpOnly/i, /;\s*Secure/i, /;\s*SameSite=Strict/i, /;\s*Path=\//i])
    assert.match(sessionCookie, attribute);
  const me = await as(cookie, '/admin/me');
  assert.deepEqual(me.json, { kind: 'user', name: 'ann@example.com', role: 'viewer' });
  assert.equal((await as(cookie, '/admin/usage')).status, 200);
  assert.equal((await as(cookie, '/admin/requests')).status, 200);
  assert.equal((await as(cookie, '/admin/keys')).status, 200);
  const refused = await as(cookie, '/admin/keys', { body: { name: 'by-a-viewer' } });
  assert.equal(refused.status, 403, refused.text);
  validateOpenAIError(refused.json);
  assert.match((refused.json as { error: { message: string } }).error.message, /needs the team_admin role/);
  for (const [method, path] of [
    ['DELETE', `/admin/keys/${fx.keyId}`],
    ['PATCH', `/admin/keys/${fx.keyId}`],
    ['POST', `/admin/keys/${fx.keyId}/disable`],
    ['POST', '/admin/deployments/gpt-up%230/reset'],
  ] as const)
    assert.equal((await as(cookie, path, { method, body: {} })).status, 403, `${method} ${path}`);
  // Nothing changed: the key still works.
  assert.equal((await call(fx, { path: '/v1/models' })).status, 200);
});

test('an administrator by the groups claim may create a key', async () => {
  const { cookie } = await signIn('bob', { email: 'bob@example.com', groups: ['engineering', 'platform'] });
  assert.deepEqual((await as(cookie, '/admin/me')).json, { kind: 'user', name: 'bob@example.com', role: 'admin' });
  const created = await as(cookie, '/admin/keys', { body: { name: 'by-an-admin' } });
  assert.equal(created.status, 201, created.text);
  assert.match((created.json as { key: string }).key, /^sk-/);
});

test('a team administrator creates keys in its own team only', async () => {
  const { cookie } = await signIn('cat', { email: 'cat@example.com', groups: ['team-leads'], team: 'payments' });
  assert.deepEqual((await as(cookie, '/admin/me')).json, {
    kind: 'user',
    name: 'cat@example.com',
    role: 'team_admin',
    team: 'payments',
  });
  const own = await as(cookie, '/admin/keys', { body: { name: 'payments-svc', team: 'payments' } });
  assert.equal(own.status, 201, own.text);
  const unnamed = await as(cookie, '/admin/keys', { body: { name: 'payments-svc-2' } });
  assert.equal(unnamed.status, 201, 'a key without a team is made in the team administrator’s team');
  const other = await as(cookie, '/admin/keys', { body: { name: 'search-svc', team: 'search' } });
  assert.equal(other.status, 403, other.text);
  assert.match((other.json as { error: { message: string } }).error.message, /team payments only/);
  // A key of no team (made by the administrator) is out of its reach.
  assert.equal((await as(cookie, `/admin/keys/${fx.keyId}`, { method: 'DELETE' })).status, 403);
  assert.equal((await as(cookie, '/admin/deployments/gpt-up%230/reset', { method: 'POST' })).status, 403);
});

test('a user whose groups have no role is not signed in; a forged session opens nothing', async () => {
  idp.nextUser('dan', { email: 'dan@example.com', groups: ['marketing'] });
  const done = await browse(`${fx.gw.url}/auth/login`, (u) => u.origin === fx.gw.url && u.pathname === '/ui/');
  assert.equal(done.status, 403);
  assert.equal(done.cookies.get('mg_session'), undefined);
  const { cookie } = await signIn('eve', { email: 'eve@example.com', groups: ['finance'] });
  const [body, mac] = cookie.slice('mg_session='.length).split('.');
  const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>;
  const forged = Buffer.from(JSON.stringify({ ...payload, role: 'admin' })).toString('base64url');
  const r = await as(`mg_session=${forged}.${mac}`, '/admin/keys', { body: { name: 'forged' } });
  assert.equal(r.status, 401);
  // A callback the gateway did not start (no state cookie) signs nobody in.
  const stray = await fetch(`${fx.gw.url}/auth/callback?code=x&state=y`, { redirect: 'manual' });
  assert.equal(stray.status, 400);
});

test('named admin tokens carry their role: a viewer token reads and gets 403 on writes', async () => {
  const read = await call(fx, { path: '/admin/usage', auth: VIEWER_TOKEN });
  assert.equal(read.status, 200);
  assert.deepEqual((await call(fx, { path: '/admin/me', auth: VIEWER_TOKEN })).json, {
    kind: 'token',
    name: 'finance-dashboard',
    role: 'viewer',
  });
  for (const [method, path, body] of [
    ['POST', '/admin/keys', { name: 'by-viewer-token' }],
    ['PATCH', `/admin/keys/${fx.keyId}`, { rpm: 1 }],
    ['DELETE', `/admin/keys/${fx.keyId}`, undefined],
  ] as const) {
    const r = await call(fx, { path, method, body, auth: VIEWER_TOKEN });
    assert.equal(r.status, 403, `${method} ${path}`);
  }
  const team = await call(fx, { path: '/admin/keys', body: { name: 'ci-made', team: 'payments' }, auth: TEAM_TOKEN });
  assert.equal(team.status, 201, team.text);
  const elsewhere = await call(fx, {
    path: '/admin/keys',
    body: { name: 'ci-other', team: 'search' },
    auth: TEAM_TOKEN,
  });
  assert.equal(elsewhere.status, 403);
  assert.deepEqual((await call(fx, { path: '/admin/me', auth: ADMIN })).json, {
    kind: 'token',
    name: 'admin_token',
    role: 'admin',
  });
});

test('the dashboard signs a viewer in with SSO in Chromium: it reads, and a new key is refused', {
  skip: noBrowser,
}, async () => {
  idp.nextUser('fay', { email: 'fay@example.com', groups: ['finance'] });
  const profile = mkdtempSync(join(tmpdir(), 'modelgate-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`${fx.gw.url}/ui/`);
    await page.waitForSelector('#sso:not([hidden])');
    await page.screenshot({ path: join(SHOTS, 'sign-in-sso.png') });
    await page.click('#sso a');
    await page.waitForSelector('#view-keys:not([hidden])');
    assert.equal(await page.innerText('#who'), 'fay@example.com · viewer');
    assert.equal(
      await page.evaluate(() => sessionStorage.length),
      0,
      'no token in the tab: the session cookie signs in',
    );
    assert.equal(
      await page.evaluate(() => (globalThis as unknown as { document: { cookie: string } }).document.cookie),
      '',
      'the session cookie is out of scripts’ reach',
    );
    await page.screenshot({ path: join(SHOTS, 'keys-as-viewer.png'), fullPage: true });
    assert.equal(await page.locator('#new-key').isVisible(), false, 'a viewer is offered no new key');
    assert.equal(await page.locator('#nav a[data-view=audit]').isVisible(), false, 'nor the audit trail');
    // The key list is searched (by name, masked key, team or model), sorted and paged in the page.
    await page.fill('#keys-search', 'payments-svc');
    assert.deepEqual(await page.locator('#keys-table tbody tr td:first-child').allInnerTexts(), [
      'payments-svc',
      'payments-svc-2',
    ]);
    assert.match(await page.innerText('#keys-page'), /^2 keys · page 1 of 1$/);
    await page.fill('#keys-search', '');
    await page.selectOption('#keys-sort', 'created');
    assert.equal(await page.locator('#keys-table tbody tr td:first-child').first().innerText(), 'ci-made');
    const refused = await page.evaluate(async () => {
      const r = await fetch('/admin/keys', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'from-the-page' }),
      });
      return r.status;
    });
    assert.equal(refused, 403);
    // Usage for the last 24 hours is drawn by the hour, and a model keeps its colour from chart to chart.
    for (const model of ['gpt-up', 'gpt-mock'])
      assert.equal(
        (await call(fx, { path: '/v1/chat/completions', body: { model, messages: [{ role: 'user', content: 'hi' }] } }))
          .status,
        200,
      );
    await page.click('#nav a[data-view=usage]');
    await page.selectOption('#usage-range', '1');
    // The charts are drawn again for the new range: wait for the hourly ones, not the daily ones before.
    await page.locator('figcaption .bucket', { hasText: 'hour' }).first().waitFor();
    const bar = page.locator('#chart-tokens-model svg rect title', { hasText: /^\d\d:00 · gpt-mock:/ });
    await bar.first().waitFor({ state: 'attached' });
    assert.match((await bar.first().textContent()) ?? '', /^\d\d:00 · gpt-mock:/, 'an hour label');
    assert.equal(await page.locator('figcaption .bucket').first().innerText(), 'hour');
    const fillOf = (chart: string, model: string) =>
      page
        .locator(`${chart} svg rect`, { has: page.locator('title', { hasText: model }) })
        .first()
        .getAttribute('fill');
    assert.equal(await fillOf('#chart-cost-model', 'gpt-up'), await fillOf('#chart-tokens-model', 'gpt-up'));
    assert.notEqual(await fillOf('#chart-tokens-model', 'gpt-up'), await fillOf('#chart-tokens-model', 'gpt-mock'));
    await page.screenshot({ path: join(SHOTS, 'usage-24h.png'), fullPage: true });
    await page.click('#sign-out');
    await page.waitForURL(/\/auth\/logout$/);
    const after = await page.evaluate(async () => (await fetch('/admin/me')).status);
    assert.equal(after, 401, 'signed out');
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
});

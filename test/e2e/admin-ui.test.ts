// The dashboard at /ui/ in headless Chromium (Debian's, driven by playwright-core): sign in with the admin
// token, create a key, see it listed, send a request with it, and find that request in the latest requests
// and its cost in the usage view. A screenshot of each view lands in a temp directory for a person to look at.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { startFixture, call, UPSTREAM_SECRET, type Fixture } from './fixture.ts';

const CHROMIUM = '/usr/bin/chromium';
const ADMIN = 'adm-ui-0123456789abcdef-token';
const SHOTS = process.env.MODELGATE_UI_SHOTS ?? mkdtempSync(join(tmpdir(), 'modelgate-ui-'));

let fx: Fixture;
let context: BrowserContext;
let profile: string;

const missing = !existsSync(CHROMIUM);
// CI installs Chromium (.ci/run); a machine without it skips locally and fails in CI.
const skip =
  missing && process.env.CI !== 'true'
    ? `no Chromium at ${CHROMIUM} (apt-get install chromium); skipped locally, it fails when CI=true`
    : false;

before(async () => {
  if (skip) return;
  fx = await startFixture({ extraConfig: 'admin_token: "${ADMIN_TOKEN}"', env: { ADMIN_TOKEN: ADMIN } });
  profile = mkdtempSync(join(tmpdir(), 'modelgate-chromium-'));
  // A fresh profile directory per run (Playwright passes it as --user-data-dir).
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});

after(async () => {
  await context?.close();
  await fx?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

/** Every CSP violation and page error the page reports: the dashboard must run under its own strict policy. */
function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    // The wrong token tried first is answered 401, which Chromium logs as a failed load.
    if (msg.type() === 'error' && !/status of 401/.test(msg.text())) problems.push(`console: ${msg.text()}`);
  });
  return problems;
}

test('dashboard: sign in, create a key, use it, see the request and its cost', { skip }, async () => {
  const page = context.pages()[0] ?? (await context.newPage());
  const problems = watchProblems(page);
  page.on('dialog', (d) => void d.accept());

  const res = await page.goto(`${fx.gw.url}/ui/`);
  assert.equal(res?.status(), 200);
  assert.match(res?.headers()['content-security-policy'] ?? '', /script-src 'self'/);

  await page.fill('#token', 'not-the-admin-token-at-all');
  await page.click('#signin-form button[type=submit]');
  await page.waitForSelector('#signin-error:has-text("refused")');

  await page.fill('#token', ADMIN);
  await page.click('#signin-form button[type=submit]');
  await page.waitForSelector('#view-keys:not([hidden])');
  assert.equal(await page.evaluate(() => sessionStorage.getItem('modelgate.adminToken')), ADMIN, 'kept for this tab');
  assert.equal(await page.evaluate(() => localStorage.length), 0, 'never kept beyond the tab');

  await page.click('#new-key');
  await page.fill('#key-form [name=name]', 'browser-made');
  await page.fill('#key-form [name=models]', 'gpt-up');
  await page.fill('#key-form [name=rpm]', '60');
  await page.fill('#key-form [name=budget_usd]', '2.5');
  await page.screenshot({ path: join(SHOTS, 'new-key-dialog.png') });
  await page.click('#key-save');
  await page.waitForSelector('#new-key-shown:not([hidden])');
  const key = await page.inputValue('#new-key-value');
  assert.match(key, /^sk-[0-9A-Za-z]{48}$/);
  const listed = page.locator('#keys-table tbody tr', { hasText: 'browser-made' });
  await listed.waitFor();
  assert.match(await listed.innerText(), new RegExp(`${key.slice(0, 4)}…${key.slice(-4)}`));
  assert.match(await listed.innerText(), /60 rpm/);
  await page.screenshot({ path: join(SHOTS, 'keys.png'), fullPage: true });

  // The key works at once; the request costs what gpt-up's price says ($1 / $2 per million tokens).
  const r = await call(fx, {
    path: '/v1/chat/completions',
    auth: key,
    body: { model: 'gpt-up', messages: [{ role: 'user', content: 'hello from the browser test' }] },
  });
  assert.equal(r.status, 200, r.text);
  const usage = (r.json as { usage: { prompt_tokens: number; completion_tokens: number } }).usage;
  const cost = (usage.prompt_tokens + 2 * usage.completion_tokens) / 1e6;

  await page.click('#nav a[data-view=requests]');
  const req = page.locator('#requests-table tbody tr', { hasText: 'browser-made' });
  await req.waitFor();
  const reqText = await req.innerText();
  assert.match(reqText, /gpt-up/);
  assert.match(reqText, /\b200\b/);
  assert.ok(!reqText.includes(key), 'the whole key is never shown again');
  await page.screenshot({ path: join(SHOTS, 'requests.png'), fullPage: true });

  await page.click('#nav a[data-view=usage]');
  const byModel = page.locator('#usage-by-model tbody tr[data-model="gpt-up"]');
  await byModel.waitFor();
  const shownCost = await byModel.locator('td.cost').innerText();
  assert.equal(shownCost, `$${cost.toPrecision(2)}`, `cost ${cost}`);
  // The charts are drawn: the day-by-model cost chart has a bar for gpt-up, with its value in the title.
  const bar = page.locator('#chart-cost-model svg rect title', { hasText: 'gpt-up' });
  assert.ok((await bar.count()) >= 1);
  assert.ok((await page.locator('#chart-hourly svg rect').count()) >= 1);
  await page.screenshot({ path: join(SHOTS, 'usage.png'), fullPage: true });

  await page.click('#nav a[data-view=deployments]');
  await page.locator('#deployments-table tbody tr[data-deployment="gpt-up#0"]').waitFor();
  assert.match(await page.locator('#deployments-table tbody tr[data-deployment="gpt-up#0"]').innerText(), /closed/);
  await page.screenshot({ path: join(SHOTS, 'deployments.png'), fullPage: true });

  // Edit a limit from the page.
  await page.click('#nav a[data-view=keys]');
  await listed.getByRole('button', { name: 'Edit' }).click();
  assert.equal(await page.inputValue('#key-form [name=rpm]'), '60', 'the form opens with the key’s settings');
  await page.fill('#key-form [name=rpm]', '30');
  await page.click('#key-save');
  await page.locator('#keys-table tbody tr', { hasText: '30 rpm' }).waitFor();

  // Disable from the page: the next request with the key is refused.
  await listed.getByRole('button', { name: 'Disable' }).click();
  await page.locator('#keys-table tbody tr', { hasText: 'browser-made' }).locator('.badge.disabled').waitFor();
  assert.equal(
    (
      await call(fx, {
        path: '/v1/chat/completions',
        auth: key,
        body: { model: 'gpt-up', messages: [{ role: 'user', content: 'x' }] },
      })
    ).status,
    401,
  );

  assert.deepEqual(problems, [], 'no script errors and no CSP violations');
});

test('dashboard: providers and models listed with masked credentials; a model added and deleted from the page', {
  skip,
}, async () => {
  const page = await context.newPage();
  const problems = watchProblems(page);
  page.on('dialog', (d) => void d.accept());
  await page.goto(`${fx.gw.url}/ui/#models`);
  await page.fill('#token', ADMIN);
  await page.click('#signin-form button[type=submit]');
  const upRow = page.locator('#providers-table tbody tr[data-provider="up"]');
  await upRow.waitFor();
  const upText = await upRow.innerText();
  assert.ok(upText.includes(`${UPSTREAM_SECRET.slice(0, 4)}…${UPSTREAM_SECRET.slice(-4)}`), upText);
  assert.match(upText, /file/);
  assert.ok(!(await page.content()).includes(UPSTREAM_SECRET), 'no credential in the page');

  await page.click('#new-model');
  await page.fill(
    '#entry-form [name=entry]',
    JSON.stringify({ name: 'claude-dash', deployments: [{ provider: 'nowhere', model: 'd' }] }),
  );
  await page.click('#entry-save');
  await page.waitForSelector('#entry-form-error:has-text("unknown provider")');
  await page.fill(
    '#entry-form [name=entry]',
    JSON.stringify({ name: 'claude-dash', deployments: [{ provider: 'mock', model: 'd' }] }),
  );
  await page.click('#entry-save');
  const row = page.locator('#models-table tbody tr[data-model="claude-dash"]');
  await row.waitFor();
  assert.match(await row.innerText(), /database/);
  await page.screenshot({ path: join(SHOTS, 'models.png'), fullPage: true });
  const ask = () =>
    call(fx, {
      path: '/v1/chat/completions',
      body: { model: 'claude-dash', messages: [{ role: 'user', content: 'x' }] },
    });
  assert.equal((await ask()).status, 200, 'served at once');
  await row.getByRole('button', { name: 'Delete' }).click();
  await row.waitFor({ state: 'detached' });
  assert.equal((await ask()).status, 404);
  // The invalid entry tried first is answered 400, which Chromium logs as a failed load.
  assert.deepEqual(
    problems.filter((p) => !/status of 400/.test(p)),
    [],
    'no script errors and no CSP violations',
  );
  await page.close();
});

test('dashboard files: content types, a strict CSP, no inline script or style; unknown files 404', {
  skip,
}, async () => {
  const html = await fetch(`${fx.gw.url}/ui/`);
  const text = await html.text();
  assert.equal(html.headers.get('content-type'), 'text/html; charset=utf-8');
  const csp = html.headers.get('content-security-policy') ?? '';
  for (const part of ["default-src 'none'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"])
    assert.ok(csp.includes(part), part);
  assert.ok(!csp.includes('unsafe'), 'no unsafe-inline or unsafe-eval');
  assert.ok(!/<script(?![^>]*\bsrc=)[^>]*>/.test(text), 'no inline script');
  assert.ok(!/\sstyle=/.test(text), 'no inline style');
  assert.equal(html.headers.get('x-content-type-options'), 'nosniff');
  const js = await fetch(`${fx.gw.url}/ui/app.js`);
  await js.arrayBuffer();
  assert.equal(js.headers.get('content-type'), 'text/javascript; charset=utf-8');
  const css = await fetch(`${fx.gw.url}/ui/style.css`);
  await css.arrayBuffer();
  assert.equal(css.headers.get('content-type'), 'text/css; charset=utf-8');
  const again = await fetch(`${fx.gw.url}/ui/app.js`, { headers: { 'if-none-match': js.headers.get('etag') ?? '' } });
  assert.equal(again.status, 304);
  const missingFile = await fetch(`${fx.gw.url}/ui/../src/main.ts`);
  await missingFile.arrayBuffer();
  assert.equal(missingFile.status, 404);
  const bare = await fetch(`${fx.gw.url}/ui`, { redirect: 'manual' });
  assert.equal(bare.status, 308);
  assert.equal(bare.headers.get('location'), '/ui/');
});

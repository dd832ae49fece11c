// An operator moves a key from a daily budget to none (everything it ever spent) while the gateway runs:
// the key is held to that spend as soon as the change reaches the gateway, not at its next restart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { startFixture, call } from './fixture.ts';
import { waitUntil } from '../helpers/gateway-process.ts';
import { validateOpenAIError } from '../helpers/schemas.ts';

const DAY = 86_400_000;
const USD = 1_000_000_000;

test('a key moved from a daily budget to none is refused once its earlier spend passes the budget', async () => {
  const fx = await startFixture();
  try {
    const { key, id } = await fx.gw.createKey({
      name: 'period',
      flags: ['--models', 'gpt-up', '--budget-usd', '5', '--budget-period', 'daily'],
    });
    // A year ago the key spent 5.5 USD (billed then under another period: not today's).
    const yearAgo = Math.floor((Date.now() - 365 * DAY) / DAY) * DAY;
    const db = new DatabaseSync(fx.gw.dbPath);
    try {
      db.prepare('INSERT INTO key_spend (key_id, period_start, spent_nanos, spent_tokens) VALUES (?, ?, ?, ?)').run(
        id,
        yearAgo,
        5.5 * USD,
        1000,
      );
    } finally {
      db.close();
    }
    const body = { model: 'gpt-up', max_tokens: 5, messages: [{ role: 'user', content: 'Hello' }] };
    const served = await call(fx, { path: '/v1/chat/completions', auth: key, body });
    assert.equal(served.status, 200, 'today the daily budget is untouched');

    await fx.gw.cli(['keys', 'update', id, '--budget-period', 'none']);
    let refused = await call(fx, { path: '/v1/chat/completions', auth: key, body });
    await waitUntil(
      async () => {
        if (refused.status === 403) return true;
        assert.equal(refused.status, 200);
        refused = await call(fx, { path: '/v1/chat/completions', auth: key, body });
        return false;
      },
      'the key to be refused under its new period',
      5_000,
    );
    validateOpenAIError(refused.json);
    assert.equal((refused.json as { error: { code: string } }).error.code, 'budget_exhausted');

    const self = await call(fx, { path: '/api/usage/token', auth: key });
    const data = (self.json as { data: { spent_usd: number; budget_period: string | null } }).data;
    assert.equal(data.budget_period, null, 'no period');
    assert.ok(data.spent_usd > 5.5, `spent ${data.spent_usd} USD: a year ago's 5.5 and today's`);
  } finally {
    await fx.close();
  }
});

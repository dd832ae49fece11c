// Tests for nano-USD pricing: exact integers, one rounding per row, worst-case reservations.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { costNanos, nanosToQuota, nanosToUsd, reservationNanos, usdToNanos } from './budget.ts';
import type { Price } from './config-types.ts';

const sonnet: Price = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
const mini: Price = { input: 0.15, output: 0.6, cacheRead: 0.075, cacheWrite: 0.15 };

test('costNanos prices each token class per million', () => {
  const usage = { inputTokens: 1000, outputTokens: 500, cacheReadTokens: 2000, cacheWriteTokens: 100 };
  // 1000*3000 + 500*15000 + 2000*300 + 100*3750 nanos
  assert.equal(costNanos(usage, sonnet), 3_000_000 + 7_500_000 + 600_000 + 375_000);
});

test('costNanos gives integers for fractional prices and rounds once per row', () => {
  const one = { inputTokens: 1, outputTokens: 0, cacheReadTokens: 1, cacheWriteTokens: 0 };
  // 150 + 75 = 225 exactly, despite 0.15*1000 not being exact in binary floating point.
  assert.equal(costNanos(one, mini), 225);
  const odd: Price = { input: 0.0001, output: 0.0004, cacheRead: 0, cacheWrite: 0 };
  // 0.1 + 0.4 nanos = 0.5 → one rounding gives 1; rounding each class first would give 0.
  assert.equal(costNanos({ inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 }, odd), 1);
  assert.ok(
    Number.isInteger(
      costNanos({ inputTokens: 12345, outputTokens: 678, cacheReadTokens: 9, cacheWriteTokens: 1 }, mini),
    ),
  );
});

test('costNanos is zero for an unpriced model', () => {
  assert.equal(costNanos({ inputTokens: 10, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 }, null), 0);
});

test('sums of row costs are exact integers', () => {
  let sum = 0;
  for (let i = 0; i < 1000; i++)
    sum += costNanos({ inputTokens: 7, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0 }, mini);
  assert.equal(sum, 1000 * (7 * 150 + 3 * 600));
});

test('reservationNanos prices the prompt at the dearest prompt rate and max_tokens as output', () => {
  assert.equal(reservationNanos({ promptTokens: 100, maxTokens: 10 }, sonnet), 100 * 3750 + 10 * 15_000);
  assert.equal(reservationNanos({ promptTokens: 100, maxTokens: 10 }, null), 0);
  const worst = reservationNanos({ promptTokens: 100, maxTokens: 10 }, mini);
  const real = costNanos({ inputTokens: 60, outputTokens: 10, cacheReadTokens: 20, cacheWriteTokens: 20 }, mini);
  assert.ok(worst >= real);
});

test('usd, nanos and quota conversions', () => {
  assert.equal(usdToNanos(1.5), 1_500_000_000);
  assert.equal(usdToNanos(0.000000001), 1);
  assert.equal(nanosToUsd(2_500_000_000), 2.5);
  assert.equal(nanosToQuota(usdToNanos(1), 500_000), 500_000);
  assert.equal(nanosToQuota(2000, 500_000), 1);
  assert.equal(nanosToQuota(999, 500_000), 0);
});

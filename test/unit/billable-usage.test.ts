// billableUsage: the guard between an upstream's reported token counts and the bill.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { billableUsage, MAX_TOKENS_PER_KIND, type Usage } from '../../src/core/usage.ts';

const usage = (inputTokens: number, outputTokens = 0, cacheReadTokens = 0, cacheWriteTokens = 0): Usage => ({
  inputTokens,
  outputTokens,
  cacheReadTokens,
  cacheWriteTokens,
});

test('sane counts come back as the same object; odd ones are clamped per kind', () => {
  const sane = usage(10, 20, 3, 4);
  assert.equal(billableUsage(sane), sane);
  const rows: [Usage, Usage][] = [
    [usage(-5, 7), usage(0, 7)],
    [usage(NaN, 1.4, 2.5), usage(0, 1, 3)],
    [
      usage(1e300, Infinity, -Infinity, MAX_TOKENS_PER_KIND + 1),
      usage(MAX_TOKENS_PER_KIND, MAX_TOKENS_PER_KIND, 0, MAX_TOKENS_PER_KIND),
    ],
    [usage(0.4), usage(0)],
  ];
  for (const [given, billed] of rows) assert.deepEqual(billableUsage(given), billed, JSON.stringify(given));
});

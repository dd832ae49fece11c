// Tests for refusal → status, code and message: 403 "quota restricted" for budgets, 429 for limits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { REFUSAL_CODES, neverFitsTpm, refusalError } from '../../src/admission/refusal.ts';
import type { AdmissionLimits, AdmissionSnapshot, RefusalReason } from '../../src/admission/store.ts';

const LIMITS: AdmissionLimits = {
  rpm: 60,
  tpm: 10_000,
  maxConcurrency: 4,
  budgetNanos: 5_000_000_000,
  tokenBudget: 100_000,
};
const SNAPSHOT: AdmissionSnapshot = {
  spentNanos: 4_990_000_000,
  reservedNanos: 5_787_000,
  spentTokens: 99_000,
  reservedTokens: 500,
  rpmUsed: 60,
  tpmUsed: 9_000,
  inFlight: 4,
  windowResetSec: 30,
};

test('budget refusal is 403 quota restricted with dollars left', () => {
  assert.deepEqual(refusalError({ reason: 'budget', limits: LIMITS, snapshot: SNAPSHOT }), {
    status: 403,
    code: 'budget_exhausted',
    message: 'quota restricted: USD budget, $0.004213 left of $5.00',
  });
});

test('token budget refusal is 403 with tokens left', () => {
  const e = refusalError({ reason: 'token_budget', limits: LIMITS, snapshot: SNAPSHOT });
  assert.equal(e.status, 403);
  assert.equal(e.message, 'quota restricted: token budget, 500 tokens left of 100000');
});

test('left never goes below zero when real usage overshot the estimate', () => {
  const over = { ...SNAPSHOT, spentNanos: 6_000_000_000 };
  assert.match(refusalError({ reason: 'budget', limits: LIMITS, snapshot: over }).message, /\$0\.00 left of \$5\.00$/);
});

test('rate and concurrency refusals are 429 and mention the retry', () => {
  const rpm = refusalError({ reason: 'rpm', limits: LIMITS, snapshot: SNAPSHOT, retryAfterSec: 30 });
  assert.deepEqual([rpm.status, rpm.code], [429, 'rate_limit_requests']);
  assert.match(rpm.message, /60 requests per minute; retry after 30s$/);
  const tpm = refusalError({ reason: 'tpm', limits: LIMITS, snapshot: SNAPSHOT, retryAfterSec: 30 });
  assert.deepEqual([tpm.status, tpm.code], [429, 'rate_limit_tokens']);
  assert.match(tpm.message, /10000 tokens per minute, 1000 left this minute/);
  const conc = refusalError({ reason: 'concurrency', limits: LIMITS, snapshot: SNAPSHOT, retryAfterSec: 1 });
  assert.deepEqual([conc.status, conc.code], [429, 'concurrency_limit']);
  assert.match(conc.message, /4 requests in flight; retry after 1s$/);
});

test('a request larger than the whole tokens-per-minute limit is told so, not told to wait', () => {
  const huge = refusalError({ reason: 'tpm', limits: LIMITS, snapshot: SNAPSHOT, requestTokens: 12_000 });
  assert.deepEqual([huge.status, huge.code], [429, 'rate_limit_tokens']);
  assert.match(huge.message, /it reserves 12000 tokens .* the limit is 10000 tokens per minute; lower max_tokens/);
  assert.equal(neverFitsTpm({ reason: 'tpm', limits: LIMITS, requestTokens: 12_000 }), true);
  assert.equal(
    neverFitsTpm({ reason: 'tpm', limits: LIMITS, requestTokens: 10_000 }),
    false,
    'a request of the whole minute fits an empty one',
  );
  assert.equal(neverFitsTpm({ reason: 'rpm', limits: LIMITS, requestTokens: 12_000 }), false);
  const fits = refusalError({
    reason: 'tpm',
    limits: LIMITS,
    snapshot: SNAPSHOT,
    retryAfterSec: 30,
    requestTokens: 2_000,
  });
  assert.match(fits.message, /10000 tokens per minute, 1000 left this minute .*; retry after 30s$/);
});

test('every reason maps to a distinct code whose status matches the catalogue', () => {
  const reasons = Object.keys(REFUSAL_CODES) as RefusalReason[];
  assert.equal(new Set(reasons.map((r) => REFUSAL_CODES[r].code)).size, reasons.length);
  for (const reason of reasons) {
    const e = refusalError({ reason, limits: LIMITS, snapshot: SNAPSHOT });
    assert.equal(e.status, REFUSAL_CODES[reason].status);
    assert.equal(e.code, REFUSAL_CODES[reason].code);
  }
});

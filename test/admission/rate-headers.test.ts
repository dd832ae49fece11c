// Tests for the x-ratelimit-* headers and retry-after built from limits and a snapshot.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rateLimitHeaders } from '../../src/admission/rate-headers.ts';
import type { AdmissionLimits, AdmissionSnapshot } from '../../src/admission/store.ts';

const NO_LIMITS: AdmissionLimits = { rpm: null, tpm: null, maxConcurrency: null, budgetNanos: null, tokenBudget: null };
const SNAPSHOT: AdmissionSnapshot = {
  spentNanos: 0,
  reservedNanos: 0,
  spentTokens: 0,
  reservedTokens: 0,
  rpmUsed: 3,
  tpmUsed: 1500,
  inFlight: 1,
  windowResetSec: 12,
};

test('both limit families, OpenAI names, reset in seconds', () => {
  assert.deepEqual(rateLimitHeaders({ limits: { ...NO_LIMITS, rpm: 10, tpm: 1000 }, snapshot: SNAPSHOT }), {
    'x-ratelimit-limit-requests': '10',
    'x-ratelimit-remaining-requests': '7',
    'x-ratelimit-reset-requests': '12s',
    'x-ratelimit-limit-tokens': '1000',
    'x-ratelimit-remaining-tokens': '0',
    'x-ratelimit-reset-tokens': '12s',
  });
});

test('only the limits that are set get headers', () => {
  assert.deepEqual(Object.keys(rateLimitHeaders({ limits: { ...NO_LIMITS, tpm: 5000 }, snapshot: SNAPSHOT })), [
    'x-ratelimit-limit-tokens',
    'x-ratelimit-remaining-tokens',
    'x-ratelimit-reset-tokens',
  ]);
  assert.deepEqual(rateLimitHeaders({ limits: NO_LIMITS, snapshot: SNAPSHOT }), {});
});

test('retry-after is whole seconds, at least 1', () => {
  assert.equal(rateLimitHeaders({ limits: NO_LIMITS, snapshot: SNAPSHOT, retryAfterSec: 43 })['retry-after'], '43');
  assert.equal(rateLimitHeaders({ limits: NO_LIMITS, snapshot: SNAPSHOT, retryAfterSec: 0.2 })['retry-after'], '1');
});

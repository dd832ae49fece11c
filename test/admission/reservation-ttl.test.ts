// A reservation outlives the longest request it can belong to, so a long stream's cost still lands on
// the budget and its slot is held to the end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_RESERVATION_TTL_MS, reservationTtlFor } from '../../src/admission/store.ts';
import { MemoryAdmissionStore } from '../../src/admission/memory-store.ts';

const LIMITS = { rpm: null, tpm: null, maxConcurrency: 1, budgetNanos: 1_000_000, tokenBudget: null };

test('the TTL is the longest total timeout plus a minute, never below the default', async () => {
  assert.equal(reservationTtlFor([]), DEFAULT_RESERVATION_TTL_MS);
  assert.equal(reservationTtlFor([600_000, 30_000]), 660_000);
  assert.equal(reservationTtlFor([3_600_000, 600_000]), 3_660_000);
});

test('a request running for 11 minutes under an hour-long deadline keeps its slot and is charged when it settles', async () => {
  const store = new MemoryAdmissionStore({ reservationTtlMs: reservationTtlFor([3_600_000]) });
  const t0 = 1_700_000_000_000;
  const first = await store.admit({
    keyId: 'k',
    limits: LIMITS,
    periodStart: 0,
    reserveNanos: 400_000,
    reserveTokens: 10,
    now: t0,
  });
  assert.ok(first.ok);
  const later = t0 + 11 * 60_000;
  const second = await store.admit({
    keyId: 'k',
    limits: LIMITS,
    periodStart: 0,
    reserveNanos: 400_000,
    reserveTokens: 10,
    now: later,
  });
  assert.equal(second.ok, false, 'the concurrency slot is still held');
  assert.deepEqual(
    await store.settle({ reservationId: first.ok ? first.reservationId : '', nanos: 900_000, tokens: 10 }),
    {
      ok: true,
      periodStart: 0,
    },
  );
  const third = await store.admit({
    keyId: 'k',
    limits: LIMITS,
    periodStart: 0,
    reserveNanos: 400_000,
    reserveTokens: 10,
    now: later + 1,
  });
  assert.equal(third.ok, false);
  assert.equal(third.ok ? '' : third.reason, 'budget', 'the long request was charged: 0.9 of 1.0 spent');
});

// Runs the admission store contract against the in-process memory store, then what its reservation
// ids must get right on their own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryAdmissionStore } from '../../src/admission/memory-store.ts';
import type { AdmitResult, ReservationId } from '../../src/admission/store.ts';
import { storeContract } from './store-contract.ts';

storeContract('memory', async ({ count, reservationTtlMs }) => {
  const store = new MemoryAdmissionStore({ reservationTtlMs });
  return { stores: Array.from({ length: count }, () => store), cleanup: () => store.close() };
});

const LIMITS = { rpm: null, tpm: null, maxConcurrency: null, budgetNanos: 1_000_000_000, tokenBudget: null };
const T0 = 1_700_000_000_000;

function idOf(result: AdmitResult): ReservationId {
  assert.ok(result.ok, 'admitted');
  return result.reservationId;
}

test('an id settled late, after its reservation was reclaimed and another request admitted, changes nothing', async () => {
  const store = new MemoryAdmissionStore({ reservationTtlMs: 1_000 });
  const stale = idOf(
    await store.admit({ keyId: 'k', limits: LIMITS, periodStart: 0, reserveNanos: 100, reserveTokens: 1, now: T0 }),
  );
  // The next admit, past the TTL, reclaims the first reservation.
  const fresh = idOf(
    await store.admit({
      keyId: 'k',
      limits: LIMITS,
      periodStart: 0,
      reserveNanos: 300,
      reserveTokens: 3,
      now: T0 + 2_000,
    }),
  );
  assert.notEqual(fresh, stale);
  assert.deepEqual(await store.settle({ reservationId: stale, nanos: 5_000, tokens: 50 }), { ok: false });
  assert.deepEqual(await store.release(stale), { ok: false });
  const during = await store.snapshot('k', T0 + 2_000);
  assert.equal(during.inFlight, 1, 'the new reservation stays held');
  assert.equal(during.reservedNanos, 300);
  assert.equal(during.spentNanos, 0, 'nothing billed for the stale id');
  assert.deepEqual(await store.settle({ reservationId: fresh, nanos: 250, tokens: 2 }), { ok: true, periodStart: 0 });
  assert.deepEqual(
    await store.settle({ reservationId: fresh, nanos: 250, tokens: 2 }),
    { ok: false },
    'settled once only',
  );
  const after = await store.snapshot('k', T0 + 2_000);
  assert.deepEqual([after.inFlight, after.reservedNanos, after.spentNanos], [0, 0, 250]);
});

test('ids it never handed out are unknown, whatever their type or shape', async () => {
  const store = new MemoryAdmissionStore();
  const id = idOf(
    await store.admit({ keyId: 'k', limits: LIMITS, periodStart: 0, reserveNanos: 1, reserveTokens: 1, now: T0 }),
  );
  for (const other of [
    'nope',
    String(id),
    -1,
    0.5,
    Number.NaN,
    Number.MAX_SAFE_INTEGER + 2,
    (id as number) + 2 ** 21,
  ]) {
    assert.deepEqual(await store.release(other), { ok: false }, `release(${String(other)})`);
  }
  assert.deepEqual(await store.release(id), { ok: true, periodStart: 0 });
});

test('reservations finished out of order, across keys, leave each key exact and reclaim in admit order', async () => {
  const store = new MemoryAdmissionStore({ reservationTtlMs: 10_000 });
  const held: Array<{ key: string; id: ReservationId; nanos: number }> = [];
  for (let i = 0; i < 40; i++) {
    const key = i % 3 === 0 ? 'a' : 'b';
    const nanos = 10 + i;
    held.push({
      key,
      id: idOf(
        await store.admit({
          keyId: key,
          limits: LIMITS,
          periodStart: 0,
          reserveNanos: nanos,
          reserveTokens: 1,
          now: T0 + i,
        }),
      ),
      nanos,
    });
  }
  // Settle every other one, from the newest back, so reservations go from the middle of each key's list.
  for (let i = held.length - 1; i >= 0; i -= 2) {
    const h = held[i]!;
    assert.deepEqual(await store.settle({ reservationId: h.id, nanos: 1, tokens: 1 }), { ok: true, periodStart: 0 });
  }
  const left = held.filter((_, i) => i % 2 === 0);
  for (const key of ['a', 'b']) {
    const snap = await store.snapshot(key, T0 + 40);
    const mine = left.filter((h) => h.key === key);
    assert.equal(snap.inFlight, mine.length, `key ${key} in flight`);
    assert.equal(
      snap.reservedNanos,
      mine.reduce((sum, h) => sum + h.nanos, 0),
      `key ${key} reserved`,
    );
  }
  // Past the TTL of the first 21 admits (at T0 + 0 … 20) only: the rest are still held.
  await store.admit({
    keyId: 'a',
    limits: LIMITS,
    periodStart: 0,
    reserveNanos: 1,
    reserveTokens: 1,
    now: T0 + 10_020,
  });
  await store.admit({
    keyId: 'b',
    limits: LIMITS,
    periodStart: 0,
    reserveNanos: 1,
    reserveTokens: 1,
    now: T0 + 10_020,
  });
  for (const h of left) {
    const admittedAt = held.indexOf(h);
    const expected = admittedAt <= 20 ? { ok: false } : { ok: true, periodStart: 0 };
    assert.deepEqual(await store.release(h.id), expected, `reservation admitted at +${admittedAt} ms`);
  }
});

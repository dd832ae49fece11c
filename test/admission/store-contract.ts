// The shared contract every AdmissionStore must meet; each implementation's test file runs it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { AdmissionLimits, AdmissionStore, AdmitRequest } from '../../src/admission/store.ts';

export interface StoreHarness {
  /** `count` stores sharing one state (for Redis: separate connections). */
  stores: AdmissionStore[];
  cleanup(): Promise<void>;
}

export type OpenStores = (options: { count: number; reservationTtlMs?: number }) => Promise<StoreHarness>;

const NO_LIMITS: AdmissionLimits = { rpm: null, tpm: null, maxConcurrency: null, budgetNanos: null, tokenBudget: null };
/** 15 s into a minute, so the window resets in 45 s. */
const T0 = Date.UTC(2025, 0, 1, 12, 0, 15);

type RequestOverrides = Partial<Omit<AdmitRequest, 'limits'>> & { limits?: Partial<AdmissionLimits> };

function request(keyId: string, overrides: RequestOverrides): AdmitRequest {
  return {
    keyId,
    periodStart: 0,
    reserveNanos: 0,
    reserveTokens: 0,
    now: T0,
    ...overrides,
    limits: { ...NO_LIMITS, ...overrides.limits },
  };
}

async function withStore(
  open: OpenStores,
  run: (store: AdmissionStore, keyId: string) => Promise<void>,
  options: { reservationTtlMs?: number } = {},
): Promise<void> {
  const harness = await open({ count: 1, ...options });
  try {
    await run(harness.stores[0], `key-${randomUUID()}`);
  } finally {
    await harness.cleanup();
  }
}

function admitted(result: { ok: boolean }): asserts result is { ok: true; reservationId: string } {
  assert.equal(result.ok, true, `expected admission, got ${JSON.stringify(result)}`);
}

export function storeContract(name: string, open: OpenStores): void {
  describe(`admission store contract: ${name}`, () => {
    test('admit reserves budget, tokens, a slot and counts the request', async () => {
      await withStore(open, async (store, key) => {
        const r = await store.admit(
          request(key, { reserveNanos: 500, reserveTokens: 40, limits: { budgetNanos: 1000 } }),
        );
        admitted(r);
        assert.deepEqual(r.snapshot, {
          spentNanos: 0,
          reservedNanos: 500,
          spentTokens: 0,
          reservedTokens: 40,
          rpmUsed: 1,
          tpmUsed: 40,
          inFlight: 1,
          windowResetSec: 45,
        });
        assert.deepEqual(await store.snapshot(key, T0), r.snapshot);
      });
    });

    test('budget refusal changes nothing and reports what is left', async () => {
      await withStore(open, async (store, key) => {
        const limits = { budgetNanos: 1000 };
        admitted(await store.admit(request(key, { reserveNanos: 600, limits })));
        const r = await store.admit(request(key, { reserveNanos: 600, limits }));
        assert.equal(r.ok, false);
        if (r.ok) return;
        assert.equal(r.reason, 'budget');
        assert.equal(r.retryAfterSec, undefined);
        assert.equal(r.snapshot.reservedNanos, 600);
        assert.equal(r.snapshot.rpmUsed, 1, 'a refusal does not count toward RPM');
        admitted(await store.admit(request(key, { reserveNanos: 400, limits })));
      });
    });

    test('in flight: reservations may hold only a share of what is left; one alone may take it all', async () => {
      await withStore(open, async (store, key) => {
        const limits = { budgetNanos: 1000, inFlightShare: 0.25 };
        const alone = await store.admit(request(key, { reserveNanos: 900, limits }));
        admitted(alone);
        await store.release(alone.reservationId);
        const first = await store.admit(request(key, { reserveNanos: 200, limits }));
        admitted(first);
        admitted(await store.admit(request(key, { reserveNanos: 50, limits })));
        const held = await store.admit(request(key, { reserveNanos: 1, limits }));
        assert.equal(held.ok, false);
        if (!held.ok) assert.equal(held.reason, 'in_flight');
        // 600 spent: a quarter of the 400 left is 100, and 50 of it is still in flight.
        await store.settle({ reservationId: first.reservationId, nanos: 600, tokens: 0 });
        admitted(await store.admit(request(key, { reserveNanos: 50, limits })));
        const r = await store.admit(request(key, { reserveNanos: 1, limits }));
        assert.equal(r.ok, false);
        if (!r.ok) assert.equal(r.reason, 'in_flight');
      });
    });

    test('token budget refusal', async () => {
      await withStore(open, async (store, key) => {
        const limits = { tokenBudget: 100 };
        const first = await store.admit(request(key, { reserveTokens: 80, limits }));
        admitted(first);
        await store.settle({ reservationId: first.reservationId, nanos: 0, tokens: 70 });
        const r = await store.admit(request(key, { reserveTokens: 31, limits }));
        assert.equal(r.ok, false);
        if (!r.ok) assert.equal(r.reason, 'token_budget');
        admitted(await store.admit(request(key, { reserveTokens: 30, limits })));
      });
    });

    test('rpm refusal with retry-after until the window ends, then a new window', async () => {
      await withStore(open, async (store, key) => {
        const limits = { rpm: 2 };
        admitted(await store.admit(request(key, { limits })));
        const second = await store.admit(request(key, { limits, now: T0 + 1000 }));
        admitted(second);
        await store.release(second.reservationId);
        const r = await store.admit(request(key, { limits, now: T0 + 2000 }));
        assert.equal(r.ok, false, 'a released request still counts toward RPM');
        if (r.ok) return;
        assert.equal(r.reason, 'rpm');
        assert.equal(r.retryAfterSec, 43);
        admitted(await store.admit(request(key, { limits, now: T0 + 45_000 })));
      });
    });

    test('tpm refusal; settle corrects the window to the real tokens', async () => {
      await withStore(open, async (store, key) => {
        const limits = { tpm: 100 };
        const first = await store.admit(request(key, { reserveTokens: 60, limits }));
        admitted(first);
        const r = await store.admit(request(key, { reserveTokens: 60, limits, now: T0 + 5000 }));
        assert.equal(r.ok, false);
        if (r.ok) return;
        assert.equal(r.reason, 'tpm');
        assert.equal(r.retryAfterSec, 40);
        assert.equal(r.snapshot.tpmUsed, 60);
        await store.settle({ reservationId: first.reservationId, nanos: 0, tokens: 10 });
        assert.equal((await store.snapshot(key, T0)).tpmUsed, 10);
        admitted(await store.admit(request(key, { reserveTokens: 60, limits })));
      });
    });

    test('concurrency refusal with retry-after 1; a finished request frees its slot', async () => {
      await withStore(open, async (store, key) => {
        const limits = { maxConcurrency: 2 };
        const a = await store.admit(request(key, { limits }));
        admitted(a);
        admitted(await store.admit(request(key, { limits })));
        const r = await store.admit(request(key, { limits }));
        assert.equal(r.ok, false);
        if (r.ok) return;
        assert.equal(r.reason, 'concurrency');
        assert.equal(r.retryAfterSec, 1);
        assert.equal(r.snapshot.inFlight, 2);
        await store.settle({ reservationId: a.reservationId, nanos: 1, tokens: 1 });
        admitted(await store.admit(request(key, { limits })));
      });
    });

    test('the permanent refusal is reported first', async () => {
      await withStore(open, async (store, key) => {
        const limits = { rpm: 1, budgetNanos: 10 };
        admitted(await store.admit(request(key, { reserveNanos: 10, limits })));
        const r = await store.admit(request(key, { reserveNanos: 10, limits }));
        assert.equal(r.ok ? 'ok' : r.reason, 'budget');
      });
    });

    test('settle replaces the reservation with the real amounts, once', async () => {
      await withStore(open, async (store, key) => {
        const r = await store.admit(request(key, { reserveNanos: 900, reserveTokens: 90, periodStart: 7 }));
        admitted(r);
        assert.deepEqual(await store.settle({ reservationId: r.reservationId, nanos: 321, tokens: 33 }), {
          ok: true,
          periodStart: 7,
        });
        const s = await store.snapshot(key, T0);
        assert.deepEqual(
          [s.spentNanos, s.reservedNanos, s.spentTokens, s.reservedTokens, s.inFlight, s.tpmUsed, s.rpmUsed],
          [321, 0, 33, 0, 0, 33, 1],
        );
        assert.deepEqual(await store.settle({ reservationId: r.reservationId, nanos: 321, tokens: 33 }), { ok: false });
        assert.deepEqual(await store.release(r.reservationId), { ok: false });
        assert.equal((await store.snapshot(key, T0)).spentNanos, 321);
      });
    });

    test('release restores budget, tokens and the slot but keeps the RPM count', async () => {
      await withStore(open, async (store, key) => {
        const limits = { budgetNanos: 100, maxConcurrency: 1, tpm: 50 };
        const r = await store.admit(request(key, { reserveNanos: 100, reserveTokens: 50, limits }));
        admitted(r);
        assert.equal((await store.release(r.reservationId)).ok, true);
        const s = await store.snapshot(key, T0);
        assert.deepEqual(
          [s.spentNanos, s.reservedNanos, s.reservedTokens, s.inFlight, s.tpmUsed, s.rpmUsed],
          [0, 0, 0, 0, 0, 1],
        );
        admitted(await store.admit(request(key, { reserveNanos: 100, reserveTokens: 50, limits })));
      });
    });

    test('unknown reservation ids are refused', async () => {
      await withStore(open, async (store) => {
        assert.deepEqual(await store.settle({ reservationId: 'nope', nanos: 1, tokens: 1 }), { ok: false });
        assert.deepEqual(await store.release(`${randomUUID()}.ghost`), { ok: false });
      });
    });

    test('a new period starts from zero; an old reservation settles into its own period', async () => {
      await withStore(open, async (store, key) => {
        const limits = { budgetNanos: 1000 };
        const old = await store.admit(request(key, { periodStart: 100, reserveNanos: 500, limits }));
        admitted(old);
        const spent = await store.admit(request(key, { periodStart: 100, reserveNanos: 500, limits }));
        admitted(spent);
        await store.settle({ reservationId: spent.reservationId, nanos: 500, tokens: 5 });
        assert.equal((await store.admit(request(key, { periodStart: 100, reserveNanos: 1, limits }))).ok, false);
        assert.equal((await store.snapshot(key, T0, 200)).spentNanos, 0, 'snapshot looks ahead without rolling');
        assert.equal((await store.snapshot(key, T0)).spentNanos, 500);

        const fresh = await store.admit(request(key, { periodStart: 200, reserveNanos: 1000, limits }));
        admitted(fresh);
        assert.equal(fresh.snapshot.spentNanos, 0);
        assert.deepEqual(await store.settle({ reservationId: old.reservationId, nanos: 400, tokens: 4 }), {
          ok: true,
          periodStart: 100,
        });
        const s = await store.snapshot(key, T0);
        assert.deepEqual([s.spentNanos, s.reservedNanos, s.inFlight], [0, 1000, 1]);
        const stale = await store.admit(request(key, { periodStart: 100, reserveNanos: 1, limits }));
        assert.equal(stale.ok ? 'ok' : stale.reason, 'budget', 'a skewed older period is charged to the newer one');
      });
    });

    test('seedSpent raises spent by default, replaces on request, ignores older periods', async () => {
      await withStore(open, async (store, key) => {
        await store.seedSpent({ keyId: key, periodStart: 10, spentNanos: 700, spentTokens: 70 });
        let s = await store.snapshot(key, T0);
        assert.deepEqual([s.spentNanos, s.spentTokens], [700, 70]);
        await store.seedSpent({ keyId: key, periodStart: 10, spentNanos: 500, spentTokens: 50 });
        s = await store.snapshot(key, T0);
        assert.deepEqual([s.spentNanos, s.spentTokens], [700, 70]);
        await store.seedSpent({ keyId: key, periodStart: 10, spentNanos: 500, spentTokens: 50, mode: 'replace' });
        s = await store.snapshot(key, T0);
        assert.deepEqual([s.spentNanos, s.spentTokens], [500, 50]);
        await store.seedSpent({ keyId: key, periodStart: 5, spentNanos: 9000, spentTokens: 900 });
        assert.equal((await store.snapshot(key, T0)).spentNanos, 500);
        const r = await store.admit(
          request(key, { periodStart: 10, reserveNanos: 501, limits: { budgetNanos: 1000 } }),
        );
        assert.equal(r.ok ? 'ok' : r.reason, 'budget', 'seeded spend counts against the budget');
        await store.seedSpent({ keyId: key, periodStart: 20, spentNanos: 30, spentTokens: 3 });
        s = await store.snapshot(key, T0);
        assert.deepEqual([s.spentNanos, s.spentTokens], [30, 3]);
      });
    });

    test('seedSpent of an earlier period raises the current one only when it contains it (a key moved daily → monthly)', async () => {
      await withStore(open, async (store, key) => {
        await store.seedSpent({ keyId: key, periodStart: 10, periodEnd: 20, spentNanos: 700, spentTokens: 70 });
        // Ended when the current one began: a stale seed of the period before (a slow load at the roll).
        await store.seedSpent({ keyId: key, periodStart: 5, periodEnd: 10, spentNanos: 9000, spentTokens: 900 });
        let s = await store.snapshot(key, T0);
        assert.deepEqual([s.spentNanos, s.spentTokens], [700, 70]);
        // Contains the current one: its durable total is this period's spend too.
        await store.seedSpent({ keyId: key, periodStart: 5, periodEnd: 30, spentNanos: 900, spentTokens: 90 });
        s = await store.snapshot(key, T0);
        assert.deepEqual([s.spentNanos, s.spentTokens], [900, 90]);
        await store.seedSpent({ keyId: key, periodStart: 5, periodEnd: 30, spentNanos: 100, spentTokens: 10 });
        assert.equal((await store.snapshot(key, T0)).spentNanos, 900, 'only raised');
        // A key without a period: everything it ever spent.
        await store.seedSpent({ keyId: key, periodStart: 0, periodEnd: Infinity, spentNanos: 1200, spentTokens: 120 });
        s = await store.snapshot(key, T0);
        assert.deepEqual([s.spentNanos, s.spentTokens], [1200, 120]);
        const r = await store.admit(request(key, { periodStart: 0, reserveNanos: 1, limits: { budgetNanos: 1000 } }));
        assert.equal(r.ok ? 'ok' : r.reason, 'budget', "the earlier period's spend counts against the budget");
        // The current period still ends when it ends: a later one starts from its own total.
        await store.seedSpent({ keyId: key, periodStart: 20, periodEnd: 30, spentNanos: 30, spentTokens: 3 });
        s = await store.snapshot(key, T0);
        assert.deepEqual([s.spentNanos, s.spentTokens], [30, 3]);
      });
    });

    test('expired reservations are reclaimed inside admit and bill nothing', async () => {
      await withStore(
        open,
        async (store, key) => {
          const limits = { maxConcurrency: 1, budgetNanos: 100 };
          const crashed = await store.admit(request(key, { reserveNanos: 100, reserveTokens: 10, limits }));
          admitted(crashed);
          assert.equal((await store.admit(request(key, { reserveNanos: 100, now: T0 + 4999, limits }))).ok, false);
          const later = await store.admit(request(key, { reserveNanos: 100, now: T0 + 5000, limits }));
          admitted(later);
          assert.deepEqual(
            [later.snapshot.spentNanos, later.snapshot.reservedNanos, later.snapshot.inFlight],
            [0, 100, 1],
          );
          assert.deepEqual(await store.settle({ reservationId: crashed.reservationId, nanos: 100, tokens: 10 }), {
            ok: false,
          });
          assert.equal((await store.snapshot(key, T0 + 5000)).inFlight, 1);
        },
        { reservationTtlMs: 5000 },
      );
    });

    test('amounts above 1e14 nano-USD stay exact', async () => {
      await withStore(open, async (store, key) => {
        const big = 123_456_789_012_345;
        const r = await store.admit(request(key, { reserveNanos: big, limits: { budgetNanos: 4 * big } }));
        admitted(r);
        assert.equal(r.snapshot.reservedNanos, big);
        await store.settle({ reservationId: r.reservationId, nanos: big - 1, tokens: 1 });
        assert.equal((await store.snapshot(key, T0)).spentNanos, big - 1);
      });
    });

    test('fractional or negative amounts are refused with RangeError', async () => {
      await withStore(open, async (store, key) => {
        await assert.rejects(async () => store.admit(request(key, { reserveNanos: 1.5 })), RangeError);
        await assert.rejects(async () => store.admit(request(key, { reserveTokens: -1 })), RangeError);
        const r = await store.admit(request(key, {}));
        admitted(r);
        await assert.rejects(
          async () => store.settle({ reservationId: r.reservationId, nanos: 0.5, tokens: 1 }),
          RangeError,
        );
        await assert.rejects(
          async () => store.seedSpent({ keyId: key, periodStart: 0, spentNanos: -3, spentTokens: 0 }),
          RangeError,
        );
        assert.equal((await store.settle({ reservationId: r.reservationId, nanos: 1, tokens: 1 })).ok, true);
      });
    });

    test('300 concurrent admits against a budget that fits 20: exactly 20 admitted, spend exact', async () => {
      const harness = await open({ count: 4 });
      try {
        const key = `key-${randomUUID()}`;
        const reserve = 1_000_000;
        const limits = { budgetNanos: 20 * reserve };
        const results = await Promise.all(
          Array.from({ length: 300 }, (_, i) =>
            harness.stores[i % harness.stores.length].admit(
              request(key, { reserveNanos: reserve, reserveTokens: 100, limits }),
            ),
          ),
        );
        const ok = results.filter((r) => r.ok);
        assert.equal(ok.length, 20);
        assert.ok(results.every((r) => r.ok || r.reason === 'budget'));
        let expected = 0;
        await Promise.all(
          ok.map((r, i) => {
            if (!r.ok) throw new Error('unreachable');
            const nanos = reserve - i * 997;
            expected += nanos;
            return harness.stores[i % harness.stores.length].settle({
              reservationId: r.reservationId,
              nanos,
              tokens: 50,
            });
          }),
        );
        const s = await harness.stores[0].snapshot(key, T0);
        assert.equal(s.spentNanos, expected);
        assert.ok(s.spentNanos <= limits.budgetNanos);
        assert.deepEqual([s.reservedNanos, s.inFlight, s.spentTokens], [0, 0, 20 * 50]);
      } finally {
        await harness.cleanup();
      }
    });
  });
}

// Runs the admission store contract against Redis (several connections sharing one prefix),
// plus the Redis-only behaviour: script reload after SCRIPT FLUSH and key cleanup.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { RedisAdmissionStore } from '../../src/admission/redis-store.ts';
import { storeContract } from './store-contract.ts';
import type { StoreHarness } from './store-contract.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

async function reachable(): Promise<boolean> {
  const probe = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => {});
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

const available = await reachable();
if (!available && process.env.CI === 'true') {
  test('redis is reachable in CI', () => assert.fail(`Redis at ${REDIS_URL} is unreachable and CI=true`));
} else if (!available) {
  test('redis store contract', { skip: `Redis at ${REDIS_URL} is unreachable; skipped locally` }, () => {});
} else {
  const admin = new Redis(REDIS_URL);
  const prefixes: string[] = [];

  async function deletePrefix(prefix: string): Promise<void> {
    const keys: string[] = [];
    for await (const batch of admin.scanStream({ match: `${prefix}*`, count: 500 })) keys.push(...(batch as string[]));
    if (keys.length > 0) await admin.del(...keys);
  }

  after(async () => {
    for (const p of prefixes) await deletePrefix(p);
    admin.disconnect();
  });

  storeContract('redis', async ({ count, reservationTtlMs }): Promise<StoreHarness> => {
    const prefix = `mg:test-${randomUUID()}:`;
    prefixes.push(prefix);
    // The contract steps time through `now`; Redis's own clock is tested below.
    const stores = Array.from(
      { length: count },
      () => new RedisAdmissionStore({ url: REDIS_URL, prefix, reservationTtlMs, clock: 'caller' }),
    );
    return {
      stores,
      cleanup: async () => {
        await Promise.all(stores.map((s) => s.close()));
        await deletePrefix(prefix);
      },
    };
  });

  let store: RedisAdmissionStore;
  const prefix = `mg:test-${randomUUID()}:`;
  before(() => {
    prefixes.push(prefix);
    store = new RedisAdmissionStore({ client: admin, prefix });
  });

  test('redis store reloads its scripts after SCRIPT FLUSH (NOSCRIPT)', async () => {
    await admin.script('FLUSH');
    const r = await store.admit({
      keyId: 'k',
      limits: { rpm: null, tpm: null, maxConcurrency: null, budgetNanos: null, tokenBudget: null },
      periodStart: 0,
      reserveNanos: 5,
      reserveTokens: 5,
      now: Date.now(),
    });
    assert.equal(r.ok, true);
  });

  test('a restarted instance frees the reservations its crashed predecessor held; other instances keep theirs', async () => {
    const p = `mg:test-${randomUUID()}:`;
    prefixes.push(p);
    const limits = { rpm: null, tpm: null, maxConcurrency: 5, budgetNanos: 1_000, tokenBudget: null };
    const crashed = new RedisAdmissionStore({ client: admin, prefix: p, instanceId: 'host-a:8080' });
    const other = new RedisAdmissionStore({ client: admin, prefix: p, instanceId: 'host-b:8080' });
    const req = { keyId: 'k', limits, periodStart: 0, reserveNanos: 100, reserveTokens: 10, now: Date.now() };
    assert.equal((await crashed.admit(req)).ok, true);
    assert.equal((await crashed.admit(req)).ok, true);
    const kept = await other.admit(req);
    assert.equal(kept.ok, true);
    // The same instance comes back (same host:port): its two reservations are freed, the other's stays.
    const restarted = new RedisAdmissionStore({ client: admin, prefix: p, instanceId: 'host-a:8080' });
    assert.equal(await restarted.reclaimOwn(['k', 'unknown-key']), 2);
    const snap = await restarted.snapshot('k', Date.now());
    assert.equal(snap.inFlight, 1);
    assert.equal(snap.reservedNanos, 100);
    assert.equal(await restarted.reclaimOwn(['k']), 0, 'idempotent');
    assert.ok(kept.ok && (await other.settle({ reservationId: kept.reservationId, nanos: 50, tokens: 5 })).ok);
  });

  test("Redis losing a budgeted key's state (a restart without persistence) reloads it from the database before admitting", async () => {
    const p = `mg:test-${randomUUID()}:`;
    prefixes.push(p);
    const db = new Map<string, { nanos: number; tokens: number }>([['k@0', { nanos: 900, tokens: 9 }]]);
    const asked: string[] = [];
    const spentFor = async (keyId: string, periodStart: number) => {
      asked.push(`${keyId}@${periodStart}`);
      return db.get(`${keyId}@${periodStart}`) ?? { nanos: 0, tokens: 0 };
    };
    const s = new RedisAdmissionStore({ client: admin, prefix: p, spentFor });
    const limits = { rpm: null, tpm: null, maxConcurrency: null, budgetNanos: 1_000, tokenBudget: null };
    const req = { keyId: 'k', limits, periodStart: 0, reserveNanos: 200, reserveTokens: 1, now: Date.now() };
    await s.seedSpent({ keyId: 'k', periodStart: 0, spentNanos: 900, spentTokens: 9 });
    assert.equal((await s.admit(req)).ok, false, 'seeded: 900 of 1,000 spent, 200 do not fit');
    assert.deepEqual(asked, [], 'a known key needs no database read');
    await deletePrefix(p);
    const again = await s.admit(req);
    assert.equal(again.ok, false, 'not a fresh budget: the database says 900 were spent');
    assert.deepEqual(asked, ['k@0']);
    assert.equal((await s.snapshot('k', Date.now())).spentNanos, 900);
    // A key without a budget needs nothing from the database.
    const free = await s.admit({ ...req, keyId: 'free', limits: { ...limits, budgetNanos: null } });
    assert.equal(free.ok, true);
    assert.deepEqual(asked, ['k@0']);
  });

  test('requests arriving before the first connection is up share one wait for it', async () => {
    const p = `mg:test-${randomUUID()}:`;
    prefixes.push(p);
    const warnings: string[] = [];
    const onWarning = (w: Error): void => {
      warnings.push(w.name);
    };
    process.on('warning', onWarning);
    const s = new RedisAdmissionStore({ url: REDIS_URL, prefix: p });
    try {
      const limits = { rpm: null, tpm: null, maxConcurrency: null, budgetNanos: 1_000_000, tokenBudget: null };
      const results = await Promise.all(
        Array.from({ length: 50 }, () =>
          s.admit({ keyId: 'k', limits, periodStart: 0, reserveNanos: 1, reserveTokens: 1, now: Date.now() }),
        ),
      );
      assert.ok(results.every((r) => r.ok));
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(
        warnings.filter((w) => w === 'MaxListenersExceededWarning'),
        [],
        'no listener per waiting request',
      );
    } finally {
      process.off('warning', onWarning);
      await s.close();
    }
  });

  /** Redis's clock, unix ms. */
  async function redisNow(): Promise<number> {
    const [sec, usec] = await admin.time();
    return Number(sec) * 1000 + Math.floor(Number(usec) / 1000);
  }

  const HOUR = 3_600_000;

  test("a replica whose clock runs an hour ahead does not expire the reservations of the others (Redis's clock)", async () => {
    const limits = { rpm: null, tpm: null, maxConcurrency: 2, budgetNanos: 1_000, tokenBudget: null };
    for (const clock of ['server', 'caller'] as const) {
      const p = `mg:test-${randomUUID()}:`;
      prefixes.push(p);
      const ontime = new RedisAdmissionStore({ client: admin, prefix: p, clock });
      const ahead = new RedisAdmissionStore({ client: admin, prefix: p, clock });
      const req = { keyId: 'k', limits, periodStart: 0, reserveNanos: 100, reserveTokens: 10, now: Date.now() };
      const running = await ontime.admit(req);
      assert.ok(running.ok);
      const other = await ahead.admit({ ...req, now: req.now + HOUR });
      assert.ok(other.ok);
      const settled = await ontime.settle({ reservationId: running.reservationId, nanos: 100, tokens: 10 });
      if (clock === 'server') {
        assert.equal(other.snapshot.inFlight, 2, 'the running request still holds its slot');
        assert.deepEqual(settled, { ok: true, periodStart: 0 });
        assert.equal((await ontime.snapshot('k', Date.now())).spentNanos, 100, 'and its cost reaches the total');
      } else {
        // What the callers' clocks would do: the running request's reservation is taken as expired.
        assert.equal(other.snapshot.inFlight, 1);
        assert.deepEqual(settled, { ok: false });
      }
    }
  });

  test("rate-limit minutes are Redis's: a replica with a skewed clock counts into the same minute and is told when it ends", async () => {
    const limits = { rpm: 1, tpm: null, maxConcurrency: null, budgetNanos: null, tokenBudget: null };
    // Two admits straddle a minute's end about once in a thousand runs: then the pair is tried again.
    for (let attempt = 1; ; attempt++) {
      const p = `mg:test-${randomUUID()}:`;
      prefixes.push(p);
      const a = new RedisAdmissionStore({ client: admin, prefix: p });
      const b = new RedisAdmissionStore({ client: admin, prefix: p });
      const before = await redisNow();
      const first = await a.admit({
        keyId: 'k',
        limits,
        periodStart: 0,
        reserveNanos: 0,
        reserveTokens: 0,
        now: Date.now() - 90_000,
      });
      const second = await b.admit({
        keyId: 'k',
        limits,
        periodStart: 0,
        reserveNanos: 0,
        reserveTokens: 0,
        now: Date.now() + HOUR,
      });
      const after = await redisNow();
      if (Math.floor(before / 60_000) !== Math.floor(after / 60_000)) {
        assert.ok(attempt < 3, 'three pairs of admits in a row straddled a minute');
        continue;
      }
      assert.equal(first.ok, true);
      assert.equal(
        second.ok ? 'admitted' : second.reason,
        'rpm',
        "the second request of the minute is refused, whatever its replica's clock",
      );
      const end = (Math.floor(before / 60_000) + 1) * 60_000;
      assert.ok(!second.ok && second.retryAfterSec !== undefined);
      assert.ok(
        second.retryAfterSec >= Math.ceil((end - after) / 1000) &&
          second.retryAfterSec <= Math.ceil((end - before) / 1000),
        `retry-after ${second.retryAfterSec} s counts to the end of Redis's minute`,
      );
      const snap = await b.snapshot('k', Date.now() + HOUR);
      assert.equal(snap.rpmUsed, 1, "a snapshot judges the window by Redis's clock too");
      assert.ok(snap.windowResetSec >= 1 && snap.windowResetSec <= 60);
      break;
    }
  });

  test("reservations expire by Redis's clock, whatever time the caller passes", async () => {
    const p = `mg:test-${randomUUID()}:`;
    prefixes.push(p);
    const ttl = 20;
    const s = new RedisAdmissionStore({ client: admin, prefix: p, reservationTtlMs: ttl });
    const limits = { rpm: null, tpm: null, maxConcurrency: 1, budgetNanos: null, tokenBudget: null };
    const req = { keyId: 'k', limits, periodStart: 0, reserveNanos: 0, reserveTokens: 1, now: Date.now() };
    const crashed = await s.admit(req);
    assert.ok(crashed.ok);
    // Read after the admit, so the reservation was made at or before this instant of Redis's clock.
    const start = await redisNow();
    // Waits on Redis's clock, not the test's: the expiry is its to judge.
    while ((await redisNow()) <= start + ttl + 1);
    // A caller whose clock is an hour behind still sees the reservation expired.
    const later = await s.admit({ ...req, now: req.now - HOUR });
    assert.equal(later.ok, true, 'the expired reservation freed its slot');
    assert.deepEqual(await s.settle({ reservationId: crashed.reservationId, nanos: 0, tokens: 1 }), { ok: false });
  });

  test('redis store keeps every key under its prefix, hash-tagged by key id', async () => {
    const keys = await admin.keys(`${prefix}*`);
    assert.ok(keys.length > 0);
    assert.ok(keys.every((k) => k.startsWith(`${prefix}{k}:`)));
  });
}

// Redis for tests that need it: a live connection, or a local skip — and a failure when CI=true
// (DEVELOPERS.md: tests that need real components fail in CI if the component is missing).
import type { TestContext } from 'node:test';
import { Redis } from 'ioredis';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A connected client, or null after marking the test skipped (locally) — throws in CI. */
export async function redisOrSkip(t: TestContext): Promise<Redis | null> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await redis.connect();
    await redis.ping();
    return redis;
  } catch (err) {
    redis.disconnect();
    if (process.env.CI === 'true') throw new Error(`Redis is required in CI at ${REDIS_URL}: ${String(err)}`);
    t.skip(`Redis is not reachable at ${REDIS_URL}; skipped locally (it fails when CI=true)`);
    return null;
  }
}

/** Deletes every key under a test's prefix. */
export async function dropPrefix(redis: Redis, prefix: string): Promise<void> {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
}

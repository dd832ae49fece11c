// The admission stage's two-tier estimate: a byte bound far from limits, the tokenizer near them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Admission } from '../../src/admission/admission.ts';
import { MemoryAdmissionStore } from '../../src/admission/memory-store.ts';
import type { AdmissionStore } from '../../src/admission/store.ts';
import { estimatePromptTokens } from '../../src/admission/estimate-tokens.ts';
import type { KeyRecord } from '../../src/core/key-record.ts';
import type { ModelConfig } from '../../src/core/config-types.ts';

const MODEL: ModelConfig = {
  name: 'gpt-4o',
  family: 'openai',
  mode: 'chat',
  price: null,
  maxRetries: 0,
  deployments: [],
  timeouts: { connectMs: 1000, firstByteMs: 1000, idleMs: 1000, totalMs: 1000 },
};
const TEXT = 'The quick brown fox jumps over the lazy dog. '.repeat(40);
const BODY = { model: 'gpt-4o', max_tokens: 10, messages: [{ role: 'user', content: TEXT }] };
const BYTES = Buffer.byteLength(JSON.stringify(BODY));

function key(over: Partial<KeyRecord>): KeyRecord {
  return {
    id: 'key_1',
    name: 'k',
    hash: 'h',
    masked: 'sk-…',
    models: null,
    expiresAt: null,
    disabled: false,
    budgetUsd: null,
    tokenBudget: null,
    budgetPeriod: null,
    rpm: null,
    tpm: null,
    maxConcurrency: null,
    createdAt: 0,
    ...over,
  };
}

function admission(): Admission {
  return new Admission({
    store: new MemoryAdmissionStore(),
    keySpend: async () => ({ nanos: 0, tokens: 0 }),
    defaultMaxTokens: 100,
    onError: () => undefined,
  });
}

test('far from every limit the reservation is the byte bound and no token estimate is handed on', async () => {
  const a = admission();
  const k = key({ tokenBudget: 100_000_000 });
  for (let i = 0; i < 3; i++) {
    const admitted = await a.admit({ key: k, model: MODEL, body: BODY, bodyBytes: BYTES, now: 1_000 });
    assert.ok(admitted.ticket !== null);
    assert.equal(admitted.promptTokens, 0, 'a byte bound is not a token count for message_start or a bill');
  }
  const view = await a.view(k, 1_000);
  const bound = estimatePromptTokens(BODY, { boundBytes: BYTES }) + 10;
  assert.equal(view.snapshot.reservedTokens, 3 * bound);
});

test('near a limit the tokenizer decides: a request the byte bound would refuse is admitted', async () => {
  const a = admission();
  const exact = estimatePromptTokens(BODY);
  const bound = estimatePromptTokens(BODY, { boundBytes: BYTES });
  assert.ok(bound > 3 * exact, 'English text is several bytes per token');
  // Room for the exact size but not for the bound: the full estimate admits it.
  const k = key({ tokenBudget: exact + 10 + 5 });
  const first = await a.admit({ key: k, model: MODEL, body: BODY, bodyBytes: BYTES, now: 1_000 });
  assert.equal(first.promptTokens, exact);
  await a.finish(first.ticket!, { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, 0);
  // The same again once the store has reported on the key.
  const second = await a.admit({ key: k, model: MODEL, body: BODY, bodyBytes: BYTES, now: 1_000 });
  assert.equal(second.promptTokens, exact);
});

test('with the in-process store, requests of a seen key started together reserve in turn: the one over the limit is refused', async () => {
  const a = admission();
  const k = key({ budgetUsd: 100, rpm: 3 });
  const priced: ModelConfig = { ...MODEL, price: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 } };
  const request = { key: k, model: priced, body: BODY, bodyBytes: BYTES, now: 1_000 };
  // The key's first request loads its durable total.
  const first = await a.admit(request);
  const together = await Promise.allSettled([a.admit(request), a.admit(request), a.admit(request)]);
  assert.deepEqual(
    together.map((r) => r.status),
    ['fulfilled', 'fulfilled', 'rejected'],
  );
  const refused = together[2] as PromiseRejectedResult;
  assert.ok(refused.reason.status === 429 && /3 requests per minute/.test(refused.reason.message));
  const second = (together[0] as PromiseFulfilledResult<Awaited<ReturnType<Admission['admit']>>>).value;
  assert.equal(
    await a.finish(second.ticket!, { inputTokens: 3, outputTokens: 4, cacheReadTokens: 0, cacheWriteTokens: 0 }, 7),
    0,
    'a lifetime budget settles into period 0',
  );
  await a.finish(first.ticket!, { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, 0);
});

test('a store that answers with promises gets the same decisions; its failures fail closed', async () => {
  const inner = new MemoryAdmissionStore();
  let broken = false;
  const remote = {
    admit: async (req: Parameters<MemoryAdmissionStore['admit']>[0]) => {
      if (broken) throw new Error('connection refused');
      return inner.admit(req);
    },
    settle: async (req: Parameters<MemoryAdmissionStore['settle']>[0]) => {
      if (broken) throw new Error('connection refused');
      return inner.settle(req);
    },
    release: async (id: string) => inner.release(id),
    snapshot: (keyId: string, now: number, period?: number) => inner.snapshot(keyId, now, period),
    seedSpent: (req: Parameters<MemoryAdmissionStore['seedSpent']>[0]) => inner.seedSpent(req),
    close: () => inner.close(),
  };
  const errors: string[] = [];
  const a = new Admission({
    store: remote,
    keySpend: async () => ({ nanos: 0, tokens: 0 }),
    defaultMaxTokens: 100,
    onError: (_err, what) => errors.push(what),
    onRecovered: () => errors.push('recovered'),
  });
  const k = key({ tokenBudget: 100_000_000 });
  const request = { key: k, model: MODEL, body: BODY, bodyBytes: BYTES, now: 1_000 };
  await a.admit(request);
  const admitted = await a.admit(request);
  assert.ok(admitted.ticket !== null);
  broken = true;
  const settled = a.finish(
    admitted.ticket,
    { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
    0,
  );
  assert.equal(await settled, admitted.ticket.periodStart, 'an unreachable store still bills the admit-time period');
  await assert.rejects(
    async () => a.admit(request),
    (err: Error & { code?: string }) => err.code === 'admission_unavailable',
  );
  await assert.rejects(
    async () => a.admit(request),
    (err: Error & { code?: string }) => err.code === 'admission_unavailable',
  );
  // One outage, reported once when it starts (issue 39); its refusals are counted.
  assert.deepEqual(errors, ['settle']);
  assert.equal(a.unavailableRefusals, 2);
  broken = false;
  assert.ok((await a.admit(request)).ticket !== null);
  await a.admit(request);
  assert.deepEqual(errors, ['settle', 'recovered'], 'and once when it ends');
});

test('a settle the store failed (a Redis blip) is tried again in the background until it lands', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const inner = new MemoryAdmissionStore();
  let failures = 2;
  const errors: string[] = [];
  const flaky: AdmissionStore = {
    admit: (req) => inner.admit(req),
    settle: (req) => (failures-- > 0 ? Promise.reject(new Error('Connection is closed.')) : inner.settle(req)),
    release: (id) => inner.release(id),
    snapshot: (id, now, period) => inner.snapshot(id, now, period),
    seedSpent: (req) => inner.seedSpent(req),
    close: () => inner.close(),
  };
  const a = new Admission({
    store: flaky,
    keySpend: async () => ({ nanos: 0, tokens: 0 }),
    defaultMaxTokens: 100,
    onError: (err, what) => errors.push(`${what}: ${String(err)}`),
  });
  const k = key({ maxConcurrency: 1 });
  const admitted = await a.admit({ key: k, model: MODEL, body: BODY, bodyBytes: BYTES, now: 1_000 });
  assert.ok(admitted.ticket !== null);
  await a.finish(admitted.ticket, { inputTokens: 5, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 }, 10);
  assert.equal((await inner.snapshot(k.id, 1_000)).inFlight, 1, 'still held after the failed settle');
  assert.deepEqual(errors, ['settle: Error: Connection is closed.'], 'reported once');
  for (const ms of [1_000, 2_000]) {
    t.mock.timers.tick(ms);
    for (let i = 0; i < 5; i++) await Promise.resolve();
  }
  const after = await inner.snapshot(k.id, 1_000);
  assert.equal(after.inFlight, 0, 'the slot is free once the store answers again');
  assert.equal(after.spentTokens, 10);
});

test("refuseIfFull reads the key's window without reserving: a full concurrency or rpm window is the admission's 429", async () => {
  const a = admission();
  const k = key({ maxConcurrency: 1, rpm: 2 });
  await a.refuseIfFull(k, 1_000);
  await a.refuseIfFull(k, 1_000);
  const first = await a.admit({ key: k, model: MODEL, body: BODY, bodyBytes: BYTES, now: 1_000 });
  assert.ok(first.ticket !== null, 'the reads reserved nothing: the first admit still has the window');
  await assert.rejects(
    a.refuseIfFull(k, 1_000),
    (err: { code: string; status: number; headers: Record<string, string> }) => {
      assert.equal(err.code, 'concurrency_limit');
      assert.equal(err.status, 429);
      assert.equal(err.headers['retry-after'], '1');
      return true;
    },
  );
  await a.finish(first.ticket!, { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, 0);
  await a.refuseIfFull(k, 1_000);
  const second = await a.admit({ key: k, model: MODEL, body: BODY, bodyBytes: BYTES, now: 1_000 });
  await a.finish(second.ticket!, { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, 0);
  await assert.rejects(a.refuseIfFull(k, 1_000), (err: { code: string; headers: Record<string, string> }) => {
    assert.equal(err.code, 'rate_limit_requests');
    assert.equal(err.headers['x-ratelimit-remaining-requests'], '0');
    assert.ok(Number(err.headers['retry-after']) >= 1);
    return true;
  });
  await a.refuseIfFull(key({ id: 'key_free' }), 1_000);
});

test("refuseIfFull refuses a key whose money or token budget is spent with the admission's 403, before any body is read", async () => {
  const spent = new Admission({
    store: new MemoryAdmissionStore(),
    keySpend: async () => ({ nanos: 2_000_000, tokens: 500 }),
    defaultMaxTokens: 100,
    onError: () => undefined,
  });
  await assert.rejects(
    spent.refuseIfFull(key({ id: 'usd', budgetUsd: 0.001 }), 1_000),
    (err: Error & { code?: string; status?: number }) => {
      assert.equal(err.code, 'budget_exhausted');
      assert.equal(err.status, 403);
      return true;
    },
  );
  await assert.rejects(spent.refuseIfFull(key({ id: 'tokens', tokenBudget: 500 }), 1_000), {
    code: 'token_budget_exhausted',
  });
  // Budget left: nothing to refuse from the headers.
  await spent.refuseIfFull(key({ id: 'left', budgetUsd: 1 }), 1_000);
});

// A team is one more admission subject above its keys: each admit reserves against the key and the team,
// and a team's refusal takes the key's reservation back. Literal records, the in-process store.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Admission } from '../../src/admission/admission.ts';
import { MemoryAdmissionStore } from '../../src/admission/memory-store.ts';
import type { KeyRecord } from '../../src/core/key-record.ts';
import type { TeamRecord } from '../../src/core/team-record.ts';
import type { ModelConfig } from '../../src/core/config-types.ts';
import { GatewayError } from '../../src/core/errors.ts';
import { emptyUsage } from '../../src/core/usage.ts';

const MODEL: ModelConfig = {
  name: 'gpt-4o',
  family: 'openai',
  mode: 'chat',
  price: { input: 1, output: 1, cacheRead: 1, cacheWrite: 1 },
  maxRetries: 0,
  deployments: [],
  timeouts: { connectMs: 1000, firstByteMs: 1000, idleMs: 1000, totalMs: 1000 },
} as ModelConfig;
const BODY = { model: 'gpt-4o', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] };
const BYTES = Buffer.byteLength(JSON.stringify(BODY));

const TEAM: TeamRecord = {
  id: 'team_1',
  name: 'platform',
  models: null,
  mcpTools: null,
  budgetUsd: null,
  tokenBudget: null,
  budgetPeriod: null,
  rpm: 3,
  tpm: null,
  maxConcurrency: null,
  createdAt: 0,
};

function key(id: string, over: Partial<KeyRecord> = {}): KeyRecord {
  return {
    id,
    name: id,
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
    team: TEAM.name,
    teamRecord: TEAM,
    ...over,
  };
}

function admission(store = new MemoryAdmissionStore()): Admission {
  return new Admission({
    store,
    keySpend: async () => ({ nanos: 0, tokens: 0 }),
    defaultMaxTokens: 100,
    onError: () => undefined,
  });
}

test("a team's requests per minute are shared by its keys, and a key without limits of its own is held to them", async () => {
  const a = admission();
  const keys = [key('key_a'), key('key_b', { rpm: 100 })];
  const outcomes: string[] = [];
  for (let i = 0; i < 6; i++) {
    try {
      const { ticket } = await a.admit({ key: keys[i % 2], model: MODEL, body: BODY, bodyBytes: BYTES, now: 1_000 });
      assert.ok(ticket !== null && ticket.team !== null, 'the ticket holds the team');
      outcomes.push('ok');
    } catch (err) {
      assert.ok(err instanceof GatewayError);
      assert.equal(err.code, 'rate_limit_requests');
      assert.match(err.message, /^team platform: /);
      outcomes.push('refused');
    }
  }
  assert.deepEqual(outcomes, ['ok', 'ok', 'ok', 'refused', 'refused', 'refused']);
});

test("a team's refusal takes the key's reservation back: the key's slot and budget are free again", async () => {
  const store = new MemoryAdmissionStore();
  const a = admission(store);
  const team: TeamRecord = { ...TEAM, rpm: null, maxConcurrency: 1 };
  const k = key('key_c', { maxConcurrency: 5, budgetUsd: 1, teamRecord: team });
  const first = await a.admit({ key: k, model: MODEL, body: BODY, bodyBytes: BYTES, now: 1_000 });
  await assert.rejects(
    a.admit({ key: k, model: MODEL, body: BODY, bodyBytes: BYTES, now: 1_000 }),
    (err: GatewayError) => err.code === 'concurrency_limit',
  );
  const snap = await store.snapshot('key_c', 1_000);
  assert.equal(snap.inFlight, 1, "only the admitted request holds one of the key's slots");
  await a.finish(first.ticket!, { ...emptyUsage(), inputTokens: 5, outputTokens: 5 }, 10_000);
  assert.equal((await store.snapshot('team:team_1', 1_000)).inFlight, 0, "the team's slot is freed by the settle");
  assert.equal((await store.snapshot('team:team_1', 1_000)).spentNanos, 10_000, 'the team is billed the real cost');
  assert.equal((await store.snapshot('key_c', 1_000)).spentNanos, 10_000, 'and so is the key');
});

test('a key of a team without limits is admitted as it always was', async () => {
  const a = admission();
  const unlimited: TeamRecord = { ...TEAM, rpm: null };
  const { ticket } = await a.admit({
    key: key('key_d', { teamRecord: unlimited }),
    model: MODEL,
    body: BODY,
    bodyBytes: BYTES,
    now: 1_000,
  });
  assert.equal(ticket, null, 'no limits anywhere: nothing to settle');
});

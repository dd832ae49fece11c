// Session affinity: which session a request names, and the deployment a session keeps to — stable per
// session, weights respected across sessions, only the sessions of a deployment that drops out move, and
// failover still goes elsewhere.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CircuitBreaker } from '../../src/routing/circuit-breaker.ts';
import { KeyRotation } from '../../src/routing/key-rotation.ts';
import { AttemptPlan } from '../../src/routing/plan.ts';
import { sessionIdOf, sessionPick } from '../../src/routing/session.ts';
import { fakeClock, model } from './fixtures.ts';

test('the session id: Claude Code header, then Codex headers, then prompt_cache_key; cleaned and bounded', () => {
  const body = { prompt_cache_key: 'pck-1' };
  assert.equal(sessionIdOf({ 'x-claude-code-session-id': 'cc-1', session_id: 'cx-1' }, body), 'cc-1');
  assert.equal(sessionIdOf({ session_id: 'cx-1', conversation_id: 'old-1' }, body), 'cx-1');
  assert.equal(sessionIdOf({ conversation_id: 'old-1' }, body), 'old-1');
  assert.equal(sessionIdOf({}, body), 'pck-1');
  assert.equal(sessionIdOf({}, { prompt_cache_key: 7 }), null);
  assert.equal(sessionIdOf({}, null), null);
  assert.equal(sessionIdOf({ session_id: 'a\nb' }, null), 'a?b');
  assert.equal(sessionIdOf({ session_id: 'x'.repeat(500) }, null)?.length, 128);
});

const sessions = Array.from({ length: 4000 }, (_, i) => `session-${i}`);

test('weights hold across sessions; each session always gets the same deployment', () => {
  const m = model([{ weight: 1 }, { weight: 3 }]);
  const counts = new Map<string, number>();
  for (const s of sessions) {
    const d = sessionPick(s, m.deployments);
    assert.equal(sessionPick(s, m.deployments), d);
    counts.set(d.id, (counts.get(d.id) ?? 0) + 1);
  }
  const share = (counts.get('m#1') ?? 0) / sessions.length;
  assert.ok(share > 0.72 && share < 0.78, `weight 3 of 4 took ${share}`);
});

test('a deployment that drops out moves only its own sessions', () => {
  const m = model([{}, {}, {}]);
  const before = sessions.map((s) => sessionPick(s, m.deployments).id);
  const without = m.deployments.filter((d) => d.id !== 'm#1');
  sessions.forEach((s, i) => {
    const after = sessionPick(s, without).id;
    if (before[i] !== 'm#1') assert.equal(after, before[i], s);
  });
});

test('AttemptPlan: a session keeps to one deployment across requests, and fails over when it fails', () => {
  const clock = fakeClock();
  const breaker = new CircuitBreaker({ now: clock.now });
  const keys = new KeyRotation();
  const m = model([{}, {}, {}, {}]);
  const plan = (session: string) => new AttemptPlan({ model: m, breaker, keys, now: clock.now, session });
  const first = plan('s-42').next();
  assert.ok(first.done !== true);
  for (let i = 0; i < 20; i++) {
    const p = plan('s-42');
    const step = p.next();
    assert.ok(step.done !== true);
    assert.equal(step.deployment.id, first.deployment.id);
    p.record(step.deployment.id, { kind: 'success' });
  }
  const p = plan('s-42');
  const a = p.next();
  assert.ok(a.done !== true);
  p.record(a.deployment.id, { kind: 'retryable', status: 503 });
  const b = p.next();
  assert.ok(b.done !== true);
  assert.notEqual(b.deployment.id, a.deployment.id, 'failover still applies');
  const spread = new Set(
    sessions.slice(0, 200).map((s) => (plan(s).next() as { deployment: { id: string } }).deployment.id),
  );
  assert.equal(spread.size, 4, 'different sessions spread over the deployments');
});

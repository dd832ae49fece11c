// The warm-up that waits for a target's compiler to settle, driven by literal helper-CPU readings.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { settle, settleNote } from '../lib/settle.ts';
import type { SettleOptions, SettleProbe } from '../lib/settle.ts';
import type { RequestKind } from '../lib/requests.ts';

const OPTIONS: SettleOptions = { roundMs: 1000, minMs: 0, maxMs: 10_000, plateau: 0.8, quietShare: 0.01 };

/** A fake clock and helper threads whose CPU per round follows `perRoundShare` (share of one core). */
function fake(perRoundShare: number[]): SettleProbe & { warmed: RequestKind[] } {
  let now = 0;
  let helpers = 0;
  let round = 0;
  let msThisRound = 0;
  const warmed: RequestKind[] = [];
  return {
    warmed,
    async warm(kind, ms) {
      warmed.push(kind);
      now += ms;
      msThisRound += ms;
      if (msThisRound >= OPTIONS.roundMs) {
        helpers += (perRoundShare[Math.min(round, perRoundShare.length - 1)] ?? 0) * msThisRound * 1000;
        round += 1;
        msThisRound = 0;
      }
    },
    helperMicros: () => helpers,
    now: () => now,
  };
}

describe('settle', () => {
  it('warms every served kind each round until the helpers stop falling', async () => {
    const probe = fake([0.4, 0.35, 0.2, 0.08, 0.05, 0.045]);
    const record = await settle(new Set<RequestKind>(['chat', 'chat-stream', 'hold-stream']), OPTIONS, probe);
    // 0.35 is 88 % of 0.4, but one flat round can be noise: 0.2 and 0.08 fall again. 0.05 is 62 % of
    // 0.08; 0.045 is 90 % of 0.05 — one flat round, not two — so it warms to the end of the list (0.045 again).
    assert.equal(record.rounds, 7);
    assert.equal(record.settled, true);
    assert.equal(record.firstShare, 0.4);
    assert.equal(record.lastShare, 0.045);
    assert.deepEqual(probe.warmed.slice(0, 2), ['chat', 'chat-stream'], 'hold streams are not warmed');
    assert.match(
      settleNote(record),
      /warmed 7\.0 s in 7 round\(s\) before the timed scenarios: helper threads 40\.0 % → 4\.5 % of a core \(settled\)/,
    );
    assert.match(settleNote(record, 'the timed requests'), /before the timed requests: helper threads/);
  });

  it('warms at least the minimum time, whatever the helpers show', async () => {
    const record = await settle(new Set<RequestKind>(['chat']), { ...OPTIONS, minMs: 4000 }, fake([0.005]));
    assert.deepEqual([record.rounds, record.settled], [4, true]);
  });

  it('stops at once when the helpers are quiet', async () => {
    const record = await settle(new Set<RequestKind>(['chat']), OPTIONS, fake([0.005]));
    assert.deepEqual([record.rounds, record.settled], [1, true]);
  });

  it('gives up at the limit and says the helpers were still falling', async () => {
    const shares = Array.from({ length: 20 }, (_, i) => 0.9 * 0.5 ** i + 0.011);
    const record = await settle(
      new Set<RequestKind>(['chat']),
      { ...OPTIONS, maxMs: 3000, plateau: 0.99, quietShare: 0 },
      fake(shares),
    );
    assert.equal(record.rounds, 3);
    assert.equal(record.settled, false);
    assert.match(settleNote(record), /still falling when the warm-up gave up/);
  });
});

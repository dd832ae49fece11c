// The garbage-collection pass's reading of V8's --trace-gc-nvp lines and its table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gcRep, sumGcTrace, type GcRep } from '../lib/gc-pass.ts';
import type { TargetName } from '../lib/targets.ts';
import { gcTable, promotedRatio } from '../lib/gc-report.ts';

// Shortened from real lines (Node 24): the fields the pass reads, among others it ignores.
const TRACE = [
  '[11514:0x42f0e000:0]     2494 ms: pause=1.2 mutator=18.4 gc=s reduce_memory=0 scavenge=1.22 allocated=12460808 promoted=1363624 new_space_survived=1575592',
  '{"level":30,"msg":"a log line of the gateway, not the collector"}',
  '[11514:0x42f0e000:0]     2510 ms: pause=0.8 mutator=15.0 gc=s reduce_memory=0 allocated=7539192 promoted=636376 new_space_survived=400000',
  '[11514:0x42f0e000:0]     2600 ms: pause=3.5 mutator=80.1 gc=mc reduce_memory=0 allocated=1000000 promoted=999 mark=2.1',
  '[11514:0x42f0e000:0]     2601 ms: pause=0.1 mutator=1.0 gc=mmc reduce_memory=0 allocated=1000000',
].join('\n');

test('scavenges and mark-compacts are summed from their own lines; log lines and other kinds are not', () => {
  const totals = sumGcTrace(TRACE);
  // Allocation is counted from every collection's line (each says what came since the one before).
  assert.deepEqual(totals, {
    scavenges: 2,
    allocatedBytes: 22_000_000,
    promotedBytes: 2_000_000,
    scavengePauseMs: 2,
    majors: 1,
    majorPauseMs: 3.5,
  });
  const rep = gcRep(totals, 1000);
  assert.equal(rep.allocatedPerReq, 22_000);
  assert.equal(rep.promotedPerReq, 2000);
  assert.equal(rep.scavengePauseUsPerReq, 2);
  assert.equal(rep.majorPauseUsPerReq, 3.5);
  assert.ok(Number.isNaN(gcRep(totals, 0).promotedPerReq));
});

test('the table shows medians per target and the promoted ratio paired per repetition', () => {
  const rep = (promotedPerReq: number): GcRep => ({
    requests: 1000,
    scavenges: 2,
    allocatedPerReq: 20_480,
    promotedPerReq,
    scavengePauseUsPerReq: 1,
    majors: 0,
    majorPauseUsPerReq: 0,
  });
  const runs = new Map<TargetName, GcRep[]>([
    ['modelgate', [rep(400), rep(500), rep(450)]],
    ['bare-proxy', [rep(200), rep(250), rep(300)]],
  ]);
  assert.equal(promotedRatio(runs), 2);
  const text = gcTable(runs).join('\n');
  assert.match(text, /\| modelgate \| 20\.0 \| 450 \| 2\.00 \| 1\.00 \| 0 \| 0\.00 \|/);
  assert.match(text, /\| bare-proxy \| 20\.0 \| 250 \|/);
  assert.match(text, /2\.00 ×/);
  assert.deepEqual(gcTable(new Map()), []);
});

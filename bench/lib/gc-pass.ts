// The garbage-collection pass: modelgate and the bare proxy, freshly started with V8's `--trace-gc-nvp`,
// serve non-streamed chat at 50 connections; each scavenge's own line says how much it kept and how
// long it paused. Bytes promoted a request is the figure that moves with the code, not with the machine:
// it is what a request leaves for the old generation (and its major collections) to clean up.
import { mkdirSync } from 'node:fs';
import { warmUp } from './measure.ts';
import { settleOnChat } from './settle.ts';
import type { LoadPassOptions } from './load.ts';
import { startModelgate } from './modelgate-target.ts';
import { startBareProxy } from './targets.ts';
import type { Started, TargetName } from './targets.ts';

export interface GcRep {
  requests: number;
  scavenges: number;
  /** Bytes allocated, per request: how often the young generation fills, so how often a scavenge runs. */
  allocatedPerReq: number;
  /** Bytes moved to the old generation by scavenges, per request. */
  promotedPerReq: number;
  /** Scavenge pause on the main thread, µs per request. */
  scavengePauseUsPerReq: number;
  /** Mark-compact (major) collections finished during the run, and their pauses, µs per request. */
  majors: number;
  majorPauseUsPerReq: number;
}

export interface GcTotals {
  scavenges: number;
  /** Each collection's line says what was allocated since the one before it. */
  allocatedBytes: number;
  promotedBytes: number;
  scavengePauseMs: number;
  majors: number;
  majorPauseMs: number;
}

const FIELD = (line: string, name: string): number => {
  const m = new RegExp(`(?:^|\\s)${name}=([0-9.]+)`).exec(line);
  return m === null ? 0 : Number(m[1]);
};

/** Sums `--trace-gc-nvp` lines (one per collection; `gc=s` a scavenge, `gc=mc` a mark-compact). Other lines are ignored. */
export function sumGcTrace(text: string): GcTotals {
  const totals: GcTotals = {
    scavenges: 0,
    allocatedBytes: 0,
    promotedBytes: 0,
    scavengePauseMs: 0,
    majors: 0,
    majorPauseMs: 0,
  };
  for (const line of text.split('\n')) {
    if (/\sgc=\w+\s/.test(line)) totals.allocatedBytes += FIELD(line, 'allocated');
    if (/\sgc=s\s/.test(line)) {
      totals.scavenges += 1;
      totals.promotedBytes += FIELD(line, 'promoted');
      totals.scavengePauseMs += FIELD(line, 'pause');
    } else if (/\sgc=mc\s/.test(line)) {
      totals.majors += 1;
      totals.majorPauseMs += FIELD(line, 'pause');
    }
  }
  return totals;
}

export function gcRep(totals: GcTotals, requests: number): GcRep {
  const per = (v: number): number => (requests > 0 ? v / requests : Number.NaN);
  return {
    requests,
    scavenges: totals.scavenges,
    allocatedPerReq: per(totals.allocatedBytes),
    promotedPerReq: per(totals.promotedBytes),
    scavengePauseUsPerReq: per(totals.scavengePauseMs * 1000),
    majors: totals.majors,
    majorPauseUsPerReq: per(totals.majorPauseMs * 1000),
  };
}

const TRACE = ['--trace-gc-nvp'];

/** One fresh process per target and repetition, alternated; the trace of the warm-up and of settling is not counted. */
export async function runGcPass(options: LoadPassOptions): Promise<Map<TargetName, GcRep[]>> {
  mkdirSync(options.workDir, { recursive: true });
  const out = new Map<TargetName, GcRep[]>([
    ['modelgate', []],
    ['bare-proxy', []],
  ]);
  const starters: Array<[TargetName, () => Promise<Started>]> = [
    ['modelgate', () => startModelgate({ mockPort: options.mockPort, workDir: options.workDir, nodeFlags: TRACE })],
    ['bare-proxy', () => startBareProxy(options.mockPort, { nodeFlags: TRACE })],
  ];
  for (let rep = 0; rep < options.reps; rep++) {
    for (const [name, start] of rep % 2 === 0 ? starters : [...starters].reverse()) {
      const started = await start();
      if (!started.ok) throw new Error(`${name}: ${started.reason}`);
      const { target } = started;
      try {
        const request = target.request('chat');
        await warmUp(request, options.warmupMs);
        if (options.settle !== undefined) {
          options.log(
            `gc rep ${rep + 1} ${name}: ${await settleOnChat(target, options.settle, 'the measured window')}`,
          );
        }
        // The Child keeps only the tail of stdout: the measured window's trace is collected here.
        let trace = '';
        const collect = (text: string): void => void (trace += text);
        target.child.proc.stdout?.on('data', collect);
        const load = await options.generator.run({ request, connections: 50, durationS: options.durationS });
        target.child.proc.stdout?.off('data', collect);
        const result = gcRep(sumGcTrace(trace), load.requests);
        out.get(name)?.push(result);
        options.log(
          `gc rep ${rep + 1} ${name}: ${(result.allocatedPerReq / 1024).toFixed(1)} KB allocated and ${result.promotedPerReq.toFixed(0)} B promoted a request, scavenges ${result.scavengePauseUsPerReq.toFixed(2)} µs a request`,
        );
      } finally {
        await target.child.stop();
      }
    }
  }
  return out;
}

// The garbage-collection pass as a markdown table: per non-streamed request, what each proxy promoted
// to the old generation and what its collections paused, medians over fresh processes.
import type { GcRep } from './gc-pass.ts';
import { median } from './stats.ts';
import type { TargetName } from './targets.ts';

const fixed = (n: number, digits: number): string => (Number.isFinite(n) ? n.toFixed(digits) : '—');

/** modelgate's bytes promoted a request over the bare proxy's, paired per repetition (NaN when either is missing). */
export function promotedRatio(runs: Map<TargetName, GcRep[]>): number {
  const mg = runs.get('modelgate') ?? [];
  const bare = runs.get('bare-proxy') ?? [];
  const n = Math.min(mg.length, bare.length);
  if (n === 0) return Number.NaN;
  return median(mg.slice(0, n).map((r, i) => r.promotedPerReq / bare[i].promotedPerReq));
}

export function gcTable(runs: Map<TargetName, GcRep[]>): string[] {
  const rows: string[] = [];
  for (const [target, reps] of runs) {
    if (reps.length === 0) continue;
    const mid = (read: (r: GcRep) => number, digits: number): string => fixed(median(reps.map(read)), digits);
    rows.push(
      `| ${target} | ${mid((r) => r.allocatedPerReq / 1024, 1)} | ${mid((r) => r.promotedPerReq, 0)} | ${mid((r) => (1000 * r.scavenges) / r.requests, 2)} | ${mid((r) => r.scavengePauseUsPerReq, 2)} | ${mid((r) => r.majors, 0)} | ${mid((r) => r.majorPauseUsPerReq, 2)} |`,
    );
  }
  if (rows.length === 0) return [];
  const reps = Math.max(...[...runs.values()].map((r) => r.length));
  return [
    '### Garbage collection per non-streamed request, 50 connections (fresh processes, `--trace-gc-nvp`)',
    '',
    '| target | KB allocated / req | bytes promoted / req | scavenges / 1,000 req | scavenge pause µs / req | major GCs in the run | major pause µs / req |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    `Medians over ${reps} alternated repetition(s), each in a fresh process after its warm-up. Bytes allocated set how often a scavenge runs (with the young generation's size: modelgate's as shipped, the bare proxy's V8's own), and each scavenge wakes V8's helper threads on the other cores. Bytes promoted are what requests leave for the old generation: what outlives two scavenges, or is kept alive by the old generation's pointers until a major collection. modelgate / bare proxy, bytes promoted: ${fixed(promotedRatio(runs), 2)} ×. Pauses are the main thread's; parallel helpers work beside it.`,
    '',
  ];
}

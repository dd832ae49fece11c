// The container pass as a markdown table: CPU per request of modelgate in a memory-limited cgroup with
// V8's own young generation and with the shipped flag, per repetition, and the RSS of each.
import type { ContainerRun } from './container-pass.ts';
import { median } from './stats.ts';
import { SHIPPED_NODE_FLAGS } from '../../src/runtime/node-flags.ts';

const fixed = (n: number, digits: number): string => (Number.isFinite(n) ? n.toFixed(digits) : '—');

/** Median of V8's own / as shipped, paired per repetition (NaN when nothing ran). */
export function containerRatio(run: ContainerRun | null): number {
  if (run === null || run.reps.length === 0) return Number.NaN;
  return median(run.reps.map((r) => r.v8.cpuUsPerReq / r.shipped.cpuUsPerReq));
}

export function containerTable(run: ContainerRun | null): string[] {
  if (run === null || run.reps.length === 0) return [];
  const flags = SHIPPED_NODE_FLAGS.join(' ');
  const rows = run.reps.map((r, i) => `| ${i + 1} | ${fixed(r.v8.cpuUsPerReq, 1)} | ${fixed(r.shipped.cpuUsPerReq, 1)} | ${fixed(r.v8.cpuUsPerReq / r.shipped.cpuUsPerReq, 2)} | ${r.v8.errors + r.shipped.errors} |`);
  const mid = (read: (r: ContainerRun['reps'][number]) => number): string => fixed(median(run.reps.map(read)), 1);
  return [
    `### Non-streaming chat in a ${run.limitMb} MB memory cgroup, ${run.connections} connections: V8's own young generation against the shipped \`${flags}\``,
    '',
    `| repetition | V8's own, CPU µs/req | as shipped, CPU µs/req | V8's own / shipped | errors |`,
    '|---:|---:|---:|---:|---:|',
    ...rows,
    `| median | ${mid((r) => r.v8.cpuUsPerReq)} | ${mid((r) => r.shipped.cpuUsPerReq)} | ${fixed(containerRatio(run), 2)} | |`,
    '',
    `Each gateway ran in its own memory cgroup limited to ${run.limitMb} MB, as in a container with that limit; V8 sizes its young generation from the limit (1 MB semi-spaces at 512 MB) unless told. RSS after the last repetition: V8's own ${fixed(run.rssV8Mb, 1)} MB, as shipped ${fixed(run.rssShippedMb, 1)} MB.`,
    '',
  ];
}

// The container pass: modelgate started twice inside its own 512 MB memory cgroup — once with V8's own
// young generation (`--max-semi-space-size=0` after the shipped flags: V8 then sizes it from the
// limit, 1 MB semi-spaces at 512 MB), once as shipped (src/runtime/node-flags.ts) — and loaded in
// alternation with non-streaming chat at 50 connections. It measures the claim behind the shipped flag.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadPassOptions } from './load.ts';
import { measureLoad, warmUp } from './measure.ts';
import type { Rep } from './measure.ts';
import { createMemoryCgroup, type MemoryCgroup } from './memory-cgroup.ts';
import { startModelgate } from './modelgate-target.ts';
import { processTree, rssBytes } from './proc-stats.ts';
import { settleOnChat } from './settle.ts';
import type { Target } from './targets.ts';

export const CONTAINER_LIMIT_MB = 512;
/** Placed after the shipped flags, this hands the young generation's size back to V8. */
export const V8_OWN_YOUNG_GENERATION = '--max-semi-space-size=0';

export interface ContainerRun {
  limitMb: number;
  connections: number;
  reps: Array<{ v8: Rep; shipped: Rep }>;
  /** RSS of each gateway after its last repetition, MB. */
  rssV8Mb: number;
  rssShippedMb: number;
}

interface Variant {
  cgroup: MemoryCgroup;
  target: Target;
}

export async function runContainerPass(options: LoadPassOptions): Promise<ContainerRun> {
  const variants: Variant[] = [];
  const groups: MemoryCgroup[] = [];
  try {
    for (const [name, nodeFlags] of [['v8', [V8_OWN_YOUNG_GENERATION]], ['shipped', []]] as const) {
      const dir = join(options.workDir, `container-${name}`);
      mkdirSync(dir, { recursive: true });
      const cgroup = createMemoryCgroup({ name: `modelgate-bench-${process.pid}-${name}`, limitBytes: CONTAINER_LIMIT_MB * 1024 * 1024, scriptDir: dir });
      if ('error' in cgroup) throw new Error(cgroup.error);
      groups.push(cgroup);
      const started = await startModelgate({ mockPort: options.mockPort, workDir: dir, nodeFlags, wrapper: cgroup.wrapper });
      if (!started.ok) throw new Error(`modelgate (${name}): ${started.reason}`);
      variants.push({ cgroup, target: started.target });
      if (!cgroup.holds(started.target.child.pid)) throw new Error(`modelgate (${name}) did not start inside ${cgroup.dir}`);
    }
    const [v8, shipped] = variants;
    for (const v of variants) await warmUp(v.target.request('chat'), options.warmupMs);
    if (options.settle !== undefined) {
      for (const [name, v] of [['V8\'s own young generation', v8], ['as shipped', shipped]] as const) {
        options.log(`container ${name}: ${await settleOnChat(v.target, options.settle, 'the timed repetitions')}`);
      }
    }
    const run: ContainerRun = { limitMb: CONTAINER_LIMIT_MB, connections: 50, reps: [], rssV8Mb: 0, rssShippedMb: 0 };
    const measure = (v: Variant): Promise<Rep> => measureLoad({ target: v.target, request: v.target.request('chat'), generator: options.generator, connections: run.connections, durationS: options.durationS });
    for (let i = 0; i < options.reps; i += 1) {
      // Alternate which goes first, as the load scenarios do.
      const first = i % 2 === 0 ? v8 : shipped;
      const a = await measure(first);
      const b = await measure(first === v8 ? shipped : v8);
      const rep = first === v8 ? { v8: a, shipped: b } : { v8: b, shipped: a };
      run.reps.push(rep);
      options.log(`container rep ${i + 1}: V8's own young generation ${rep.v8.cpuUsPerReq.toFixed(1)}, as shipped ${rep.shipped.cpuUsPerReq.toFixed(1)} µs CPU/req`);
    }
    run.rssV8Mb = rssBytes(processTree(v8.target.child.pid)) / 1048576;
    run.rssShippedMb = rssBytes(processTree(shipped.target.child.pid)) / 1048576;
    return run;
  } finally {
    for (const v of variants) await v.target.child.stop();
    for (const g of groups) g.remove();
  }
}

// Two targets loaded at the same time, each by its own load generator: machine drift (another tenant,
// CPU frequency) then hits both alike, so the ratio of their CPU per request, paired per repetition,
// is steadier than one taken from runs seconds apart. Both share the two cores, so the target with
// more code pays a little more for the contention: the ratio errs against modelgate, not for it.
import type { LoadGenerator } from './load.ts';
import { measureLoad, warmUp } from './measure.ts';
import type { Rep } from './measure.ts';
import type { RequestKind } from './requests.ts';
import type { Target } from './targets.ts';

export interface PairedRun {
  kind: RequestKind;
  /** Connections each target gets (the two together match the 50-connection scenarios). */
  connections: number;
  reps: Array<{ modelgate: Rep; bare: Rep }>;
}

export async function runPaired(options: {
  modelgate: Target;
  bare: Target;
  kind: RequestKind;
  generator: LoadGenerator;
  connections: number;
  durationS: number;
  reps: number;
  warmupMs: number;
}): Promise<PairedRun> {
  const { modelgate, bare, kind, generator, connections, durationS } = options;
  await Promise.all([warmUp(modelgate.request(kind), options.warmupMs), warmUp(bare.request(kind), options.warmupMs)]);
  const out: PairedRun = { kind, connections, reps: [] };
  for (let i = 0; i < options.reps; i += 1) {
    const [m, b] = await Promise.all([
      measureLoad({ target: modelgate, request: modelgate.request(kind), generator, connections, durationS }),
      measureLoad({ target: bare, request: bare.request(kind), generator, connections, durationS }),
    ]);
    out.reps.push({ modelgate: m, bare: b });
  }
  return out;
}

// Where a run's results go: bench/results/<date>.md for a full run, <date>-quick.md for a quick one,
// <date>-instructions.md and <date>-gc.md for those passes alone. A full run is evidence that
// BENCHMARKS.md cites, so a second full run on the same day gets its own file (<date>-2.md, -3, …)
// instead of replacing it; the others are scratch and are overwritten.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { RunMode } from './report.ts';

export function resultsFile(options: {
  dir: string;
  date: string;
  mode: RunMode;
  exists?: (path: string) => boolean;
}): string {
  if (options.mode !== 'full') return join(options.dir, `${options.date}-${options.mode}.md`);
  const exists = options.exists ?? existsSync;
  let file = join(options.dir, `${options.date}.md`);
  for (let n = 2; exists(file); n += 1) file = join(options.dir, `${options.date}-${n}.md`);
  return file;
}

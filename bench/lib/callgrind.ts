// Counting a proxy's instructions with valgrind's callgrind: a measure that does not drift with the
// neighbours on these shared 2-core machines (CPU time moves ±15 % between runs; the same requests
// count within a few per cent, the rest being when V8's compiler and GC threads run). The process
// starts with instrumentation off; the measured stretch is switched on, dumped and switched off again
// with callgrind_control, so start-up and warm-up are never counted. V8 keeps optimising functions for
// thousands of requests after start (a gateway's code reaches TurboFan later than a bare proxy's), and
// with --single-threaded it compiles on the main thread, inside the counted stretch: a quarter of a
// stretch after 1,000 warm-up requests. The dump's call graph separates that out (`compiling`), so
// builds are compared on what serving a request costs once the code is optimised, as it is in service.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { hasCommand } from './load.ts';

const run = promisify(execFile);

/** Why the instruction pass cannot run here, or null when valgrind and callgrind_control are installed. */
export function callgrindMissing(): string | null {
  if (!hasCommand('valgrind', ['--version'])) return 'valgrind not installed (apt-get install -y valgrind)';
  if (!hasCommand('callgrind_control', ['--help'])) return 'callgrind_control not found (it comes with valgrind)';
  return null;
}

/**
 * The command prefix that runs a process under callgrind with instrumentation off. V8 writes and then
 * runs machine code, so self-modifying code must be checked everywhere but in file-backed code.
 */
export function callgrindWrapper(outFile: string): string[] {
  return [
    'valgrind',
    '--tool=callgrind',
    '--instr-atstart=no',
    '--smc-check=all-non-file',
    '--dump-instr=no',
    `--callgrind-out-file=${outFile}`,
  ];
}

/** Instructions counted in one callgrind dump: its `summary:` line (the part since the previous dump). */
export function dumpSummary(text: string): number {
  const match = /^summary:\s+(\d+)\s*$/m.exec(text);
  if (match === null) throw new Error('no "summary:" line in the callgrind dump');
  return Number(match[1]);
}

/** What a counted stretch executed: all of it, and the part spent in V8's optimising compilers. */
export interface CountedStretch {
  instructions: number;
  compiling: number;
}

/**
 * Instructions spent compiling optimised code (Maglev, TurboFan) in a dump: the inclusive cost of
 * V8's one entry to both, read with callgrind_annotate from the call graph. 0 when nothing compiled
 * (or the name is not found, as with a Node built without symbols).
 */
export async function compilingInstructions(dumpFile: string): Promise<number> {
  const { stdout } = await run('callgrind_annotate', ['--inclusive=yes', '--threshold=100', dumpFile], {
    maxBuffer: 256 * 1024 * 1024,
    timeout: 120_000,
  });
  return compilerLine(stdout);
}

/** The inclusive count on callgrind_annotate's `v8::internal::Compiler::CompileOptimized(` line, or 0. */
export function compilerLine(annotated: string): number {
  const match = /^\s*([\d,]+)\s+\([^)]*\)\s+\S*v8::internal::Compiler::CompileOptimized\(/m.exec(annotated);
  return match === null ? 0 : Number(match[1].replaceAll(',', ''));
}

/**
 * Switches counting on for one stretch of a process under callgrind and reads what it counted. One
 * stretch per process: callgrind's later dumps of a multi-threaded process are wrong (a second dump of
 * a Node process reported a negative count, its running total less than the first's), the first is not.
 */
export class CallgrindCounter {
  readonly #pid: number;
  readonly #outFile: string;
  #used = false;

  constructor(pid: number, outFile: string) {
    this.#pid = pid;
    this.#outFile = outFile;
  }

  /** Instructions the process executed (all its threads) while `work` ran, and how many of them compiled. */
  async count(work: () => Promise<void>): Promise<CountedStretch> {
    if (this.#used) throw new Error('callgrind counts one stretch per process correctly; start another process');
    this.#used = true;
    await this.#control('--instr=on');
    try {
      await work();
    } finally {
      // callgrind_control returns once the dump is written to `<out>.1`.
      await this.#control('--dump');
      await this.#control('--instr=off');
    }
    const dump = `${this.#outFile}.1`;
    return { instructions: dumpSummary(readFileSync(dump, 'utf8')), compiling: await compilingInstructions(dump) };
  }

  async #control(option: string): Promise<void> {
    await run('callgrind_control', [option, String(this.#pid)], { timeout: 60_000 });
  }
}

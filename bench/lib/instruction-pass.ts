// The instruction pass: modelgate and the bare proxy, each freshly started under callgrind, serve one
// request at a time from the harness; after a warm-up, the instructions each executes for a fixed number
// of requests are counted (lib/callgrind.ts). The repeatable view of "CPU per request": what the proxy
// does, not how busy the neighbours were. Valgrind runs a process ~50 × slower, so this is its own pass
// with its own processes and its own mock upstream, and its timings mean nothing. Streams warm up at
// the main mock's one-event-per-turn pacing (fast), then the counted ones come with their events
// milliseconds apart, so each reaches the slowed proxy as its own read, as a model's tokens do: counted
// at one-event-per-turn, how many events a read held depended on how far behind the proxy was, and so
// did the count.
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { setMockPacing } from './measure.ts';
import { CallgrindCounter, callgrindWrapper } from './callgrind.ts';
import { startModelgate } from './modelgate-target.ts';
import type { RequestKind } from './requests.ts';
import { runSequential } from './sequential-client.ts';
import { CHUNKS } from './scenarios.ts';
import type { InstructionPlan } from './scenarios.ts';
import { startBareProxy, startMock } from './targets.ts';
import type { Started, Target } from './targets.ts';

export type CountedTarget = 'modelgate' | 'bare-proxy';

/** The scenarios counted, each on every target that serves it (the translated one on modelgate only). */
export const COUNTED_KINDS: readonly RequestKind[] = ['chat', 'chat-stream', 'messages-stream', 'responses-stream'];

export interface InstructionCell {
  target: CountedTarget;
  kind: RequestKind;
  requests: number;
  instructions: number;
  /** Of `instructions`, those V8 spent optimising code (lib/callgrind.ts); absent in older results. */
  compiling?: number;
  errors: number;
}

/**
 * `chat` and `streams`: requests served before counting starts (V8 has compiled the hot paths by then)
 * and requests counted; a counted stream takes `CHUNKS` × `pacingMs`, which is well above what one event
 * takes the proxy under callgrind (~1 ms).
 */
export interface InstructionPassOptions extends InstructionPlan {
  workDir: string;
  log: (line: string) => void;
}

/**
 * Both targets run with V8's work on their main thread: its optimising compilers then run through the
 * one entry the count leaves out (lib/callgrind.ts), where on helper threads they would stay in it, and
 * garbage collection and compilation happen in the same order each pass.
 */
const COUNTED_FLAGS = ['--single-threaded', '--predictable'] as const;

// Under valgrind modelgate takes ~10 s to answer its first health check.
const READY_MS = 120_000;

async function start(
  name: CountedTarget,
  options: InstructionPassOptions,
  mockPort: number,
  outFile: string,
): Promise<Target> {
  const wrapper = callgrindWrapper(outFile);
  const dir = join(options.workDir, `instructions-${name}`);
  mkdirSync(dir, { recursive: true });
  const started: Started =
    name === 'modelgate'
      ? await startModelgate({ mockPort, workDir: dir, wrapper, readyTimeoutMs: READY_MS, nodeFlags: COUNTED_FLAGS })
      : await startBareProxy(mockPort, { wrapper, readyTimeoutMs: READY_MS, nodeFlags: COUNTED_FLAGS });
  if (!started.ok) throw new Error(`${name} under callgrind: ${started.reason}`);
  return started.target;
}

/** One scenario on one target, in a process of its own (see CallgrindCounter). */
async function countOne(
  name: CountedTarget,
  kind: RequestKind,
  options: InstructionPassOptions,
  mockPort: number,
): Promise<InstructionCell> {
  const outFile = join(options.workDir, `callgrind-${name}-${kind}.out`);
  const target = await start(name, options, mockPort, outFile);
  try {
    const plan = kind === 'chat' ? options.chat : options.streams;
    const request = target.request(kind);
    let errors = (await runSequential({ request, count: plan.warmup, warmup: 0 })).errors;
    if (kind !== 'chat') await setMockPacing(`http://127.0.0.1:${mockPort}`, String(options.pacingMs));
    let counted: { instructions: number; compiling: number };
    try {
      counted = await new CallgrindCounter(target.child.pid, outFile).count(async () => {
        errors += (await runSequential({ request, count: plan.count, warmup: 0 })).errors;
      });
    } finally {
      // The next scenario warms up unpaced, whatever happened here.
      await setMockPacing(`http://127.0.0.1:${mockPort}`, 'tick');
    }
    const { instructions, compiling } = counted;
    const per = (n: number): string => Math.round(n / plan.count).toLocaleString('en-US');
    options.log(
      `instructions ${name} ${kind}: ${per(instructions - compiling)} per request once optimised (${per(instructions)} with V8 compiling)${errors > 0 ? `, ${errors} errors` : ''}`,
    );
    return { target: name, kind, requests: plan.count, instructions, compiling, errors };
  } finally {
    await target.child.stop();
  }
}

export async function runInstructionPass(options: InstructionPassOptions): Promise<InstructionCell[]> {
  mkdirSync(options.workDir, { recursive: true });
  const mock = await startMock({ chunks: CHUNKS, chunkSize: 6, pacing: 'tick', latencyMs: 0 });
  const cells: InstructionCell[] = [];
  try {
    for (const kind of COUNTED_KINDS) {
      for (const name of ['modelgate', 'bare-proxy'] as const) {
        if (name === 'bare-proxy' && (kind === 'messages-stream' || kind === 'responses-stream')) continue; // translation is modelgate's alone
        cells.push(await countOne(name, kind, options, mock.port));
      }
    }
  } finally {
    await mock.child.stop();
  }
  return cells;
}

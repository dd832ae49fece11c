// The stage pass: modelgate and the bare proxy, freshly started with bench/stage-timer.ts preloaded,
// serve one request at a time — streams (the time-to-first-byte client), then non-streamed chat (the
// 1-connection latency's request) — and each reports where its time went between the request and its
// first write to the client (lib/stages.ts), with each stage's p99 to show where the tail lives. A
// separate pass, so the preload's wrapper never touches the other scenarios' numbers.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { warmUp } from './measure.ts';
import { probeFor, settle, settleNote } from './settle.ts';
import type { SettleOptions } from './settle.ts';
import { startModelgate } from './modelgate-target.ts';
import { nodeWorker } from './processes.ts';
import { STAGE_KINDS } from './stages.ts';
import type { StageKind, StageResults, StageSummary } from './stages.ts';
import { startBareProxy } from './targets.ts';
import type { Started, Target, TargetName } from './targets.ts';

const BENCH = new URL('..', import.meta.url).pathname;
const PRELOAD = ['--import', join(BENCH, 'stage-timer.ts')];

export interface StagePassOptions {
  mockPort: number;
  workDir: string;
  reps: number;
  /** Streams per repetition and target. */
  count: number;
  /** Non-streamed requests per repetition and target: each is shorter, and a p99 wants more of them. */
  jsonCount: number;
  warmupMs: number;
  /** After warmupMs, warm each fresh process on until its compiler settles (lib/settle.ts). */
  settle?: SettleOptions;
  /** Runs the client under `chrt -f <priority>` when given. */
  realtimePriority?: number;
  log: (line: string) => void;
}

interface Timed {
  target: Target;
  out: string;
  seq: number;
}

/** Waits until the recorder's file holds dump number `seq` (it writes on SIGUSR2) and returns it. */
export async function readStageSummary(out: string, seq: number, timeoutMs = 5000): Promise<StageSummary> {
  for (let waited = 0; waited < timeoutMs; waited += 20) {
    await delay(20);
    if (!existsSync(out)) continue;
    try {
      const summary = JSON.parse(readFileSync(out, 'utf8')) as StageSummary;
      if (summary.seq === seq) return summary;
    } catch {
      // Caught mid-write: read again.
    }
  }
  throw new Error(`the stage timer wrote no summary ${seq} to ${out} within ${timeoutMs} ms`);
}

/** Asks the recorder for its summary (SIGUSR2) and waits for that dump. */
async function dump(timed: Timed): Promise<StageSummary> {
  timed.seq += 1;
  timed.target.child.proc.kill('SIGUSR2');
  try {
    return await readStageSummary(timed.out, timed.seq);
  } catch (error) {
    throw new Error(`${timed.target.name}: ${(error as Error).message}`);
  }
}

async function start(name: TargetName, options: StagePassOptions): Promise<Timed> {
  const dir = join(options.workDir, `stages-${name}`);
  mkdirSync(dir, { recursive: true });
  const out = join(dir, 'summary.json');
  const env = { ...process.env, STAGE_TIMER_OUT: out };
  const started: Started =
    name === 'modelgate'
      ? await startModelgate({ mockPort: options.mockPort, workDir: dir, nodeFlags: PRELOAD, env })
      : await startBareProxy(options.mockPort, { nodeFlags: PRELOAD, env });
  if (!started.ok) throw new Error(`${name}: ${started.reason}`);
  return { target: started.target, out, seq: 0 };
}

async function oneRep(timed: Timed, kind: StageKind, options: StagePassOptions): Promise<StageSummary> {
  const worker = join(BENCH, 'ttfb-worker.ts');
  const count = kind === 'chat' ? options.jsonCount : options.count;
  const args = [worker, JSON.stringify({ request: timed.target.request(kind), count, warmup: 0 })];
  const child = nodeWorker({ name: 'ttfb-worker', args, realtimePriority: options.realtimePriority });
  await child.exit();
  return dump(timed);
}

export async function runStagePass(options: StagePassOptions): Promise<StageResults> {
  const timed: Timed[] = [];
  const results: StageResults = new Map(STAGE_KINDS.map((kind) => [kind, new Map<TargetName, StageSummary[]>()]));
  try {
    for (const name of ['modelgate', 'bare-proxy'] as const) timed.push(await start(name, options));
    for (const t of timed) {
      for (const kind of STAGE_KINDS) await warmUp(t.target.request(kind), options.warmupMs / STAGE_KINDS.length);
      if (options.settle !== undefined) {
        const record = await settle(new Set(STAGE_KINDS), options.settle, probeFor(t.target));
        options.log(`stages ${t.target.name}: ${settleNote(record, 'the timed requests')}`);
      }
      await dump(t); // drops the warm-up's (concurrent) requests
      for (const byTarget of results.values()) byTarget.set(t.target.name, []);
    }
    for (let rep = 0; rep < options.reps; rep += 1) {
      for (const t of rep % 2 === 0 ? timed : [...timed].reverse()) {
        for (const kind of STAGE_KINDS) {
          const summary = await oneRep(t, kind, options);
          results.get(kind)?.get(t.target.name)?.push(summary);
          const [first, , , total] = summary.stages;
          const what = kind === 'chat' ? 'non-streamed requests' : 'streams';
          options.log(`stages rep ${rep + 1} ${t.target.name}: ${summary.requests} ${what}, ${first.name} p50 ${Math.round(first.p50Us)} µs, ${total.name} p99 ${Math.round(total.p99Us)} µs`);
        }
      }
    }
  } finally {
    for (const t of timed) await t.target.child.stop();
  }
  return results;
}

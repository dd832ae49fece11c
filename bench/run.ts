// `npm run bench [-- --quick | --instructions | --gc] [--targets a,b] [--load-generator autocannon] [--node-flags=…]`: starts the mock upstream
// and every available target, measures them side by side, writes bench/results/<date>.md
// (a later full run the same day: <date>-2.md, …; lib/results-file.ts).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runHold } from './lib/hold.ts';
import { runPaired } from './lib/paired.ts';
import { runGcPass } from './lib/gc-pass.ts';
import { callgrindMissing } from './lib/callgrind.ts';
import { runInstructionPass } from './lib/instruction-pass.ts';
import { pickLoadGenerator } from './lib/load.ts';
import type { LoadGenerator } from './lib/load.ts';
import { measureLoad, probe, probeProblem, setMockPacing, warmUp } from './lib/measure.ts';
import { oneClientSettings, startModelgate } from './lib/modelgate-target.ts';
import { Child, nodeWorker } from './lib/processes.ts';
import { ticksPerSecond } from './lib/proc-stats.ts';
import { emptyRunResults, headline, renderResults } from './lib/report.ts';
import { gcTable } from './lib/gc-report.ts';
import { instructionTable } from './lib/instruction-report.ts';
import { resultsFile } from './lib/results-file.ts';
import type { HoldResult, LatencyRep, LoadCell, RunResults, TtfbRep } from './lib/report.ts';
import { idleLine } from './lib/machine.ts';
import { SETTLE_FULL, SETTLE_QUICK, probeFor, settle, settleNote } from './lib/settle.ts';
import { CHUNKS, FULL, LOAD_SCENARIOS, PACED_MS, QUICK, kindOf } from './lib/scenarios.ts';
import type { LoadScenario, Timing } from './lib/scenarios.ts';
import {
  directTarget,
  startBareProxy,
  startClaudeCodeRouter,
  startMock,
  startNginx,
  startPortkey,
} from './lib/targets.ts';
import type { Started, Target, TargetName } from './lib/targets.ts';

const BENCH = new URL('.', import.meta.url).pathname;
const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    // Only the instruction pass (≈ 6 minutes): counts to compare before and after a change.
    instructions: { type: 'boolean', default: false },
    // Only the garbage-collection pass (≈ 2 minutes): bytes allocated and promoted a request, scavenge pauses.
    gc: { type: 'boolean', default: false },
    targets: { type: 'string' },
    'load-generator': { type: 'string' },
    // Node/V8 flags for the gateway process, after the shipped ones, e.g. --node-flags=--max-semi-space-size=0 (V8's own young generation).
    'node-flags': { type: 'string' },
  },
});
const quick = values.quick === true;
const instructionsOnly = values.instructions === true;
const gcOnly = values.gc === true;
if ([quick, instructionsOnly, gcOnly].filter(Boolean).length > 1) {
  process.stderr.write('--quick, --instructions and --gc do not combine: each is a run of its own\n');
  process.exit(2);
}
const mode: RunResults['mode'] = quick ? 'quick' : instructionsOnly ? 'instructions' : gcOnly ? 'gc' : 'full';
const timing: Timing = quick ? QUICK : FULL;
const nodeFlags = (values['node-flags'] ?? '').split(/\s+/).filter((f) => f !== '');
const wanted = values.targets === undefined ? undefined : new Set(values.targets.split(','));
const log = (line: string): void => void process.stderr.write(`${line}\n`);

function rotate<T>(items: readonly T[], by: number): T[] {
  return items.map((_, i) => items[(i + by) % items.length]);
}

type Starter = () => Promise<Started>;

function starters(mock: { child: Child; port: number }, workDir: string): Array<[TargetName, Starter]> {
  return [
    // The 1,000-stream hold comes from one address and opens every stream at once.
    [
      'modelgate',
      () =>
        startModelgate({ mockPort: mock.port, workDir, nodeFlags, settings: oneClientSettings(timing.holdStreams) }),
    ],
    ['bare-proxy', () => startBareProxy(mock.port)],
    ['nginx', () => startNginx({ mockPort: mock.port, workDir })],
    ['portkey', () => startPortkey({ mockPort: mock.port, install: !quick })],
    ['ccr', () => startClaudeCodeRouter({ mockPort: mock.port, install: !quick, workDir })],
  ];
}

async function startTargets(
  mock: { child: Child; port: number },
  workDir: string,
  skipped: string[],
): Promise<Target[]> {
  const targets: Target[] = [directTarget(mock)];
  for (const [name, start] of starters(mock, workDir)) {
    if (wanted !== undefined && !wanted.has(name)) continue;
    try {
      const started = await start();
      if (started.ok) targets.push(started.target);
      else skipped.push(`${name}: ${started.reason}`);
    } catch (error) {
      skipped.push(`${name}: ${(error as Error).message}`);
    }
    log(`target ${name}: ${targets.some((t) => t.name === name) ? 'up' : skipped[skipped.length - 1]}`);
  }
  return targets;
}

/**
 * The 1,000-stream hold twice per target: in the process that just served every load scenario (its
 * heap has grown to that load), and in a freshly started one (what holding the streams itself costs).
 */
async function runHolds(options: {
  targets: Target[];
  mock: { child: Child; port: number };
  mockUrl: string;
  workDir: string;
  skipped: string[];
}): Promise<HoldResult[]> {
  const out: HoldResult[] = [];
  const hold = (target: Target, phase: HoldResult['phase']): Promise<HoldResult> =>
    runHold({
      target,
      phase,
      streams: timing.holdStreams,
      probeCount: timing.probeCount,
      mockUrl: options.mockUrl,
      readyTimeoutMs: timing.holdReadyMs,
    });
  for (const target of options.targets.filter((t) => timing.holdTargets.includes(t.name))) {
    try {
      out.push(await hold(target, 'after load'));
      log(`hold ${target.name} (after load): done`);
    } catch (error) {
      options.skipped.push(`hold on ${target.name} (after load): ${(error as Error).message}`);
    }
  }
  const byName = new Map(starters(options.mock, join(options.workDir, 'fresh')));
  mkdirSync(join(options.workDir, 'fresh'), { recursive: true });
  for (const name of timing.holdTargets) {
    const start = byName.get(name);
    if (start === undefined || !options.targets.some((t) => t.name === name)) continue;
    const started = await start().catch((error: Error) => ({ ok: false as const, reason: error.message }));
    if (!started.ok) {
      options.skipped.push(`hold on ${name} (fresh process): ${started.reason}`);
      continue;
    }
    try {
      out.push(await hold(started.target, 'fresh process'));
      log(`hold ${name} (fresh process): done`);
    } catch (error) {
      options.skipped.push(`hold on ${name} (fresh process): ${(error as Error).message}`);
    } finally {
      await started.target.child.stop();
    }
  }
  return out;
}

/** Targets that serve the scenario and answer its probe correctly; the others are reported as skipped. */
async function servingTargets(scenario: LoadScenario, targets: Target[], skipped: string[]): Promise<Target[]> {
  const out: Target[] = [];
  for (const target of targets) {
    const kind = kindOf(scenario, target.name);
    if (!target.kinds.has(kind) || (scenario.only !== undefined && !scenario.only.includes(target.name))) continue;
    const problem = probeProblem(await probe(target.request(kind)), scenario.eventsPerResponse !== undefined);
    if (problem === undefined) out.push(target);
    else
      skipped.push(
        `${scenario.id} on ${target.name}: ${problem}${target.child.stderrTail === '' ? '' : ` — its stderr ends: ${target.child.stderrTail.slice(-300)}`}`,
      );
  }
  return out;
}

async function runLoadScenario(options: {
  scenario: LoadScenario;
  targets: Target[];
  generator: LoadGenerator;
  skipped: string[];
  mockUrl: string;
}): Promise<LoadCell[]> {
  const { scenario } = options;
  if (scenario.pacingMs === undefined) return runLoadReps(options);
  await setMockPacing(options.mockUrl, String(scenario.pacingMs));
  try {
    return await runLoadReps(options);
  } finally {
    // Every other scenario streams one event per turn, whatever happened here.
    await setMockPacing(options.mockUrl, 'tick');
  }
}

async function runLoadReps(options: {
  scenario: LoadScenario;
  targets: Target[];
  generator: LoadGenerator;
  skipped: string[];
}): Promise<LoadCell[]> {
  const { scenario, generator } = options;
  const active = await servingTargets(scenario, options.targets, options.skipped);
  for (const target of active) await warmUp(target.request(kindOf(scenario, target.name)), timing.warmupMs);
  const cells = active.map((target): LoadCell => ({ scenario, target: target.name, reps: [] }));
  for (let rep = 0; rep < timing.reps; rep += 1) {
    for (const target of rotate(active, rep)) {
      const result = await measureLoad({
        target,
        request: target.request(kindOf(scenario, target.name)),
        generator,
        connections: scenario.connections,
        durationS: timing.durationS,
      });
      cells.find((c) => c.target === target.name)?.reps.push(result);
      log(
        `${scenario.id} rep ${rep + 1} ${target.name}: ${Math.round(result.rps)} req/s, ${result.cpuUsPerReq.toFixed(1)} µs CPU/req, ${result.errors} errors`,
      );
    }
  }
  return cells;
}

/**
 * One client process per target and repetition (a 1-connection measure must not share an event loop with
 * the harness), targets alternated per repetition; `key` names the JSON line the worker prints.
 */
async function runWorkerReps<T>(options: {
  targets: Target[];
  worker: string;
  key: string;
  args: (target: Target) => unknown;
  describe: (result: T) => string;
  realtime?: boolean;
}): Promise<Map<TargetName, T[]>> {
  const out = new Map<TargetName, T[]>(options.targets.map((t) => [t.name, []]));
  const worker = join(BENCH, options.worker);
  const label = options.realtime === true ? `${options.key} (real-time)` : options.key;
  for (let rep = 0; rep < timing.reps; rep += 1) {
    for (const target of rotate(options.targets, rep)) {
      const args = [worker, JSON.stringify(options.args(target))];
      const child = nodeWorker({
        name: options.worker,
        args,
        realtimePriority: options.realtime === true ? REALTIME_PRIORITY : undefined,
      });
      await child.exit();
      const result = await child.jsonLine<T>(options.key, 1000);
      out.get(target.name)?.push(result);
      log(`${label} rep ${rep + 1} ${target.name}: ${options.describe(result)}`);
    }
  }
  return out;
}

/**
 * The timing client at a real-time priority never waits for a core: on two cores shared by client, mock
 * and proxy, a stream keeps the other two busy and the client's wake-up would otherwise be timed too.
 */
const REALTIME_PRIORITY = 10;

function canRunRealtime(): boolean {
  return spawnSync('chrt', ['-f', String(REALTIME_PRIORITY), 'true'], { stdio: 'ignore' }).status === 0;
}

async function runTtfb(targets: Target[], skipped: string[], realtime: boolean): Promise<Map<TargetName, TtfbRep[]>> {
  const scenario = LOAD_SCENARIOS.find((s) => s.id === 'stream-c50') as LoadScenario;
  return runWorkerReps<TtfbRep>({
    targets: await servingTargets({ ...scenario, id: realtime ? 'ttfb (real-time)' : 'ttfb' }, targets, skipped),
    worker: 'ttfb-worker.ts',
    key: 'ttfb',
    args: (target) => ({
      request: target.request('chat-stream'),
      count: timing.ttfbCount,
      warmup: 20,
      maxMs: timing.ttfbMaxMs,
    }),
    describe: (r) => `p50 ${(r.ttfbP50Us / 1000).toFixed(2)} ms`,
    realtime,
  });
}

/** Non-streaming chat with modelgate and the bare proxy under load at the same time (lib/paired.ts). */
async function runPairedChat(
  targets: Target[],
  generator: LoadGenerator,
  skipped: string[],
): Promise<RunResults['paired']> {
  const modelgate = targets.find((t) => t.name === 'modelgate');
  const bare = targets.find((t) => t.name === 'bare-proxy');
  if (modelgate === undefined || bare === undefined) return null;
  try {
    const run = await runPaired({
      modelgate,
      bare,
      kind: 'chat',
      generator,
      connections: 25,
      durationS: timing.durationS,
      reps: timing.reps,
      warmupMs: timing.warmupMs,
    });
    run.reps.forEach((r, i) =>
      log(
        `paired rep ${i + 1}: modelgate ${r.modelgate.cpuUsPerReq.toFixed(1)}, bare-proxy ${r.bare.cpuUsPerReq.toFixed(1)} µs CPU/req`,
      ),
    );
    return run;
  } catch (error) {
    skipped.push(`paired run: ${(error as Error).message}`);
    return null;
  }
}

/** Non-streaming chat one request at a time over a raw socket (latency-worker.ts). */
async function runLatency(targets: Target[], skipped: string[]): Promise<Map<TargetName, LatencyRep[]>> {
  const scenario = LOAD_SCENARIOS.find((s) => s.id === 'chat-c1') as LoadScenario;
  // Portkey takes milliseconds a request; the latency targets compare modelgate with direct.
  const active = (await servingTargets({ ...scenario, id: 'latency' }, targets, skipped)).filter(
    (t) => t.name !== 'portkey',
  );
  return runWorkerReps<LatencyRep>({
    targets: active,
    worker: 'latency-worker.ts',
    key: 'latency',
    args: (target) => ({ request: target.request('chat'), count: timing.latencyCount, warmup: 500 }),
    describe: (r) => `p50 ${Math.round(r.p50Us)} µs, p99 ${Math.round(r.p99Us)} µs`,
  });
}

/** Bytes promoted and GC pauses per non-streamed request, modelgate beside the bare proxy (lib/gc-pass.ts). */
async function runGc(
  mockPort: number,
  workDir: string,
  generator: LoadGenerator,
  skipped: string[],
): Promise<RunResults['gc']> {
  if (quick) {
    skipped.push(QUICK_SKIPS.gc);
    return new Map();
  }
  try {
    return await runGcPass({
      mockPort,
      workDir: join(workDir, 'gc'),
      generator,
      reps: GC_REPS,
      durationS: timing.durationS,
      warmupMs: timing.warmupMs,
      settle: SETTLE_FULL,
      log,
    });
  } catch (error) {
    skipped.push(`garbage-collection pass: ${(error as Error).message}`);
    return new Map();
  }
}

/** Instructions per request under callgrind, modelgate beside the bare proxy (lib/instruction-pass.ts). */
async function runInstructions(workDir: string, skipped: string[]): Promise<RunResults['instructions']> {
  if (timing.instructions === null) {
    skipped.push(
      'instruction pass: full runs only (valgrind runs each proxy ~50 × slower; `--instructions` runs it alone)',
    );
    return [];
  }
  const missing = callgrindMissing();
  if (missing !== null) {
    skipped.push(`instruction pass: ${missing}`);
    return [];
  }
  try {
    return await runInstructionPass({ workDir: join(workDir, 'instructions'), ...timing.instructions, log });
  } catch (error) {
    skipped.push(`instruction pass: ${(error as Error).message}`);
    return [];
  }
}

function machineLine(): string {
  const idle = idleLine();
  return `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.type()} ${os.release()}, Node ${process.version} for every Node process, CLK_TCK ${ticksPerSecond()}${idle === undefined ? '' : `; ${idle}`}`;
}

function writeResults(results: RunResults, started: number): string {
  results.header.push(`run took ${Math.round((Date.now() - started) / 1000)} s`);
  const dir = join(BENCH, 'results');
  mkdirSync(dir, { recursive: true });
  const file = resultsFile({ dir, date: results.date, mode: results.mode });
  writeFileSync(file, `${renderResults(results)}\n`);
  return file;
}

/**
 * A run of one pass alone (`--instructions`, `--gc`): its own header line, the pass
 * in a scratch directory, the results file, its table on stdout, and exit code 1 when it measured nothing.
 */
async function singlePass(options: {
  describe: string;
  pass: (results: RunResults, workDir: string) => Promise<void>;
  table: (results: RunResults) => string[];
  measured: (results: RunResults) => boolean;
}): Promise<void> {
  const started = Date.now();
  const workDir = mkdtempSync(join(os.tmpdir(), 'modelgate-bench-'));
  const header = [machineLine(), options.describe];
  const results = emptyRunResults({
    date: new Date().toISOString().slice(0, 10),
    mode,
    header,
    skipped: [],
    instructionPlan: mode === 'instructions' ? timing.instructions : null,
  });
  try {
    await options.pass(results, workDir);
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  const file = writeResults(results, started);
  process.stdout.write(
    `${options.table(results).join('\n')}\n${results.skipped.map((s) => `skipped: ${s}`).join('\n')}\nwritten ${file}\n`,
  );
  if (!options.measured(results)) process.exitCode = 1;
}

/** `--instructions`: the instruction pass alone, for comparing two builds of the gateway. */
const instructionsMain = (): Promise<void> =>
  singlePass({
    describe: 'the instruction pass only (`npm run bench -- --instructions`)',
    pass: async (results, workDir) => {
      results.instructions = await runInstructions(workDir, results.skipped);
    },
    table: (results) => instructionTable(results.instructions, results.instructionPlan),
    measured: (results) => results.instructions.length > 0,
  });

/**
 * More that quick mode leaves to full runs, besides Portkey's install and the instruction pass: it
 * measures each of the issue's targets once and stays short. The garbage-collection pass starts gateways
 * of its own and is a diagnostic, not a target; it runs alone with its own flag.
 */
const QUICK_SKIPS = {
  gc: 'garbage-collection pass: full runs only (`--gc` runs it alone)',
  ttfbRealtime: 'time to first byte with the timing client at real-time priority: full runs only',
};

/** Repetitions of the garbage-collection pass: its figures move little between them. */
const GC_REPS = 3;

function hasPair(targets: readonly Target[]): boolean {
  return targets.some((t) => t.name === 'modelgate') && targets.some((t) => t.name === 'bare-proxy');
}

/** A pass that starts its own gateways (`--gc`), against a mock of its own. */
async function withMock<T>(run: (mockPort: number) => Promise<T>): Promise<T> {
  const mock = await startMock({ chunks: CHUNKS, chunkSize: 6, pacing: 'tick', latencyMs: 0 });
  try {
    return await run(mock.port);
  } finally {
    await mock.child.stop();
  }
}

/** `--gc`: the garbage-collection pass alone. */
const gcMain = (): Promise<void> =>
  singlePass({
    describe: `the garbage-collection pass only (\`npm run bench -- --gc\`): ${GC_REPS} alternated repetition(s) of ${timing.durationS} s per proxy`,
    pass: async (results, workDir) => {
      const generator = pickLoadGenerator(workDir, values['load-generator']);
      results.header.push(`load by ${generator.name}`);
      results.gc = await withMock((mockPort) => runGc(mockPort, workDir, generator, results.skipped));
    },
    table: (results) => gcTable(results.gc),
    measured: (results) => results.gc.size > 0,
  });

async function main(): Promise<void> {
  const started = Date.now();
  const date = new Date().toISOString().slice(0, 10);
  const workDir = mkdtempSync(join(os.tmpdir(), 'modelgate-bench-'));
  const skipped: string[] = [];
  const generator = pickLoadGenerator(workDir, values['load-generator']);
  const mock = await startMock({ chunks: CHUNKS, chunkSize: 6, pacing: 'tick', latencyMs: 0 });
  const mockUrl = `http://127.0.0.1:${mock.port}`;
  const targets = await startTargets(mock, workDir, skipped);
  const header = [
    machineLine(),
    `load: ${generator.name} (1 thread) in its own process${generator.name === 'autocannon' ? '; latency resolution 1 ms' : ''}; ${timing.reps} repetition(s) of ${timing.durationS} s per target, alternated; warm-up ${timing.warmupMs} ms per target and scenario`,
    `mock upstream: standalone node:http process, ${CHUNKS} content chunks of 6 characters per stream, one chunk per event-loop turn (pacing tick; the paced scenario ${PACED_MS} ms apart), no added latency`,
    'CPU = utime+stime of the target’s process tree from /proc/<pid>/stat, before and after each run, divided by responses; CPU/event divides by 52 (role chunk + 50 content chunks + finish chunk)',
  ];
  const results = emptyRunResults({ date, mode, header, skipped, instructionPlan: timing.instructions });
  results.notes = targets.flatMap((t) => t.notes.map((n) => `${t.name}: ${n}`));
  try {
    for (const target of targets) {
      const note = settleNote(await settle(target.kinds, quick ? SETTLE_QUICK : SETTLE_FULL, probeFor(target)));
      log(`settle ${target.name}: ${note}`);
      results.notes.push(`${target.name}: ${note}`);
    }
    for (const scenario of LOAD_SCENARIOS) {
      if (quick && !scenario.quick) continue;
      results.load.push(...(await runLoadScenario({ scenario, targets, generator, skipped, mockUrl })));
    }
    results.paired = await runPairedChat(targets, generator, skipped);
    results.latency = await runLatency(targets, skipped);
    results.ttfb = await runTtfb(targets, skipped, false);
    if (quick) skipped.push(QUICK_SKIPS.ttfbRealtime);
    else if (canRunRealtime()) results.ttfbRealtime = await runTtfb(targets, skipped, true);
    else
      skipped.push(
        'time to first byte with the timing client at real-time priority: `chrt -f` is not available or not permitted (needs root or CAP_SYS_NICE)',
      );
    // These passes start modelgate and the bare proxy afresh, side by side: only when both came up here.
    if (hasPair(targets)) {
      results.gc = await runGc(mock.port, workDir, generator, skipped);
      results.instructions = await runInstructions(workDir, skipped);
    }
    results.hold = await runHolds({ targets, mock, mockUrl, workDir, skipped });
  } finally {
    for (const target of targets.slice(1).reverse()) await target.child.stop();
    await mock.child.stop();
    rmSync(workDir, { recursive: true, force: true });
  }
  const file = writeResults(results, started);
  process.stdout.write(
    `${headline(results).join('\n')}\n${skipped.map((s) => `skipped: ${s}`).join('\n')}\nwritten ${file}\n`,
  );
}

await (instructionsOnly ? instructionsMain() : gcOnly ? gcMain() : main());

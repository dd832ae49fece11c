// The agent bench's run: one mock upstream, the targets beside each other, then for each agent (Claude Code,
// Codex) and target a warm-up session and the measured sessions (time to first token of every turn, the
// target's CPU across them, the cache the replies report against what the session could have read), and
// per target the head-of-line measure: small requests one at a time, alone and while a 100k-token request
// is always in flight. Each client runs in its own process (agent-worker.ts).
import { startMock } from '../lib/targets.ts';
import { cpuMicros, processTree } from '../lib/proc-stats.ts';
import { median, percentile } from '../lib/stats.ts';
import type { DeploymentStats } from './mock-agent.ts';
import type { AgentKind, SessionShape } from './sessions.ts';
import {
  directAgentTarget,
  startBareAgentTarget,
  startCcrAgentTarget,
  startModelgateAgentTargets,
  type AgentTarget,
  type AgentTargetName,
} from './targets.ts';
import type { ReplyUsage } from './fold-reply.ts';
import { headOfLineRow, sampleHeadOfLine, type HeadOfLineRow } from './head-of-line.ts';
import { mockJson, runWorker } from './worker-client.ts';

const AGENTS: readonly AgentKind[] = ['claude-code', 'codex'];
const WARMUP_TURNS = 4;

export interface AgentBenchOptions {
  turns: number;
  sessions: number;
  maxContextTokens: number;
  /** Bytes of system prompt and of tool definitions, each. */
  preambleBytes: number;
  smallRequests: number;
  /** Repetitions, the targets' order rotated each time; the figures pool them. */
  reps: number;
  /** Targets to run; all when undefined. */
  targets?: ReadonlySet<string>;
  /** Install claude-code-router into bench/peer when it is missing. */
  installPeers: boolean;
  workDir: string;
  log: (line: string) => void;
}

export interface SessionRow {
  target: AgentTargetName;
  agent: AgentKind;
  sessions: number;
  turns: number;
  /** The largest prompt a turn sent, in tokens (as the replies reported). */
  maxContextTokens: number;
  ttftP50Us: number;
  ttftP99Us: number;
  /** p50 over the bare proxy's p50 for the same agent; null without a bare-proxy row. */
  addedTtftP50Us: number | null;
  /** The target's CPU over the measured sessions, a session and a turn: the median of the repetitions'. */
  cpuUsPerSession: number;
  cpuUsPerTurn: number;
  /** Tokens the replies reported read from cache. */
  cacheRead: number;
  /** Tokens the replies reported written to cache (Anthropic bills them above plain input; OpenAI reports none). */
  cacheWrite: number;
  /** Tokens the mock's shared cache would have served: what the sessions had sent before. */
  cacheable: number;
  /** cacheRead / cacheable; null when nothing was cacheable. */
  cacheRatio: number | null;
  /** cacheRead / all prompt tokens. */
  promptFromCache: number;
  requestsByDeployment: Record<string, number>;
  /** Overloaded answers (503, 529) the client retried, as the agents do. */
  retries: number;
  errors: string[];
}

export interface AgentReport {
  settings: Omit<AgentBenchOptions, 'targets' | 'workDir' | 'log' | 'installPeers'>;
  sessions: SessionRow[];
  headOfLine: HeadOfLineRow[];
  skipped: string[];
}

interface SessionsLine {
  sessions: number;
  turns: number;
  ttftUs: number[];
  usage: ReplyUsage;
  maxInput: number;
  withoutUsage: number;
  retries: number;
  errors: string[];
}

const cpuOf = (target: AgentTarget): number => cpuMicros(processTree(target.child.pid));

async function startTargets(
  mock: { child: import('../lib/processes.ts').Child; port: number },
  options: AgentBenchOptions,
  skipped: string[],
): Promise<AgentTarget[]> {
  const wanted = (name: string): boolean => options.targets === undefined || options.targets.has(name);
  const out: AgentTarget[] = wanted('direct') ? [directAgentTarget(mock)] : [];
  const starters: Array<[string, () => Promise<AgentTarget[] | string>]> = [
    ['bare-proxy', () => startBareAgentTarget(mock.port)],
    ['modelgate', () => startModelgateAgentTargets({ mockPort: mock.port, workDir: options.workDir })],
    [
      'ccr',
      () => startCcrAgentTarget({ mockPort: mock.port, workDir: options.workDir, install: options.installPeers }),
    ],
  ];
  for (const [name, start] of starters) {
    if (!wanted(name)) continue;
    const started = await start().catch((error: Error) => error.message);
    if (typeof started === 'string') skipped.push(`${name}: ${started}`);
    else out.push(...started);
    options.log(`target ${name}: ${typeof started === 'string' ? started : 'up'}`);
  }
  return out;
}

/** One repetition's sessions on one target: what the client saw, the target's CPU, the mock's cache figures. */
interface SessionSample {
  line: SessionsLine;
  cpuUs: number;
  stats: Record<string, DeploymentStats>;
}

async function sampleSessions(options: {
  target: AgentTarget;
  shape: SessionShape;
  bench: AgentBenchOptions;
  mockUrl: string;
  nonce: string;
  warm: boolean;
}): Promise<SessionSample> {
  const { target, shape } = options;
  const base = { mode: 'sessions', endpoint: target.endpoint };
  // A fresh Node proxy compiles its hot paths over its first requests: those are not timed.
  if (options.warm) {
    const warm = { ...shape, turns: Math.min(WARMUP_TURNS, shape.turns) };
    await runWorker({ ...base, shape: warm, sessions: 1, nonce: `${options.nonce}w` }, 'sessions');
  }
  await mockJson(options.mockUrl, '/agent/reset', 'POST');
  const before = cpuOf(target);
  const line = await runWorker<SessionsLine>(
    { ...base, shape, sessions: options.bench.sessions, nonce: options.nonce },
    'sessions',
  );
  const cpuUs = cpuOf(target) - before;
  const stats = await mockJson<Record<string, DeploymentStats>>(options.mockUrl, '/agent/stats', 'GET');
  return { line, cpuUs, stats };
}

/**
 * The repetitions of one target and agent: every turn's time to first token pooled, tokens summed, CPU the
 * median of the repetitions' (the first one's includes the compiling a fresh process still does).
 */
function sessionRow(target: AgentTargetName, agent: AgentKind, samples: readonly SessionSample[]): SessionRow {
  const ttftUs: number[] = [];
  const errors: string[] = [];
  const byDeployment: Record<string, number> = {};
  let turns = 0;
  let sessions = 0;
  const cpuPerSession: number[] = [];
  const cpuPerTurn: number[] = [];
  let read = 0;
  let written = 0;
  let input = 0;
  let cacheable = 0;
  let maxInput = 0;
  let retries = 0;
  let withoutUsage = 0;
  for (const { line, cpuUs: cpu, stats } of samples) {
    for (const t of line.ttftUs) if (t !== null && Number.isFinite(t)) ttftUs.push(t);
    if (line.ttftUs.some((t) => t === null || !Number.isFinite(t))) errors.push('a reply streamed no delta');
    errors.push(...line.errors);
    turns += line.turns;
    sessions += line.sessions;
    if (line.sessions > 0) cpuPerSession.push(cpu / line.sessions);
    if (line.turns > 0) cpuPerTurn.push(cpu / line.turns);
    read += line.usage.cacheRead;
    written += line.usage.cacheWrite;
    input += line.usage.input;
    maxInput = Math.max(maxInput, line.maxInput);
    retries += line.retries;
    withoutUsage += line.withoutUsage;
    for (const [d, s] of Object.entries(stats)) {
      byDeployment[d] = (byDeployment[d] ?? 0) + s.requests;
      cacheable += s.cacheable;
    }
  }
  if (withoutUsage > 0) errors.push(`${withoutUsage} replies reported no usage`);
  return {
    target,
    agent,
    sessions,
    turns,
    maxContextTokens: maxInput,
    ttftP50Us: percentile(ttftUs, 50),
    ttftP99Us: percentile(ttftUs, 99),
    addedTtftP50Us: null,
    cpuUsPerSession: median(cpuPerSession),
    cpuUsPerTurn: median(cpuPerTurn),
    cacheRead: read,
    cacheWrite: written,
    cacheable,
    cacheRatio: cacheable === 0 ? null : read / cacheable,
    promptFromCache: input === 0 ? 0 : read / input,
    requestsByDeployment: byDeployment,
    retries,
    errors: [...new Set(errors)],
  };
}

function rotate<T>(items: readonly T[], by: number): T[] {
  return items.map((_, i) => items[(i + by) % items.length]);
}

/**
 * `sample` on every target, repetition after repetition with the order rotated, so a machine that drifts
 * (other work starting, a neighbour's burst) hits every target alike; a target that fails is dropped.
 */
async function alternated<S>(
  targets: readonly AgentTarget[],
  reps: number,
  sample: (target: AgentTarget, rep: number) => Promise<S>,
  failed: (target: AgentTarget, message: string) => void,
): Promise<Map<AgentTarget, S[]>> {
  const out = new Map<AgentTarget, S[]>(targets.map((t) => [t, []]));
  for (let rep = 0; rep < reps; rep++) {
    for (const target of rotate([...out.keys()], rep)) {
      try {
        out.get(target)?.push(await sample(target, rep));
      } catch (error) {
        failed(target, (error as Error).message);
        out.delete(target);
      }
    }
  }
  return out;
}

export async function runAgentBench(options: AgentBenchOptions): Promise<AgentReport> {
  const skipped: string[] = [];
  const mock = await startMock({ chunks: 50, chunkSize: 6, pacing: 'tick', latencyMs: 0 });
  const mockUrl = `http://127.0.0.1:${mock.port}`;
  const nonce = `${Date.now().toString(36)}`;
  const targets = await startTargets(mock, options, skipped);
  const sessions: SessionRow[] = [];
  const headOfLine: HeadOfLineRow[] = [];
  try {
    for (const agent of AGENTS) {
      const serving = targets.filter((t) => t.agents.has(agent));
      for (const t of targets) if (!t.agents.has(agent)) skipped.push(`${agent} on ${t.name}: not a client it serves`);
      const shape: SessionShape = {
        kind: agent,
        turns: options.turns,
        maxContextTokens: options.maxContextTokens,
        preambleBytes: options.preambleBytes,
      };
      const samples = await alternated(
        serving,
        options.reps,
        async (target, rep) => {
          const sample = await sampleSessions({
            target,
            shape,
            bench: options,
            mockUrl,
            nonce: `${nonce}-${target.name}-${rep}`,
            warm: rep === 0,
          });
          options.log(
            `${agent} rep ${rep + 1} on ${target.name}: ${sample.line.turns} turns, ${Math.round(sample.cpuUs / 1000)} ms CPU${sample.line.errors.length > 0 ? `, errors: ${sample.line.errors.join('; ')}` : ''}`,
          );
          return sample;
        },
        (target, message) => skipped.push(`${agent} on ${target.name}: ${message}`),
      );
      const rows = [...samples].map(([target, s]) => sessionRow(target.name, agent, s));
      const bare = rows.find((r) => r.target === 'bare-proxy');
      for (const row of rows) if (bare !== undefined) row.addedTtftP50Us = row.ttftP50Us - bare.ttftP50Us;
      sessions.push(...rows);
    }
    const holTargets = targets.filter((t) => t.name !== 'modelgate-no-session');
    const samples = await alternated(
      holTargets,
      options.reps,
      async (target, rep) => {
        const sample = await sampleHeadOfLine(target, options, mockUrl, `${nonce}-${target.name}-big${rep}`);
        options.log(
          `head-of-line rep ${rep + 1} on ${target.name}: small p99 ${(percentile(sample.alone.totalUs, 99) / 1000).toFixed(2)} ms alone, ${(percentile(sample.withBig.totalUs, 99) / 1000).toFixed(2)} ms beside ${sample.big.big} big requests`,
        );
        return sample;
      },
      (target, message) => skipped.push(`head-of-line on ${target.name}: ${message}`),
    );
    for (const [target, s] of samples) headOfLine.push(headOfLineRow(target.name, s));
  } finally {
    for (const target of targets.slice().reverse()) if (target.owned) await target.child.stop();
    await mock.child.stop();
  }
  const { targets: _t, workDir: _w, log: _l, installPeers: _i, ...settings } = options;
  return { settings, sessions, headOfLine, skipped };
}

// `npm run bench:agents [-- --turns N --sessions N --reps N --context-tokens N --small-requests N
// --targets a,b --skip-install --json]`: replays Claude Code and Codex sessions through the bare proxy, modelgate (two
// deployments of each model) and claude-code-router against the mock upstream's agent side, and writes
// bench/results/<date>-agents.md (agents/run.ts says what is measured).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { idleLine } from './lib/machine.ts';
import { renderAgentReport } from './agents/report.ts';
import { runAgentBench } from './agents/run.ts';

const { values } = parseArgs({
  options: {
    turns: { type: 'string', default: '24' },
    sessions: { type: 'string', default: '2' },
    'context-tokens': { type: 'string', default: '100000' },
    'preamble-bytes': { type: 'string', default: '24576' },
    'small-requests': { type: 'string', default: '1000' },
    reps: { type: 'string', default: '3' },
    targets: { type: 'string' },
    // Leaves claude-code-router out unless bench/peer is already installed.
    'skip-install': { type: 'boolean', default: false },
    // The report as JSON on stdout too.
    json: { type: 'boolean', default: false },
  },
});

const count = (name: keyof typeof values): number => {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < 1) {
    process.stderr.write(`--${name} must be a positive whole number\n`);
    process.exit(2);
  }
  return n;
};

const started = Date.now();
const workDir = mkdtempSync(join(os.tmpdir(), 'modelgate-agents-'));
const log = (line: string): void => void process.stderr.write(`${line}\n`);
try {
  const report = await runAgentBench({
    turns: count('turns'),
    sessions: count('sessions'),
    maxContextTokens: count('context-tokens'),
    preambleBytes: count('preamble-bytes'),
    smallRequests: count('small-requests'),
    reps: count('reps'),
    targets: values.targets === undefined ? undefined : new Set(values.targets.split(',')),
    installPeers: values['skip-install'] !== true,
    workDir,
    log,
  });
  const load = os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ');
  const idle = idleLine();
  const header = [
    `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.type()} ${os.release()}, Node ${process.version}; load average at the end ${load} (1 / 5 / 15 min)${idle === undefined ? '' : `; ${idle}`}`,
    'mock upstream: bench/mock-upstream.ts under /agent/<deployment>/, a prompt cache per deployment (Anthropic breakpoint rules, OpenAI automatic prefixes), one event per event-loop turn',
    'CPU = utime+stime of the target’s process tree (/proc) across the measured sessions; for direct, the mock’s own',
    `run took ${Math.round((Date.now() - started) / 1000)} s`,
  ];
  const dir = join(import.meta.dirname, 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${new Date().toISOString().slice(0, 10)}-agents.md`);
  const text = renderAgentReport(report, header);
  writeFileSync(file, `${text}\n`);
  process.stdout.write(values.json === true ? `${JSON.stringify(report)}\n` : `${text}\nwritten ${file}\n`);
  if (report.sessions.length === 0) process.exitCode = 1;
} finally {
  rmSync(workDir, { recursive: true, force: true });
}

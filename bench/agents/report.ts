// The agent bench's results as markdown: one table of sessions per agent, one of the head-of-line measure.
import { PREFILL_US_PER_TOKEN, type HeadOfLineRow } from './head-of-line.ts';
import type { AgentReport, SessionRow } from './run.ts';

const ms = (us: number): string => (Number.isFinite(us) ? (us / 1000).toFixed(2) : '—');
const signedMs = (us: number | null): string =>
  us === null || !Number.isFinite(us) ? '—' : `${us >= 0 ? '+' : '−'}${Math.abs(us / 1000).toFixed(2)}`;
const pct = (x: number | null): string => (x === null || !Number.isFinite(x) ? '—' : `${(x * 100).toFixed(1)} %`);
const int = (n: number): string => Math.round(n).toLocaleString('en-US');

const TARGET_LABEL: Record<SessionRow['target'], string> = {
  direct: 'direct to the mock',
  'bare-proxy': 'bare proxy',
  modelgate: 'modelgate, two deployments',
  'modelgate-no-session': 'modelgate, two deployments, no session id sent',
  ccr: 'claude-code-router 2.0.0',
};

function sessionTable(rows: readonly SessionRow[]): string[] {
  const out = [
    '| target | turns | context at the end | time to first token p50 / p99 (ms) | added p50 vs bare proxy (ms) | CPU a session (ms) | CPU a turn (ms) | read from cache / cacheable | written to cache | whole prompt from cache | requests by deployment | 503s retried |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|',
  ];
  for (const r of rows) {
    const deployments = Object.entries(r.requestsByDeployment)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([d, n]) => `${d}: ${n}`)
      .join(', ');
    out.push(
      `| ${TARGET_LABEL[r.target]} | ${r.turns} | ${int(r.maxContextTokens)} tokens | ${ms(r.ttftP50Us)} / ${ms(r.ttftP99Us)} | ${r.target === 'bare-proxy' ? '—' : signedMs(r.addedTtftP50Us)} | ${ms(r.cpuUsPerSession)} | ${ms(r.cpuUsPerTurn)} | **${pct(r.cacheRatio)}** (${int(r.cacheRead)} / ${int(r.cacheable)}) | ${r.agent === 'codex' ? '—' : int(r.cacheWrite)} | ${pct(r.promptFromCache)} | ${deployments} | ${r.retries} |`,
    );
  }
  const errors = rows.filter((r) => r.errors.length > 0);
  for (const r of errors) out.push('', `Errors on ${TARGET_LABEL[r.target]}: ${r.errors.join('; ')}`);
  return out;
}

function headOfLineTable(rows: readonly HeadOfLineRow[]): string[] {
  const out = [
    '| target | small request p50 / p99 / max alone (ms) | p50 / p99 / max with a 100k-token request in flight (ms) | p99 added (ms) | big requests served meanwhile | 503s retried | errors |',
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows)
    out.push(
      `| ${TARGET_LABEL[r.target]} | ${ms(r.alone.p50Us)} / ${ms(r.alone.p99Us)} / ${ms(r.alone.maxUs)} | ${ms(r.withBig.p50Us)} / ${ms(r.withBig.p99Us)} / ${ms(r.withBig.maxUs)} | ${signedMs(r.withBig.p99Us - r.alone.p99Us)} | ${r.bigCompleted} of ${int(r.bigBytes / 1024)} KB | ${r.retries} | ${r.errors} |`,
    );
  return out;
}

export function renderAgentReport(report: AgentReport, header: readonly string[]): string {
  const s = report.settings;
  const lines = [
    `# Agent bench, ${new Date().toISOString().slice(0, 10)}`,
    '',
    ...header.map((h) => `- ${h}`),
    `- ${s.reps} repetition(s), the targets' order rotated each time, of ${s.sessions} session(s) of ${s.turns} turns per agent and target, context growing to ≈ ${int(s.maxContextTokens)} tokens; system prompt and tools ${int(s.preambleBytes / 1024)} KB each; ${s.smallRequests} small requests per head-of-line phase and repetition; figures pool the repetitions`,
    '',
  ];
  for (const agent of ['claude-code', 'codex'] as const) {
    const rows = report.sessions.filter((r) => r.agent === agent);
    if (rows.length === 0) continue;
    lines.push(
      `## ${agent === 'claude-code' ? 'Claude Code (/v1/messages)' : 'Codex (/v1/responses)'}`,
      '',
      ...sessionTable(rows),
      '',
    );
  }
  if (report.headOfLine.length > 0)
    lines.push(
      '## Small requests beside a 100k-token request',
      '',
      `Small streamed /v1/messages requests one at a time, alone, then while a second client keeps one uncached ${int(s.maxContextTokens)}-token Claude Code request in flight (a new one as each completes; the mock answers after ${PREFILL_US_PER_TOKEN} µs a token it has not cached).`,
      '',
      ...headOfLineTable(report.headOfLine),
      '',
    );
  if (report.skipped.length > 0) lines.push('## Skipped', '', ...report.skipped.map((x) => `- ${x}`), '');
  return lines.join('\n');
}

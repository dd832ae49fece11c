// Renders a benchmark run as markdown: one table per scenario (medians over repetitions), the ratios
// issue 6 asks for, and each target of the issue checked against the numbers.
import type { Rep } from './measure.ts';
import type { LoadScenario } from './scenarios.ts';
import { STREAM_EVENTS } from './scenarios.ts';
import { median } from './stats.ts';
import type { TargetName } from './targets.ts';

export interface LoadCell {
  scenario: LoadScenario;
  target: TargetName;
  reps: Rep[];
}

export interface TtfbRep {
  ttfbP50Us: number;
  ttfbP99Us: number;
  totalP50Us: number;
  totalP99Us: number;
  errors: number;
}

export interface HoldResult {
  target: TargetName;
  /** In the process that served the load scenarios first, or in a freshly started one. */
  phase: 'after load' | 'fresh process';
  streams: number;
  ready: number;
  failed: number;
  completed: number;
  rssIdleMb: number;
  rssHoldMb: number;
  probeIdleP50Us: number;
  probeIdleP99Us: number;
  probeHoldP50Us: number;
  probeHoldP99Us: number;
}

export interface RunResults {
  date: string;
  mode: 'full' | 'quick';
  header: string[];
  notes: string[];
  skipped: string[];
  load: LoadCell[];
  ttfb: Map<TargetName, TtfbRep[]>;
  hold: HoldResult[];
}

export interface Summary {
  cpu: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  requests: number;
}

export function summarise(reps: readonly Rep[]): Summary {
  return {
    cpu: median(reps.map((r) => r.cpuUsPerReq)),
    rps: median(reps.map((r) => r.rps)),
    p50: median(reps.map((r) => r.p50Us)),
    p99: median(reps.map((r) => r.p99Us)),
    errors: reps.reduce((n, r) => n + r.errors, 0),
    requests: reps.reduce((n, r) => n + r.requests, 0),
  };
}

function fmt(value: number, digits = 0): string {
  if (!Number.isFinite(value)) return '—';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function ms(us: number): string {
  return Number.isFinite(us) ? fmt(us / 1000, 2) : '—';
}

function cell(results: RunResults, scenarioId: string, target: TargetName): Summary | undefined {
  const found = results.load.find((c) => c.scenario.id === scenarioId && c.target === target);
  return found === undefined ? undefined : summarise(found.reps);
}

function ratio(a: number | undefined, b: number | undefined): number {
  return a === undefined || b === undefined || b === 0 ? Number.NaN : a / b;
}

function ttfbSummary(results: RunResults, target: TargetName): { p50: number; p99: number; totalP50: number } | undefined {
  const reps = results.ttfb.get(target);
  if (reps === undefined || reps.length === 0) return undefined;
  return { p50: median(reps.map((r) => r.ttfbP50Us)), p99: median(reps.map((r) => r.ttfbP99Us)), totalP50: median(reps.map((r) => r.totalP50Us)) };
}

function loadTables(results: RunResults): string[] {
  const out: string[] = [];
  const seen = [...new Set(results.load.map((c) => c.scenario))];
  for (const scenario of seen) {
    const perEvent = scenario.eventsPerResponse;
    const bare = cell(results, scenario.id, 'bare-proxy');
    out.push(`### ${scenario.title}`, '');
    out.push(`| target | req/s | p50 ms | p99 ms | CPU µs/req |${perEvent === undefined ? '' : ' CPU µs/event |'} CPU × bare | errors |`);
    out.push(`|---|---:|---:|---:|---:|${perEvent === undefined ? '' : '---:|'}---:|---:|`);
    for (const c of results.load.filter((x) => x.scenario === scenario)) {
      const s = summarise(c.reps);
      const event = perEvent === undefined ? '' : ` ${c.target === 'direct' ? '—' : fmt(s.cpu / perEvent, 1)} |`;
      const times = c.target === 'direct' ? '—' : fmt(ratio(s.cpu, bare?.cpu), 2);
      const cpu = c.target === 'direct' ? `(${fmt(s.cpu, 1)} mock)` : fmt(s.cpu, 1);
      out.push(`| ${c.target} | ${fmt(s.rps)} | ${ms(s.p50)} | ${ms(s.p99)} | ${cpu} |${event} ${times} | ${s.errors}/${s.requests} |`);
    }
    out.push('');
  }
  return out;
}

function ttfbTable(results: RunResults): string[] {
  if (results.ttfb.size === 0) return [];
  const direct = ttfbSummary(results, 'direct');
  const out = ['### Time to first streamed byte, 1 connection', '', '| target | TTFB p50 ms | TTFB p99 ms | added p50 ms | whole stream p50 ms | errors |', '|---|---:|---:|---:|---:|---:|'];
  for (const [target, reps] of results.ttfb) {
    const s = ttfbSummary(results, target);
    if (s === undefined) continue;
    const added = target === 'direct' || direct === undefined ? '—' : ms(s.p50 - direct.p50);
    out.push(`| ${target} | ${ms(s.p50)} | ${ms(s.p99)} | ${added} | ${ms(s.totalP50)} | ${reps.reduce((n, r) => n + r.errors, 0)} |`);
  }
  out.push('');
  return out;
}

function holdTable(results: RunResults): string[] {
  if (results.hold.length === 0) return [];
  const out = [
    '### Open streams held at once (RSS, and event-loop delay seen from outside as the latency of a cheap request)',
    '',
    '| target | process | streams open / asked | RSS idle MB | RSS holding MB | cheap request p50/p99 ms idle | during hold | streams completed |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const h of results.hold) {
    out.push(
      `| ${h.target} | ${h.phase} | ${h.ready}/${h.streams} | ${fmt(h.rssIdleMb, 1)} | ${fmt(h.rssHoldMb, 1)} | ${ms(h.probeIdleP50Us)} / ${ms(h.probeIdleP99Us)} | ${ms(h.probeHoldP50Us)} / ${ms(h.probeHoldP99Us)} | ${h.completed} |`,
    );
  }
  out.push('');
  return out;
}

function check(ok: boolean | undefined): string {
  if (ok === undefined) return 'not measured';
  return ok ? 'met' : '**missed**';
}

function holdStatus(hold: HoldResult | undefined): string {
  if (hold === undefined) return check(undefined);
  // Holding every stream is part of the target: a proxy that queues some has not met it at any RSS.
  if (hold.ready < hold.streams) return `**missed** (only ${hold.ready} of ${hold.streams} streams started)`;
  return check(hold.rssHoldMb <= 200);
}

/** The headline ratios and the targets, as markdown lines (also copied into BENCHMARKS.md). */
export function headline(results: RunResults): string[] {
  const mg = cell(results, 'chat-c50', 'modelgate');
  const bare = cell(results, 'chat-c50', 'bare-proxy');
  const nginx = cell(results, 'chat-c50', 'nginx');
  const portkey = cell(results, 'chat-c50', 'portkey');
  const streamMg = cell(results, 'stream-c50', 'modelgate');
  const translated = cell(results, 'translated-c50', 'modelgate');
  const mgC1 = cell(results, 'chat-c1', 'modelgate');
  const directC1 = cell(results, 'chat-c1', 'direct');
  const mgTtfb = ttfbSummary(results, 'modelgate');
  const directTtfb = ttfbSummary(results, 'direct');
  const hold = results.hold.find((h) => h.target === 'modelgate' && h.phase === 'fresh process') ?? results.hold.find((h) => h.target === 'modelgate');
  const holdAfterLoad = results.hold.find((h) => h.target === 'modelgate' && h.phase === 'after load');
  const perEvent = (s: Summary | undefined): number | undefined => (s === undefined ? undefined : s.cpu / STREAM_EVENTS);
  const addedP50 = mgC1 && directC1 ? mgC1.p50 - directC1.p50 : undefined;
  const addedP99 = mgC1 && directC1 ? mgC1.p99 - directC1.p99 : undefined;
  const addedTtfb = mgTtfb && directTtfb ? mgTtfb.p50 - directTtfb.p50 : undefined;
  const mgBare = ratio(mg?.cpu, bare?.cpu);
  const pkMg = ratio(portkey?.cpu, mg?.cpu);
  const defined = <T>(value: T | undefined, test: (v: T) => boolean): boolean | undefined =>
    value === undefined || (typeof value === 'number' && !Number.isFinite(value)) ? undefined : test(value);
  return [
    '| measure (non-streaming chat, 50 connections, CPU per request) | ratio |',
    '|---|---:|',
    `| modelgate / bare-proxy | ${fmt(mgBare, 2)} |`,
    `| modelgate / nginx | ${fmt(ratio(mg?.cpu, nginx?.cpu), 2)} |`,
    `| Portkey / modelgate | ${fmt(pkMg, 2)} |`,
    '',
    '| target from issue 6 | measured | status |',
    '|---|---:|---|',
    `| non-streaming CPU ≤ 1.25 × bare proxy | ${fmt(mgBare, 2)} × | ${check(defined(mgBare, (v) => v <= 1.25))} |`,
    `| non-streaming CPU ≥ 7 × less than Portkey | ${fmt(pkMg, 2)} × | ${check(defined(pkMg, (v) => v >= 7))} |`,
    `| streaming pass-through ≤ 9 µs CPU/event | ${fmt(perEvent(streamMg) ?? Number.NaN, 1)} µs | ${check(defined(perEvent(streamMg), (v) => v <= 9))} |`,
    `| translated streaming ≤ 12 µs CPU/event | ${fmt(perEvent(translated) ?? Number.NaN, 1)} µs | ${check(defined(perEvent(translated), (v) => v <= 12))} |`,
    `| added latency p50 at 1 connection ≤ 150 µs | ${fmt(addedP50 ?? Number.NaN)} µs | ${check(defined(addedP50, (v) => v <= 150))} |`,
    `| added latency p99 at 1 connection ≤ 1 ms | ${fmt(addedP99 ?? Number.NaN)} µs | ${check(defined(addedP99, (v) => v <= 1000))} |`,
    `| added time to first streamed byte ≤ 0.5 ms | ${fmt(addedTtfb ?? Number.NaN)} µs | ${check(defined(addedTtfb, (v) => v <= 500))} |`,
    `| RSS ≤ 200 MB holding ${hold?.streams ?? 1000} streams (${hold?.phase ?? 'fresh process'}) | ${fmt(hold?.rssHoldMb ?? Number.NaN, 1)} MB | ${holdStatus(hold)} |`,
    `| the same, in the process that served every load scenario first | ${fmt(holdAfterLoad?.rssHoldMb ?? Number.NaN, 1)} MB | ${holdStatus(holdAfterLoad)} |`,
    '',
  ];
}

export function renderResults(results: RunResults): string {
  return [
    `# Benchmark ${results.date} (${results.mode} mode)`,
    '',
    ...results.header.map((line) => `- ${line}`),
    ...results.notes.map((line) => `- ${line}`),
    ...results.skipped.map((line) => `- skipped: ${line}`),
    '',
    '## Headline',
    '',
    ...headline(results),
    '## Scenarios (medians over repetitions)',
    '',
    ...loadTables(results),
    ...ttfbTable(results),
    ...holdTable(results),
  ].join('\n');
}

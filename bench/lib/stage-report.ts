// The stage pass as a markdown table: per stage, modelgate beside the bare proxy (medians over
// repetitions of each repetition's p50, p90 and p99), and what modelgate adds at the median and the tail.
import { STAGE_NAMES } from './stages.ts';
import type { StageSummary } from './stages.ts';
import { median } from './stats.ts';
import type { TargetName } from './targets.ts';

function us(value: number): string {
  return Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '—';
}

/** `timed` names what each repetition sent one at a time ('streams', 'requests'). */
export function stageTable(stages: ReadonlyMap<TargetName, readonly StageSummary[]>, title: string, timed = 'streams'): string[] {
  const mg = stages.get('modelgate') ?? [];
  const bare = stages.get('bare-proxy') ?? [];
  if (mg.length === 0 && bare.length === 0) return [];
  const mid = (reps: readonly StageSummary[], i: number, read: 'p50Us' | 'p90Us' | 'p99Us'): number => median(reps.map((r) => r.stages[i]?.[read] ?? Number.NaN));
  const cell = (reps: readonly StageSummary[], i: number): string => `${us(mid(reps, i, 'p50Us'))} (${us(mid(reps, i, 'p90Us'))}, ${us(mid(reps, i, 'p99Us'))})`;
  const rows = STAGE_NAMES.map((name, i) => {
    const added = (read: 'p50Us' | 'p99Us'): string => us(mid(mg, i, read) - mid(bare, i, read));
    return `| ${name} | ${cell(mg, i)} | ${cell(bare, i)} | ${added('p50Us')} | ${added('p99Us')} |`;
  });
  const count = (reps: readonly StageSummary[]): number => reps.reduce((n, r) => n + r.requests, 0);
  return [
    `### ${title}`,
    '',
    '| stage | modelgate p50 µs (p90, p99) | bare proxy p50 µs (p90, p99) | modelgate − bare, p50 µs | modelgate − bare, p99 µs |',
    '|---|---:|---:|---:|---:|',
    ...rows,
    '',
    `${timed[0].toUpperCase()}${timed.slice(1)} timed: modelgate ${count(mg)}, bare proxy ${count(bare)}, over ${Math.max(mg.length, bare.length)} alternated repetition(s). The upstream's own time (the mock) is inside "upstream request written → upstream headers". Each stage's percentiles are its own: a slow request need not be slow in every stage. The bare proxy hands undici the request as a stream, so its upstream write starts before it has read the body; modelgate reads, checks and admits the body first. In both, the first stage holds one event-loop turn between handing undici the request and its write: on a reused upstream connection undici ≥ 7.28 first lets the loop read whatever the idle socket holds (its fix for GHSA-35p6-xmwp-9g52).`,
    '',
  ];
}

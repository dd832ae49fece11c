// The stage pass as a markdown table: per stage, modelgate beside the bare proxy (medians over
// repetitions of each repetition's p50 and p90), and what modelgate adds.
import { STAGE_NAMES } from './stages.ts';
import type { StageSummary } from './stages.ts';
import { median } from './stats.ts';
import type { TargetName } from './targets.ts';

function us(value: number): string {
  return Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '—';
}

export function stageTable(stages: ReadonlyMap<TargetName, readonly StageSummary[]>, title: string): string[] {
  const mg = stages.get('modelgate') ?? [];
  const bare = stages.get('bare-proxy') ?? [];
  if (mg.length === 0 && bare.length === 0) return [];
  const mid = (reps: readonly StageSummary[], i: number, read: 'p50Us' | 'p90Us'): number => median(reps.map((r) => r.stages[i]?.[read] ?? Number.NaN));
  const rows = STAGE_NAMES.map((name, i) => {
    const m = mid(mg, i, 'p50Us');
    const b = mid(bare, i, 'p50Us');
    return `| ${name} | ${us(m)} (${us(mid(mg, i, 'p90Us'))}) | ${us(b)} (${us(mid(bare, i, 'p90Us'))}) | ${us(m - b)} |`;
  });
  const count = (reps: readonly StageSummary[]): number => reps.reduce((n, r) => n + r.requests, 0);
  return [
    `### ${title}`,
    '',
    '| stage | modelgate p50 µs (p90) | bare proxy p50 µs (p90) | modelgate − bare, p50 µs |',
    '|---|---:|---:|---:|',
    ...rows,
    '',
    `Streams timed: modelgate ${count(mg)}, bare proxy ${count(bare)}, over ${Math.max(mg.length, bare.length)} alternated repetition(s). The upstream's own time (the mock) is inside "upstream request written → upstream headers".`,
    '',
  ];
}

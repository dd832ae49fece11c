// The tokenizer pass as a markdown table: medians per implementation, and whether they agreed.
import type { TokenizerRep, TokenizerRun } from './tokenizer-pass.ts';
import { median } from './stats.ts';

const fixed = (n: number, digits: number): string => (Number.isFinite(n) ? n.toFixed(digits) : '—');

export function tokenizerTable(run: TokenizerRun | null): string[] {
  if (run === null || run.reps.length === 0) return [];
  const impls = [...new Set(run.reps.map((r) => r.impl))];
  const mid = (reps: TokenizerRep[], read: (r: TokenizerRep) => number): number => median(reps.map(read));
  const rows = impls.map((impl) => {
    const reps = run.reps.filter((r) => r.impl === impl);
    const countMs = mid(reps, (r) => r.countMs);
    const chars = reps[0]!.chars;
    return `| ${impl} | ${reps.length} | ${fixed(mid(reps, (r) => r.firstUseMs), 0)} | ${fixed(mid(reps, (r) => r.rssMb), 1)} | ${fixed(mid(reps, (r) => r.heapMb), 1)} | ${fixed(countMs, 0)} | ${fixed(chars / countMs / 1000, 2)} | ${[...new Set(reps.map((r) => r.tokens))].join(', ')} |`;
  });
  const agreed = new Set(run.reps.map((r) => r.tokens)).size === 1;
  return [
    '### The o200k tokenizer: first use, memory kept, counting (fresh process each)',
    '',
    '| tokenizer | runs | first use ms | RSS kept MB | JS heap kept MB | corpus count ms | M chars/s | tokens |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    `First use: import, table build and a first short count, in a process that had not tokenized before — the gateway's event loop stalls that long the first time a prompt must be counted. Kept: after a full GC, against before the first use. Corpus: ${run.corpus}, counted five times after the first use (the median shown). ${agreed ? 'Both counted the same number of tokens.' : '**The implementations disagree on the token count.**'}`,
    '',
  ];
}

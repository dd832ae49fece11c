// A caller's `anthropic-beta` values against what one upstream takes (ProviderSpec.betas): values it takes
// go as they came, values it knows under another name are renamed, and values it refuses are left out and
// said, so the caller learns of a feature turned off instead of getting the upstream's 400.
import type { BetaRules } from './provider.ts';

export interface BetasFitted {
  /** The header value to send; undefined when nothing is left. */
  value: string | undefined;
  /** What was changed, for `x-modelgate-adjusted`; empty when the header goes as it came. */
  adjustments: string[];
}

/** `header`: the caller's comma-separated `anthropic-beta` value. */
export function fitBetas(rules: BetaRules, header: string): BetasFitted {
  const kept: string[] = [];
  const dropped: string[] = [];
  const adjustments: string[] = [];
  for (const raw of header.split(',')) {
    const beta = raw.trim();
    if (beta === '') continue;
    const renamed = rules.renamed?.[beta];
    if (renamed !== undefined) {
      if (!kept.includes(renamed)) kept.push(renamed);
      adjustments.push(`anthropic-beta ${beta} sent as ${renamed}: the upstream's name for it`);
    } else if (rules.accepted.has(beta)) {
      if (!kept.includes(beta)) kept.push(beta);
    } else dropped.push(beta);
  }
  if (dropped.length > 0)
    adjustments.push(
      `anthropic-beta ${dropped.join(', ')} left out: the upstream does not take ${dropped.length === 1 ? 'it' : 'them'}`,
    );
  return { value: kept.length === 0 ? undefined : kept.join(','), adjustments };
}

// A request's cost explained: one line per token class and unit it was charged for, with the count, the
// price of one token (or unit) and their product. The lines sum to the row's cost (rounded once, as
// costNanos rounds it).
import { NANOS_PER_USD, ratesFor } from '../core/budget.ts';
import type { Price, Rates } from '../core/config-types.ts';
import type { Usage } from '../core/usage.ts';

export interface CostLine {
  class: string;
  tokens?: number;
  units?: number;
  /** USD for one token (or one unit) of the class. */
  unit_price_usd: number;
  cost_usd: number;
}

/** USD per million → USD per token, without the float noise of a plain division (3 / 1e6 = 0.000003). */
function perToken(perMillion: number): number {
  return Number((perMillion / 1e6).toPrecision(12));
}

function usd(n: number): number {
  return Number(n.toPrecision(12));
}

function line(lines: CostLine[], name: string, tokens: number, perMillion: number): void {
  if (tokens <= 0) return;
  lines.push({ class: name, tokens, unit_price_usd: perToken(perMillion), cost_usd: usd((tokens * perMillion) / 1e6) });
}

/**
 * The request's cost lines. A part class (1 h writes, reasoning, audio, image) is a line of its own and
 * its tokens leave its parent's line: every token is on exactly one line. Units without a price are
 * listed at 0 so that the count is still seen.
 */
export function costBreakdown(u: Usage, price: Price | null): CostLine[] {
  const lines: CostLine[] = [];
  if (price === null) return lines;
  const r: Rates = ratesFor(price, u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens);
  const inAudio = u.inputAudioTokens ?? 0;
  const inImage = u.inputImageTokens ?? 0;
  const readAudio = u.cacheReadAudioTokens ?? 0;
  const readImage = u.cacheReadImageTokens ?? 0;
  const write1h = u.cacheWrite1hTokens ?? 0;
  const reasoning = u.reasoningTokens ?? 0;
  const outAudio = u.outputAudioTokens ?? 0;
  const outImage = u.outputImageTokens ?? 0;
  line(lines, 'input', u.inputTokens - inAudio - inImage, r.input);
  line(lines, 'input_audio', inAudio, r.inputAudio ?? r.input);
  line(lines, 'input_image', inImage, r.inputImage ?? r.input);
  line(lines, 'cache_read', u.cacheReadTokens - readAudio - readImage, r.cacheRead);
  line(lines, 'cache_read_audio', readAudio, r.cacheReadAudio ?? r.cacheRead);
  line(lines, 'cache_read_image', readImage, r.cacheReadImage ?? r.cacheRead);
  line(lines, 'cache_write_5m', u.cacheWriteTokens - write1h, r.cacheWrite);
  line(lines, 'cache_write_1h', write1h, r.cacheWrite1h ?? r.cacheWrite);
  line(lines, 'output', u.outputTokens - reasoning - outAudio - outImage, r.output);
  line(lines, 'reasoning', reasoning, r.reasoning ?? r.output);
  line(lines, 'output_audio', outAudio, r.outputAudio ?? r.output);
  line(lines, 'output_image', outImage, r.outputImage ?? r.output);
  if (u.units !== undefined)
    for (const name in u.units) {
      const n = u.units[name];
      const each = price.units?.[name] ?? 0;
      lines.push({ class: name, units: n, unit_price_usd: each, cost_usd: usd(n * each) });
    }
  return lines;
}

/** The stored form of a row's breakdown: JSON, or null when nothing was charged. */
export function breakdownJson(u: Usage, price: Price | null): string | null {
  const lines = costBreakdown(u, price);
  return lines.length === 0 ? null : JSON.stringify(lines);
}

/** A cost in nano-USD as the decimal USD text of `x-modelgate-cost` and stream usage. */
export function usdText(nanos: number): string {
  return (nanos / NANOS_PER_USD).toFixed(9).replace(/\.?0+$/, '') || '0';
}

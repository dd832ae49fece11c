// A request's cost explained: one line per token class and unit it was charged for, with the count, the
// price of one token (or unit) and their product. The lines sum to the row's cost (rounded once, as
// costNanos rounds it).
import { NANOS_PER_USD, ratesFor } from '../core/budget.ts';
import type { Price, Rates } from '../core/config-types.ts';
import { PART_COUNTS, type Usage } from '../core/usage.ts';

export interface CostLine {
  class: string;
  tokens?: number;
  units?: number;
  /** USD for one token (or one unit) of the class. */
  unit_price_usd: number;
  cost_usd: number;
  /** The service tier whose rates priced the line, when not the standard one. */
  service_tier?: string;
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
  const r: Rates = ratesFor(price, u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens, u.serviceTier);
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
  const tier = u.serviceTier;
  if (tier !== undefined && price.serviceTiers?.[tier] !== undefined)
    for (const l of lines) if (l.tokens !== undefined) l.service_tier = tier;
  return lines;
}

/**
 * The stored form of a row's breakdown: JSON, or null when nothing was charged. Usage of the four base
 * classes alone (most requests) is written out directly, without building the lines first: this runs
 * for every priced request.
 */
export function breakdownJson(u: Usage, price: Price | null): string | null {
  if (price === null) return null;
  if (u.units !== undefined || u.serviceTier !== undefined) return linesJson(u, price);
  for (const f of PART_COUNTS) if (u[f] !== undefined) return linesJson(u, price);
  const r = ratesFor(price, u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens);
  const t = (r.perTokenText ??= {
    input: String(perToken(r.input)),
    output: String(perToken(r.output)),
    cacheRead: String(perToken(r.cacheRead)),
    cacheWrite: String(perToken(r.cacheWrite)),
  });
  let json = '';
  if (u.inputTokens > 0) json += lineJson('input', u.inputTokens, t.input, r.input);
  if (u.cacheReadTokens > 0) json += lineJson('cache_read', u.cacheReadTokens, t.cacheRead, r.cacheRead);
  if (u.cacheWriteTokens > 0) json += lineJson('cache_write_5m', u.cacheWriteTokens, t.cacheWrite, r.cacheWrite);
  if (u.outputTokens > 0) json += lineJson('output', u.outputTokens, t.output, r.output);
  return json === '' ? null : `[${json.slice(1)}]`;
}

function lineJson(name: string, tokens: number, unitText: string, perMillion: number): string {
  return `,{"class":"${name}","tokens":${tokens},"unit_price_usd":${unitText},"cost_usd":${usdNumberText(tokens * perMillion * 1000)}}`;
}

function linesJson(u: Usage, price: Price): string | null {
  const lines = costBreakdown(u, price);
  return lines.length === 0 ? null : JSON.stringify(lines);
}

/**
 * An amount of nano-USD as a decimal number of USD: exact for whole nanos (integer arithmetic, no
 * float formatting), twelve significant digits otherwise.
 */
function usdNumberText(nanos: number): string {
  if (!Number.isSafeInteger(nanos)) return String(usd(nanos / NANOS_PER_USD));
  if (nanos < 0) return `-${usdNumberText(-nanos)}`;
  const whole = Math.floor(nanos / NANOS_PER_USD);
  let frac = nanos - whole * NANOS_PER_USD;
  if (frac === 0) return String(whole);
  let digits = 9;
  while (frac % 10 === 0) {
    frac /= 10;
    digits--;
  }
  const f = String(frac);
  return `${whole}.${'000000000'.slice(0, digits - f.length)}${f}`;
}

/** A cost in nano-USD as the decimal USD text of `x-modelgate-cost`. */
export function usdText(nanos: number): string {
  return usdNumberText(nanos);
}

// Token usage as the gateway records and bills it, independent of either wire format.
//
// Four counts partition the prompt and the answer: inputTokens (prompt not read from or written to a cache),
// cacheReadTokens, cacheWriteTokens and outputTokens. The optional counts below are each a part of one of
// those four ("of which"), never an addition to them: a class priced apart takes its tokens out of its
// parent class's line, so no token is billed twice. Every dialect's normaliser (src/dialects/*/usage.ts)
// fills them in from its provider's usage block.

export interface Usage {
  /** Prompt tokens neither read from nor written to the provider's cache. */
  inputTokens: number;
  /** Answer tokens, reasoning included (every provider bills reasoning as output). */
  outputTokens: number;
  /** Prompt tokens read from the provider's cache (Anthropic cache_read_input_tokens, OpenAI cached_tokens). */
  cacheReadTokens: number;
  /** Prompt tokens written to the provider's cache (Anthropic cache_creation_input_tokens), every TTL. */
  cacheWriteTokens: number;
  /** Of cacheWriteTokens, those written for an hour (Anthropic's 1 h TTL); the rest are 5-minute writes. */
  cacheWrite1hTokens?: number;
  /** Of outputTokens, those spent reasoning. */
  reasoningTokens?: number;
  /** Of inputTokens, audio and image tokens. */
  inputAudioTokens?: number;
  inputImageTokens?: number;
  /** Of cacheReadTokens, audio and image tokens. */
  cacheReadAudioTokens?: number;
  cacheReadImageTokens?: number;
  /** Of outputTokens, audio and image tokens. */
  outputAudioTokens?: number;
  outputImageTokens?: number;
  /** Charges per unit beside tokens, by unit name (`web_search`: server-side search calls). */
  units?: Record<string, number>;
  /**
   * The service tier the provider served the request at, when not its standard one (OpenAI's
   * `priority`, `flex`, `scale`; Anthropic's `priority`, `batch`): the price's rates for that tier apply.
   */
  serviceTier?: string;
}

/** Tier names that mean the provider's standard rates. */
const STANDARD_TIERS = new Set(['default', 'standard', 'auto', 'standard_only', 'on_demand']);

/**
 * A service tier as a provider or a caller names it, as Usage keeps it: undefined for the standard tier
 * and for anything that is not a short lowercase name (a caller's text never becomes a price key).
 */
export function servedTier(name: unknown): string | undefined {
  if (typeof name !== 'string' || name.length > 32 || !/^[a-z][a-z0-9_]*$/.test(name)) return undefined;
  return STANDARD_TIERS.has(name) ? undefined : name;
}

/** Notes the tier a reply names on `into`; the standard tier leaves the field absent. */
export function noteServedTier(into: Usage, name: unknown): void {
  const tier = servedTier(name);
  if (tier !== undefined) into.serviceTier = tier;
}

/** The optional "of which" counts, by their field: each is a part of the count its class names. */
export const PART_COUNTS = [
  'cacheWrite1hTokens',
  'reasoningTokens',
  'inputAudioTokens',
  'inputImageTokens',
  'cacheReadAudioTokens',
  'cacheReadImageTokens',
  'outputAudioTokens',
  'outputImageTokens',
] as const;

export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
}

/**
 * Output tokens for text whose count the upstream never gave (a cut stream, an answer without usage):
 * about four characters a token, the same rule on every route.
 */
export function outputTokensForChars(chars: number): number {
  return Math.ceil(chars / 4);
}

/** The bill of output the upstream never counted: the prompt estimate and the output's characters. */
export function estimatedUsage(promptTokens: number, outputChars: number): Usage {
  return {
    inputTokens: promptTokens,
    outputTokens: outputTokensForChars(outputChars),
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
  };
}

/** No request bills more tokens of one kind than this, whatever an upstream reports. */
export const MAX_TOKENS_PER_KIND = 1_000_000_000;

function tokenCount(n: number): number {
  // NaN fails both comparisons and becomes 0, as a negative count does.
  if (!(n > 0)) return 0;
  return n >= MAX_TOKENS_PER_KIND ? MAX_TOKENS_PER_KIND : Math.round(n);
}

/**
 * Usage fit to bill: whole, non-negative token counts below MAX_TOKENS_PER_KIND, each part no larger than
 * the count it is a part of. Upstreams report usage as JSON numbers, and a negative or absurd one (a buggy
 * server, a hostile endpoint) would otherwise credit a budget or make a cost that is not a finite number.
 */
export function billableUsage(u: Usage): Usage {
  const inputTokens = tokenCount(u.inputTokens);
  const outputTokens = tokenCount(u.outputTokens);
  const cacheReadTokens = tokenCount(u.cacheReadTokens);
  const cacheWriteTokens = tokenCount(u.cacheWriteTokens);
  const clean =
    inputTokens === u.inputTokens &&
    outputTokens === u.outputTokens &&
    cacheReadTokens === u.cacheReadTokens &&
    cacheWriteTokens === u.cacheWriteTokens;
  // The common case, plain counts and no parts, allocates nothing.
  let hasParts = u.units !== undefined;
  if (!hasParts)
    for (const f of PART_COUNTS)
      if (u[f] !== undefined) {
        hasParts = true;
        break;
      }
  if (clean && !hasParts) return u;
  const out: Usage = { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens };
  if (u.serviceTier !== undefined) out.serviceTier = u.serviceTier;
  if (!hasParts) return out;
  part(out, 'cacheWrite1hTokens', u.cacheWrite1hTokens, cacheWriteTokens);
  part(out, 'reasoningTokens', u.reasoningTokens, outputTokens);
  part(out, 'inputAudioTokens', u.inputAudioTokens, inputTokens);
  part(out, 'inputImageTokens', u.inputImageTokens, inputTokens - (out.inputAudioTokens ?? 0));
  part(out, 'cacheReadAudioTokens', u.cacheReadAudioTokens, cacheReadTokens);
  part(out, 'cacheReadImageTokens', u.cacheReadImageTokens, cacheReadTokens - (out.cacheReadAudioTokens ?? 0));
  part(out, 'outputAudioTokens', u.outputAudioTokens, outputTokens);
  part(out, 'outputImageTokens', u.outputImageTokens, outputTokens - (out.outputAudioTokens ?? 0));
  if (u.units !== undefined) {
    let units: Record<string, number> | undefined;
    for (const name in u.units) {
      const n = unitCount(u.units[name]);
      if (n === 0) continue;
      units ??= {};
      units[name] = n;
    }
    if (units !== undefined) out.units = units;
  }
  return out;
}

function part(out: Usage, field: (typeof PART_COUNTS)[number], n: number | undefined, whole: number): void {
  if (n === undefined) return;
  const c = tokenCount(n);
  if (c > 0) out[field] = c > whole ? whole : c;
}

/** No request bills more of one unit than this (units may be fractional: audio seconds). */
const MAX_UNITS = 1_000_000;

function unitCount(n: number | undefined): number {
  if (n === undefined || !(n > 0)) return 0;
  return n >= MAX_UNITS ? MAX_UNITS : n;
}

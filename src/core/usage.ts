// Token usage as the gateway records and bills it, independent of either wire format.

export interface Usage {
  /** Prompt tokens not served from cache (OpenAI prompt_tokens minus cached; Anthropic input_tokens). */
  inputTokens: number;
  outputTokens: number;
  /** Prompt tokens read from the provider's cache (Anthropic cache_read_input_tokens, OpenAI cached_tokens). */
  cacheReadTokens: number;
  /** Prompt tokens written to the provider's cache (Anthropic cache_creation_input_tokens). */
  cacheWriteTokens: number;
}

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
 * Usage fit to bill: whole, non-negative token counts below MAX_TOKENS_PER_KIND. Upstreams report
 * usage as JSON numbers, and a negative or absurd one (a buggy server, a hostile endpoint) would
 * otherwise credit a budget or make a cost that is not a finite number.
 */
export function billableUsage(u: Usage): Usage {
  const inputTokens = tokenCount(u.inputTokens);
  const outputTokens = tokenCount(u.outputTokens);
  const cacheReadTokens = tokenCount(u.cacheReadTokens);
  const cacheWriteTokens = tokenCount(u.cacheWriteTokens);
  if (
    inputTokens === u.inputTokens &&
    outputTokens === u.outputTokens &&
    cacheReadTokens === u.cacheReadTokens &&
    cacheWriteTokens === u.cacheWriteTokens
  )
    return u;
  return { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens };
}

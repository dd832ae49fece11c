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

// What the request path needs to know about a validated request, whichever dialect it came in.

export interface RequestFacts {
  model: string;
  stream: boolean;
  /** max_tokens / max_completion_tokens when the caller gave one. */
  maxTokens: number | null;
  /** OpenAI: stream_options.include_usage was true. Always false on /v1/messages. */
  includeUsage: boolean;
}

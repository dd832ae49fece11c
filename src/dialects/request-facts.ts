// What the request path needs to know about a validated request, whichever dialect it came in.

export interface RequestFacts {
  model: string;
  stream: boolean;
  /** max_tokens / max_completion_tokens when the caller gave one. */
  maxTokens: number | null;
  /** OpenAI: stream_options.include_usage was true. Always false on /v1/messages. */
  includeUsage: boolean;
  /** A Responses API request's own state (its validator sets it); absent on every other endpoint. */
  responses?: ResponsesState;
}

/** A Responses request's facts: its state is there (the Responses validator sets it). */
export function withResponsesState(facts: RequestFacts): (RequestFacts & { responses: ResponsesState }) | null {
  return facts.responses === undefined ? null : (facts as RequestFacts & { responses: ResponsesState });
}

/** Whether a Responses API request is stored, and the stored response it continues. */
export interface ResponsesState {
  /** False only when the caller sent `store: false`: then nothing is kept. */
  store: boolean;
  previousResponseId: string | null;
}

// POST /v1/messages/count_tokens (used by coding agents): a local estimate for now — ~4 characters a
// token over the request's text. Anthropic-style upstreams get the exact count once translation lands.
export function estimateCountTokens(body: Record<string, unknown>): number {
  const { model: _model, ...rest } = body;
  return Math.max(1, Math.ceil(JSON.stringify(rest).length / 4));
}

// Where Vertex AI requests go: a regional host (`{location}-aiplatform.googleapis.com`), for the
// `global` location `aiplatform.googleapis.com`, and for the multi-regions `us` and `eu` their
// regional-endpoint hosts (`aiplatform.us.rep.googleapis.com`), as Google's and Anthropic's clients do; the model under its publisher (google for Gemini,
// anthropic for Claude) and the method after a colon. `base_url` replaces the host (a private endpoint or
// a test double). Model ids go as they are (Vertex's own clients write `claude-…@20250514` unescaped).

export type VertexPublisher = 'google' | 'anthropic';

/** The origin for a location, unless `base_url` overrides it. */
export function vertexOrigin(location: string, baseUrl?: string): string {
  if (baseUrl !== undefined) return baseUrl.replace(/\/+$/, '');
  if (location === 'global') return 'https://aiplatform.googleapis.com';
  if (location === 'us' || location === 'eu') return `https://aiplatform.${location}.rep.googleapis.com`;
  return `https://${location}-aiplatform.googleapis.com`;
}

/** Claude models on Vertex are Anthropic's; every other model this provider serves is Google's. */
export function vertexPublisher(model: string): VertexPublisher {
  return model.startsWith('claude') ? 'anthropic' : 'google';
}

/**
 * The path of one call: Gemini's generateContent / streamGenerateContent (SSE) or Claude's rawPredict /
 * streamRawPredict (which answers in Anthropic's own SSE), and countTokens for each.
 */
export function vertexPath(
  project: string,
  location: string,
  model: string,
  stream: boolean,
  operation: 'generate' | 'count-tokens' = 'generate',
): string {
  const publisher = vertexPublisher(model);
  const base = `/v1/projects/${encodeURIComponent(project)}/locations/${encodeURIComponent(location)}/publishers/${publisher}/models/`;
  if (operation === 'count-tokens')
    return publisher === 'anthropic' ? `${base}count-tokens:rawPredict` : `${base}${model}:countTokens`;
  if (publisher === 'anthropic') return `${base}${model}:${stream ? 'streamRawPredict' : 'rawPredict'}`;
  return `${base}${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`;
}

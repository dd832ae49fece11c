// Validation of a generation request, picked by its endpoint (chat, messages, embeddings or Gemini's
// generateContent; the Responses API validates on its own for its conversation state), and the caller's
// headers that describe its body to an upstream of the same dialect.
import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError } from '../core/errors.ts';
import { queryAlt, type GeminiCall } from '../http/gemini-routes.ts';
import type { RequestFacts } from './request-facts.ts';
import { validateChatRequest } from './openai-chat/validate.ts';
import { validateMessagesRequest } from './anthropic-messages/validate.ts';
import type { AnthropicVersion } from './anthropic-messages/version.ts';
import { validateEmbeddingsRequest } from './embeddings/validate.ts';
import { validateGeminiRequest } from './gemini/validate.ts';

/** `version` is set on /v1/messages (its header, already checked); `gemini` on Gemini's paths. */
export function validateGeneration(value: unknown, at: { embedding?: boolean; gemini?: GeminiCall; url: string | undefined; version: AnthropicVersion | null }): RequestFacts {
  if (at.embedding === true) return validateEmbeddingsRequest(value);
  const { gemini } = at;
  if (gemini !== undefined) {
    const stream = gemini.method === 'streamGenerateContent';
    // Without alt=sse Gemini streams one JSON array: every client in use asks for SSE.
    if (stream && queryAlt(at.url) !== 'sse') throw new GatewayError('invalid_request', { message: 'streamGenerateContent is served as server-sent events: add ?alt=sse to the URL.', param: 'alt' });
    return validateGeminiRequest(value, { model: gemini.model ?? '', stream });
  }
  return at.version === null ? validateChatRequest(value) : validateMessagesRequest(value, at.version);
}

const NO_FORWARDED: Record<string, string> = Object.freeze({}) as Record<string, string>;

/** anthropic-version and anthropic-beta, which go upstream where the body passes through unchanged. */
export function forwardedHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  // OpenAI-style callers send neither header: no object per request for them.
  const v = headers['anthropic-version'];
  const b = headers['anthropic-beta'];
  if (v === undefined && b === undefined) return NO_FORWARDED;
  const out: Record<string, string> = {};
  if (typeof v === 'string') out['anthropic-version'] = v;
  if (typeof b === 'string') out['anthropic-beta'] = b;
  return out;
}

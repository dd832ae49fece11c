// Validation of Gemini generateContent / streamGenerateContent / countTokens calls: the path (model,
// method, `alt`) here, the body by its schema (schema.ts). The model and whether to stream come from the
// path, not the body.
import { GatewayError } from '../../core/errors.ts';
import { isObject } from '../../core/json.ts';
import { queryAlt, type GeminiCall } from './routes.ts';
import type { RequestFacts } from '../request-facts.ts';
import { checkRequest } from '../request-schema.ts';
import { geminiCountSchema, geminiRequestSchema } from './request-schema.ts';

function bad(message: string, param: string): GatewayError {
  return new GatewayError('invalid_request', { message, param });
}

/** A generateContent or streamGenerateContent call: its path (model, method, `alt`) and its body. */
export function validateGeminiCall(body: unknown, call: GeminiCall, url: string | undefined): RequestFacts {
  const stream = call.method === 'streamGenerateContent';
  // Without alt=sse Gemini streams one JSON array: every client in use asks for SSE.
  if (stream && queryAlt(url) !== 'sse')
    throw bad('streamGenerateContent is served as server-sent events: add ?alt=sse to the URL.', 'alt');
  return validateGeminiRequest(body, { model: call.model ?? '', stream });
}

export function validateGeminiRequest(body: unknown, call: { model: string; stream: boolean }): RequestFacts {
  if (!isObject(body)) throw bad('Invalid JSON payload: the request body must be a JSON object.', '');
  if (call.model === '')
    throw bad('The model name in the path is empty: use /v1beta/models/{model}:generateContent.', 'model');
  checkRequest(geminiRequestSchema, body, 'brackets');
  const max = (body.generationConfig as { maxOutputTokens?: number | null } | null | undefined)?.maxOutputTokens;
  return { model: call.model, stream: call.stream, maxTokens: max ?? null, includeUsage: false };
}

/** countTokens takes `contents` or a whole `generateContentRequest`. */
export function validateGeminiCount(body: unknown, model: string): Record<string, unknown> {
  if (!isObject(body)) throw bad('Invalid JSON payload: the request body must be a JSON object.', '');
  if (model === '') throw bad('The model name in the path is empty: use /v1beta/models/{model}:countTokens.', 'model');
  if (isObject(body.generateContentRequest)) {
    validateGeminiRequest(body.generateContentRequest, { model, stream: false });
    return body.generateContentRequest;
  }
  checkRequest(geminiCountSchema, body, 'brackets');
  return body;
}

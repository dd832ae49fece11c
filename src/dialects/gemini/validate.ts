// Validation of Gemini generateContent / streamGenerateContent / countTokens bodies: only what the
// gateway relies on, or what every upstream refuses anyway; unknown fields pass through untouched.
// The model and whether to stream come from the path, not the body.
import { GatewayError } from '../../core/errors.ts';
import { isObject } from '../../core/json.ts';
import { queryAlt, type GeminiCall } from './routes.ts';
import type { RequestFacts } from '../request-facts.ts';

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
  checkContents(body.contents, 'contents');
  if (body.systemInstruction !== undefined && body.systemInstruction !== null)
    checkContent(body.systemInstruction, 'systemInstruction');
  if (body.tools !== undefined && body.tools !== null && !Array.isArray(body.tools))
    throw bad("Invalid value at 'tools': it must be a list of Tool objects.", 'tools');
  const config = body.generationConfig;
  let maxTokens: number | null = null;
  if (config !== undefined && config !== null) {
    if (!isObject(config)) throw bad("Invalid value at 'generation_config': it must be an object.", 'generationConfig');
    const max = config.maxOutputTokens;
    if (max !== undefined && max !== null) {
      if (typeof max !== 'number' || !Number.isInteger(max) || max < 1)
        throw bad('generationConfig.maxOutputTokens must be a positive integer.', 'generationConfig.maxOutputTokens');
      maxTokens = max;
    }
    for (const field of ['temperature', 'topP', 'topK'] as const) {
      const v = config[field];
      if (v !== undefined && v !== null && (typeof v !== 'number' || !Number.isFinite(v) || v < 0))
        throw bad(`generationConfig.${field} must be a non-negative number.`, `generationConfig.${field}`);
    }
  }
  return { model: call.model, stream: call.stream, maxTokens, includeUsage: false };
}

/** countTokens takes `contents` or a whole `generateContentRequest`. */
export function validateGeminiCount(body: unknown, model: string): Record<string, unknown> {
  if (!isObject(body)) throw bad('Invalid JSON payload: the request body must be a JSON object.', '');
  if (model === '') throw bad('The model name in the path is empty: use /v1beta/models/{model}:countTokens.', 'model');
  if (isObject(body.generateContentRequest)) {
    validateGeminiRequest(body.generateContentRequest, { model, stream: false });
    return body.generateContentRequest;
  }
  checkContents(body.contents, 'contents');
  return body;
}

function checkContents(contents: unknown, param: string): void {
  if (!Array.isArray(contents) || contents.length === 0)
    throw bad('* GenerateContentRequest.contents: contents is not specified', param);
  for (let i = 0; i < contents.length; i++) {
    const c: unknown = contents[i];
    checkContent(c, `${param}[${i}]`);
    if (isObject(c) && c.role !== undefined && c.role !== 'user' && c.role !== 'model' && c.role !== 'function') {
      throw bad(`Please use a valid role: user, model. (${param}[${i}].role)`, `${param}[${i}].role`);
    }
  }
}

function checkContent(c: unknown, param: string): void {
  if (!isObject(c)) throw bad(`Invalid value at '${param}': it must be a Content object.`, param);
  if (!Array.isArray(c.parts) || c.parts.length === 0)
    throw bad(`* ${param}.parts: contents.parts must not be empty.`, `${param}.parts`);
  for (let j = 0; j < c.parts.length; j++) {
    if (!isObject(c.parts[j]))
      throw bad(`Invalid value at '${param}.parts[${j}]': it must be a Part object.`, `${param}.parts[${j}]`);
  }
}

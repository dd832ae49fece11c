// Validation of POST /v1/embeddings bodies (OpenAI's shape): `input` a string, an array of strings, an
// array of tokens or an array of token arrays; `dimensions` and `encoding_format` checked when present.
import { GatewayError } from '../../core/errors.ts';
import { isObject } from '../../core/json.ts';
import type { RequestFacts } from '../request-facts.ts';

/** OpenAI's own limit on inputs per request. */
export const MAX_EMBEDDING_INPUTS = 2048;

function bad(message: string, param: string): GatewayError {
  return new GatewayError('invalid_request', { message, param });
}

export type EmbeddingInput = { kind: 'text'; texts: string[] } | { kind: 'tokens'; tokens: number[][] };

export function validateEmbeddingsRequest(body: unknown): RequestFacts {
  if (!isObject(body)) throw bad('The request body must be a JSON object.', '');
  if (typeof body.model !== 'string' || body.model.length === 0)
    throw bad('`model` is required and must be a non-empty string.', 'model');
  embeddingInputs(body.input);
  const dims = body.dimensions;
  if (dims !== undefined && dims !== null && (typeof dims !== 'number' || !Number.isInteger(dims) || dims < 1))
    throw bad('`dimensions` must be a positive integer.', 'dimensions');
  const format = body.encoding_format;
  if (format !== undefined && format !== null && format !== 'float' && format !== 'base64')
    throw bad("`encoding_format` must be 'float' or 'base64'.", 'encoding_format');
  return { model: body.model, stream: false, maxTokens: 0, includeUsage: false };
}

/** The inputs of a validated body, as texts or as token arrays. */
export function embeddingInputs(input: unknown): EmbeddingInput {
  if (typeof input === 'string') return { kind: 'text', texts: [input] };
  if (!Array.isArray(input) || input.length === 0)
    throw bad('`input` is required: a string, an array of strings, or an array of token arrays.', 'input');
  if (input.length > MAX_EMBEDDING_INPUTS)
    throw bad(`\`input\` may hold at most ${MAX_EMBEDDING_INPUTS} items.`, 'input');
  if (input.every((v) => typeof v === 'string')) return { kind: 'text', texts: input as string[] };
  if (input.every(isToken)) return { kind: 'tokens', tokens: [input as number[]] };
  if (input.every((v) => Array.isArray(v) && v.length > 0 && v.every(isToken)))
    return { kind: 'tokens', tokens: input as number[][] };
  throw bad(
    '`input` must be a string, an array of strings, an array of tokens or an array of token arrays (not a mix).',
    'input',
  );
}

function isToken(v: unknown): boolean {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0;
}

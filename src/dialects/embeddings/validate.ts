// Validation of POST /v1/embeddings bodies by their schema (schema.ts), and their inputs as texts or
// token arrays.
import { GatewayError } from '../../core/errors.ts';
import type { RequestFacts } from '../request-facts.ts';
import { checkRequest } from '../request-schema.ts';
import { embeddingsRequestSchema, inputShape } from './schema.ts';

export { MAX_EMBEDDING_INPUTS } from './schema.ts';

export type EmbeddingInput = { kind: 'text'; texts: string[] } | { kind: 'tokens'; tokens: number[][] };

export function validateEmbeddingsRequest(body: unknown): RequestFacts {
  checkRequest(embeddingsRequestSchema, body, 'brackets');
  return { model: (body as { model: string }).model, stream: false, maxTokens: 0, includeUsage: false };
}

/** The inputs of a validated body, as texts or as token arrays. */
export function embeddingInputs(input: unknown): EmbeddingInput {
  switch (inputShape(input)) {
    case 'text':
      return { kind: 'text', texts: typeof input === 'string' ? [input] : (input as string[]) };
    case 'tokens':
      return { kind: 'tokens', tokens: [input as number[]] };
    case 'token_arrays':
      return { kind: 'tokens', tokens: input as number[][] };
    default:
      // Only a body the schema refused: validateEmbeddingsRequest names what is wrong with it.
      throw new GatewayError('invalid_request', { message: '`input` is not valid.', param: 'input' });
  }
}

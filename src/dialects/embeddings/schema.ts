// The POST /v1/embeddings body as the gateway checks it (OpenAI's shape): `input` a string, an array of
// strings, an array of tokens or an array of token arrays; `dimensions` and `encoding_format` when present.
import { z } from 'zod';
import { positiveInteger } from '../openai-chat/schema.ts';

/** OpenAI's own limit on inputs per request. */
export const MAX_EMBEDDING_INPUTS = 2048;

export type InputShape = 'text' | 'tokens' | 'token_arrays' | 'missing' | 'too_many' | 'mixed';

/** What `input` holds. */
export function inputShape(input: unknown): InputShape {
  if (typeof input === 'string') return 'text';
  if (!Array.isArray(input) || input.length === 0) return 'missing';
  if (input.length > MAX_EMBEDDING_INPUTS) return 'too_many';
  if (input.every((v) => typeof v === 'string')) return 'text';
  if (input.every(isToken)) return 'tokens';
  if (input.every((v) => Array.isArray(v) && v.length > 0 && v.every(isToken))) return 'token_arrays';
  return 'mixed';
}

function isToken(v: unknown): boolean {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0;
}

const INPUT_ERRORS: Partial<Record<InputShape, string>> = {
  missing: '`{param}` is required: a string, an array of strings, or an array of token arrays.',
  too_many: `\`{param}\` may hold at most ${MAX_EMBEDDING_INPUTS} items.`,
  mixed: '`{param}` must be a string, an array of strings, an array of tokens or an array of token arrays (not a mix).',
};

const required = '`{param}` is required and must be a non-empty string.';

export const embeddingsRequestSchema = z.looseObject(
  {
    model: z.string({ error: required }).min(1, { error: required }),
    input: z.unknown().superRefine((input, ctx) => {
      const error = INPUT_ERRORS[inputShape(input)];
      if (error !== undefined) ctx.addIssue({ code: 'custom', message: error });
    }),
    dimensions: positiveInteger('`{param}` must be a positive integer.').nullish(),
    encoding_format: z.enum(['float', 'base64'], { error: "`{param}` must be 'float' or 'base64'." }).nullish(),
  },
  { error: 'The request body must be a JSON object.' },
);

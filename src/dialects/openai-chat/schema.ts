// The POST /v1/chat/completions body as the gateway checks it (SPEC §2.1): what it relies on, and what
// every upstream refuses anyway; other fields pass untouched. Errors name the parameter OpenAI's way.
// plain-body.ts accepts the common body by hand before this schema is asked: a rule made stricter here
// is made stricter there too (test/unit/chat-plain-body.test.ts tries both on each field's edge cases).
import { z } from 'zod';

export const ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'] as const;

/** A whole number ≥ 1 of any size: a `max_tokens` of 1e308 is the upstream's to refuse, not a shape error. */
export function positiveInteger(error: string) {
  return z.number({ error }).refine((v) => Number.isInteger(v) && v >= 1, { error });
}

/** A finite number in [min, max]. */
export function numberBetween(min: number, max: number) {
  const error = `\`{param}\` must be a number from ${min} to ${max}.`;
  return z.number({ error }).min(min, { error }).max(max, { error });
}

const message = z
  .looseObject(
    {
      role: z.enum(ROLES, { error: '{param} must be one of system, developer, user, assistant, tool.' }),
      content: z
        .union([z.string(), z.array(z.unknown())], {
          error: '{param} must be a string or an array of content parts.',
        })
        .nullish(),
    },
    { error: '{param} must be an object.' },
  )
  .superRefine((m, ctx) => {
    if ((m.content === undefined || m.content === null) && m.role !== 'assistant')
      ctx.addIssue({ code: 'custom', path: ['content'], message: `{param} is required for role ${m.role}.` });
  });

const required = '`{param}` is required and must be a non-empty string.';
const nonEmptyMessages = '`{param}` is required and must be a non-empty array.';
const withType = '`{param}` must be an object with a `type`.';

export const chatRequestSchema = z.looseObject(
  {
    model: z.string({ error: required }).min(1, { error: required }),
    messages: z.array(message, { error: nonEmptyMessages }).min(1, { error: nonEmptyMessages }),
    stream: z.boolean({ error: '`{param}` must be a boolean.' }).nullish(),
    stream_options: z.looseObject({}, { error: '`{param}` must be an object.' }).nullish(),
    max_completion_tokens: positiveInteger('`{param}` must be a positive integer.').nullish(),
    max_tokens: positiveInteger('`{param}` must be a positive integer.').nullish(),
    temperature: numberBetween(0, 2).nullish(),
    top_p: numberBetween(0, 1).nullish(),
    tools: z.array(z.unknown(), { error: '`{param}` must be an array.' }).nullish(),
    tool_choice: z
      .union([z.string(), z.looseObject({})], { error: '`{param}` must be a string or an object.' })
      .nullish(),
    response_format: z
      .looseObject({}, { error: withType })
      .refine((v) => typeof v.type === 'string', { error: withType })
      .nullish(),
  },
  { error: 'The request body must be a JSON object.' },
);

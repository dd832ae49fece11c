// The generateContent / streamGenerateContent / countTokens body as the gateway checks it: only what it
// relies on, or what every upstream refuses anyway; unknown fields pass untouched. Errors read as
// Google's own do (`* GenerateContentRequest.contents: …`, `Invalid value at '…'`).
import { z } from 'zod';

const part = z.looseObject({}, { error: "Invalid value at '{param}': it must be a Part object." });
const parts = z
  .array(part, { error: '* {param}: contents.parts must not be empty.' })
  .min(1, { error: '* {param}: contents.parts must not be empty.' });

/** A Content object (a turn, or the system instruction): non-empty `parts` of Part objects. */
const content = z.looseObject({ parts }, { error: "Invalid value at '{param}': it must be a Content object." });

const turn = content.extend({
  role: z.enum(['user', 'model', 'function'], { error: 'Please use a valid role: user, model. ({param})' }).optional(),
});

const contentsError = '* GenerateContentRequest.contents: contents is not specified';
export const contentsSchema = z.array(turn, { error: contentsError }).min(1, { error: contentsError });

const nonNegative = z
  .number({ error: '{param} must be a non-negative number.' })
  .min(0, { error: '{param} must be a non-negative number.' })
  .nullish();
const maxOutputTokens = '{param} must be a positive integer.';

export const geminiRequestSchema = z.looseObject(
  {
    contents: contentsSchema,
    systemInstruction: content.nullish(),
    tools: z.array(z.unknown(), { error: "Invalid value at '{param}': it must be a list of Tool objects." }).nullish(),
    generationConfig: z
      .looseObject(
        {
          maxOutputTokens: z
            .number({ error: maxOutputTokens })
            .refine((v) => Number.isInteger(v) && v >= 1, { error: maxOutputTokens })
            .nullish(),
          temperature: nonNegative,
          topP: nonNegative,
          topK: nonNegative,
        },
        { error: "Invalid value at 'generation_config': it must be an object." },
      )
      .nullish(),
  },
  { error: 'Invalid JSON payload: the request body must be a JSON object.' },
);

/** countTokens takes `contents` or a whole `generateContentRequest` (checked as generateContent's body). */
export const geminiCountSchema = z.looseObject(
  { contents: contentsSchema },
  { error: 'Invalid JSON payload: the request body must be a JSON object.' },
);

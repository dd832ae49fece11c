// The POST /v1/messages body as the gateway checks it (SPEC §2.3 and §8): required max_tokens, first role
// user, strict alternation of user and assistant, temperature 0–1. Mid-conversation `role: "system"`
// items (Claude Code sends them) are kept in place and do not take part in the alternation (DESIGN.md
// Part 3). Errors name the parameter Anthropic's way (`messages.0.role: …`).
import { z } from 'zod';
import { requiredOr } from '../request-schema.ts';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const issue = (ctx: z.RefinementCtx, path: PropertyKey[], message: string) =>
  ctx.addIssue({ code: 'custom', path, message });

const message = z
  .looseObject(
    { role: z.enum(['user', 'assistant', 'system'], { error: '{param}: must be "user", "assistant" or "system".' }) },
    { error: '{param}: must be an object.' },
  )
  .superRefine((m, ctx) => {
    const c = m.content;
    if (m.role === 'system') {
      // A system item holds what the top-level `system` field may hold: a string or text blocks.
      if (
        typeof c !== 'string' &&
        (!Array.isArray(c) || c.some((b) => !isObject(b) || b.type !== 'text' || typeof b.text !== 'string'))
      )
        issue(ctx, ['content'], '{param}: a system message holds a string or an array of text blocks.');
    } else if (typeof c !== 'string' && !Array.isArray(c))
      issue(ctx, ['content'], '{param}: must be a string or an array of content blocks.');
  });

/** User and assistant turns alternate, starting with the user; system items stand aside. */
function alternate(messages: { role: string }[], ctx: z.RefinementCtx): void {
  let expected = 'user';
  let seenTurn = false;
  for (let i = 0; i < messages.length; i++) {
    const role = messages[i].role;
    if (role === 'system') continue;
    if (role !== expected) {
      issue(
        ctx,
        [i, 'role'],
        !seenTurn
          ? `{param}: the first message must use the "user" role${i === 0 ? '' : ' (system messages aside)'}.`
          : `{param}: roles must alternate between "user" and "assistant"; found two "${role}" messages in a row.`,
      );
      return;
    }
    expected = expected === 'user' ? 'assistant' : 'user';
    seenTurn = true;
  }
}

function between(min: number, max: number) {
  const error = `{param}: must be a number from ${min} to ${max}.`;
  return z.number({ error }).min(min, { error }).max(max, { error }).nullish();
}

const modelError = '{param}: Field required (a non-empty string).';
const messagesError = '{param}: Field required (a non-empty array).';
const maxTokensError = requiredOr('{param}: Field required.', '{param}: must be a positive integer.');
const topKError = '{param}: must be a non-negative integer.';
const stopsError = '{param}: must be an array of strings.';
const toolChoiceError = '{param}: must be an object with a `type`.';

export const messagesRequestSchema = z.looseObject(
  {
    model: z.string({ error: modelError }).min(1, { error: modelError }),
    max_tokens: z
      .number({ error: maxTokensError })
      .refine((v) => Number.isInteger(v) && v >= 1, { error: '{param}: must be a positive integer.' }),
    messages: z
      .array(message, { error: messagesError })
      .min(1, { error: messagesError })
      .superRefine((m, ctx) => alternate(m, ctx)),
    system: z
      .union([z.string(), z.array(z.unknown())], { error: '{param}: must be a string or an array of text blocks.' })
      .nullish(),
    stream: z.boolean({ error: '{param}: must be a boolean.' }).nullish(),
    temperature: between(0, 1),
    top_p: between(0, 1),
    top_k: z
      .number({ error: topKError })
      .refine((v) => Number.isInteger(v) && v >= 0, { error: topKError })
      .nullish(),
    stop_sequences: z
      .array(z.unknown(), { error: stopsError })
      .refine((v) => v.every((s) => typeof s === 'string'), { error: stopsError })
      .nullish(),
    tools: z.array(z.unknown(), { error: '{param}: must be an array.' }).nullish(),
    tool_choice: z
      .looseObject({}, { error: toolChoiceError })
      .refine((v) => typeof v.type === 'string', { error: toolChoiceError })
      .nullish(),
  },
  { error: 'The request body must be a JSON object.' },
);

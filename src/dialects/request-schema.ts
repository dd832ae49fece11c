// Request bodies are checked by a zod schema per dialect (`<dialect>/schema.ts`); a failure is the
// dialect's own 400, naming the parameter the way that API names it. A schema's error texts hold
// `{param}`, replaced by the failing path in the dialect's style (`messages[0].role` for OpenAI and
// Gemini, `messages.0.role` for Anthropic). The schemas check what the gateway relies on and what every
// upstream refuses anyway; unknown fields pass (loose objects), and the parsed copy is never used: the
// caller's body goes on as it came.
import type { z } from 'zod';
import { GatewayError } from '../core/errors.ts';

export type ParamStyle = 'brackets' | 'dots';

/** A path as the API names a parameter: `messages[0].role` (brackets) or `messages.0.role` (dots). */
export function paramOf(path: readonly PropertyKey[], style: ParamStyle): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += style === 'dots' ? `.${part}` : `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}

/**
 * Throws the dialect's 400 for the first thing `schema` refuses in `body`; `at` is where `body` sits in
 * a larger request (`items[2]`), when it is checked on its own.
 */
export function checkRequest(schema: z.ZodType, body: unknown, style: ParamStyle, at = ''): void {
  const result = schema.safeParse(body);
  if (result.success) return;
  const issue = result.error.issues[0];
  const inner = paramOf(issue.path, style);
  const param = at === '' || inner === '' ? at + inner : inner.startsWith('[') ? at + inner : `${at}.${inner}`;
  throw new GatewayError('invalid_request', { message: issue.message.replaceAll('{param}', param), param });
}

/** The first issue of `value` under `schema`, added to `ctx` at `path` (an element checked inside a refinement). */
export function addFirstIssue(schema: z.ZodType, value: unknown, ctx: z.RefinementCtx, path: PropertyKey[]): boolean {
  const result = schema.safeParse(value);
  if (result.success) return false;
  const issue = result.error.issues[0];
  ctx.addIssue({ code: 'custom', path: [...path, ...issue.path], message: issue.message });
  return true;
}

/** An error text for a value that is absent and for one that is wrong, told apart. */
export function requiredOr(absent: string, wrong: string): (issue: { input?: unknown }) => string {
  return (issue) => (issue.input === undefined ? absent : wrong);
}

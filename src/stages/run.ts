// Running a model's stages on a request and on a whole reply, in list order.
import type { Dialect } from '../core/dialect.ts';
import type { StageCounter } from './stage.ts';
import type { StageList } from './plan.ts';
import { DIALECT_TEXTS } from './dialect-texts.ts';
import { ReplyTexts, RequestTexts } from './texts-context.ts';

/**
 * The request's stages, before routing: true when one replaced a text in `body` (in place), which the
 * caller must then serialise again. A refusal is the GatewayError a stage throws.
 */
export function runBeforeRouting(
  list: StageList,
  req: { dialect: Dialect; body: Record<string, unknown>; stream: boolean },
  counter: StageCounter,
): boolean {
  if (list.request.length === 0) return false;
  const ctx = new RequestTexts({ ...req, collect: DIALECT_TEXTS[req.dialect].request, counter });
  for (const stage of list.request) stage.beforeRouting!(ctx);
  return ctx.changed;
}

/** A whole reply in the caller's dialect (JSON text) after the reply stages: the same text when none changed it. */
export function runAfterReply(list: StageList, dialect: Dialect, body: string, counter: StageCounter): string {
  if (list.reply.length === 0) return body;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return body;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return body;
  const ctx = new ReplyTexts({
    dialect,
    body: parsed as Record<string, unknown>,
    collect: DIALECT_TEXTS[dialect].reply,
    counter,
  });
  for (const stage of list.reply) stage.afterReply!(ctx);
  return ctx.changed ? JSON.stringify(parsed) : body;
}

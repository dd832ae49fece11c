// Validation of POST /v1/chat/completions bodies by their schema (schema.ts), the common case told by
// hand first (plain-body.ts), and the facts the gateway takes from a valid one.
import type { RequestFacts } from '../request-facts.ts';
import { checkRequest } from '../request-schema.ts';
import { plainChatBody } from './plain-body.ts';
import { chatRequestSchema } from './schema.ts';

export function validateChatRequest(body: unknown): RequestFacts {
  if (!plainChatBody(body)) checkRequest(chatRequestSchema, body, 'brackets');
  const b = body as Record<string, unknown> & { model: string };
  const stream = b.stream === true;
  const streamOptions = b.stream_options as { include_usage?: unknown } | null | undefined;
  return {
    model: b.model,
    stream,
    maxTokens:
      (b.max_completion_tokens as number | null | undefined) ?? (b.max_tokens as number | null | undefined) ?? null,
    includeUsage: stream && streamOptions?.include_usage === true,
  };
}

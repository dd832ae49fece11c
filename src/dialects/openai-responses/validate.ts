// Validation of POST /v1/responses bodies by their schema (schema.ts), and the facts the gateway takes
// from a valid one (the conversation it continues, whether to store it).
import { GatewayError } from '../../core/errors.ts';
import { isObject } from '../../core/json.ts';
import type { RequestFacts, ResponsesState } from '../request-facts.ts';
import { checkRequest } from '../request-schema.ts';
import { inputItemSchema, responsesRequestSchema } from './schema.ts';

/** A Responses request's facts: its state is always there. */
export interface ResponsesFacts extends RequestFacts {
  responses: ResponsesState;
}

/** The facts of a valid POST /v1/responses body (schema.ts). */
export function validateResponsesRequest(body: unknown): ResponsesFacts {
  checkRequest(responsesRequestSchema, body, 'brackets');
  const b = body as Record<string, unknown> & { model: string };
  const previous = b.previous_response_id;
  return {
    model: b.model,
    stream: b.stream === true,
    maxTokens: (b.max_output_tokens as number | null | undefined) ?? null,
    includeUsage: false,
    responses: { store: b.store !== false, previousResponseId: typeof previous === 'string' ? previous : null },
  };
}

/** One input item checked on its own (a Conversations API item), `where` naming its place. */
export function checkItem(item: unknown, where: string): void {
  checkRequest(inputItemSchema, item, 'brackets', where);
}

/** POST /v1/responses/input_tokens: a model, and `input` (when sent) as a string or a list of items. */
export function validateResponsesCount(body: unknown): Record<string, unknown> & { model: string } {
  if (!isObject(body) || typeof body.model !== 'string')
    throw new GatewayError('invalid_request', { message: 'model: Field required.', param: 'model' });
  if (body.input !== undefined && typeof body.input !== 'string' && !Array.isArray(body.input)) {
    throw new GatewayError('invalid_request', {
      message: '`input` must be a string or an array of input items.',
      param: 'input',
    });
  }
  return body as Record<string, unknown> & { model: string };
}

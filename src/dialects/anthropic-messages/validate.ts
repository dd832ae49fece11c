// Validation of POST /v1/messages bodies by their schema (schema.ts), then the rules of the request's
// anthropic-version (version.ts: they depend on a header, not on the body alone).
import { GatewayError } from '../../core/errors.ts';
import { isObject } from '../../core/json.ts';
import type { RequestFacts } from '../request-facts.ts';
import { checkRequest } from '../request-schema.ts';
import { messagesRequestSchema } from './schema.ts';
import { checkVersionRules, type AnthropicVersion } from './version.ts';

/** The facts of a valid POST /v1/messages body (schema.ts), after the rules of its anthropic-version. */
export function validateMessagesRequest(body: unknown, version: AnthropicVersion = '2023-06-01'): RequestFacts {
  checkRequest(messagesRequestSchema, body, 'dots');
  const b = body as Record<string, unknown> & { model: string; max_tokens: number };
  checkVersionRules(b, version);
  return { model: b.model, stream: b.stream === true, maxTokens: b.max_tokens, includeUsage: false };
}

/** POST /v1/messages/count_tokens: the version's rules, a model and the messages (the rest is the upstream's to judge). */
export function validateMessagesCount(
  body: unknown,
  version: AnthropicVersion,
): Record<string, unknown> & { model: string } {
  if (isObject(body)) checkVersionRules(body, version);
  if (!isObject(body) || typeof body.model !== 'string')
    throw new GatewayError('invalid_request', { message: 'model: Field required.', param: 'model' });
  if (!Array.isArray(body.messages))
    throw new GatewayError('invalid_request', { message: 'messages: Field required.', param: 'messages' });
  return body as Record<string, unknown> & { model: string };
}
